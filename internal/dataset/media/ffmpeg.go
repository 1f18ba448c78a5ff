package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ErrNoFFmpeg is returned when media that needs ffmpeg (mp3 audio, WebM
// and MP4 video) is asked for and no ffmpeg is on PATH.
var ErrNoFFmpeg = errors.New("ffmpeg was not found on PATH; install it " +
	"(Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg; conda: conda install -c conda-forge ffmpeg)")

// ffmpegTimeout bounds one encode, so a wedged ffmpeg cannot hang the run
// before it starts.
const ffmpegTimeout = 5 * time.Minute

// FFmpegPath returns the ffmpeg to run, or ErrNoFFmpeg. The AIPERF_FFMPEG
// environment variable is not consulted: PATH decides, as for AIPerf.
func FFmpegPath() (string, error) {
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", ErrNoFFmpeg
	}
	return p, nil
}

// runFFmpeg runs ffmpeg with args (quiet, non-interactive), feeding it
// stdin, and returns what it wrote to stdout. A failure carries the end of
// ffmpeg's own error output.
func runFFmpeg(args []string, stdin []byte) ([]byte, error) {
	path, err := FFmpegPath()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), ffmpegTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{"-hide_banner", "-loglevel", "error", "-nostdin"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 500 {
			msg = "..." + msg[len(msg)-500:]
		}
		return nil, fmt.Errorf("ffmpeg %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return out.Bytes(), nil
}

// encodeMP3 converts a WAV file to MP3 with ffmpeg (libmp3lame).
func encodeMP3(wav []byte) ([]byte, error) {
	return runFFmpeg([]string{"-f", "wav", "-i", "pipe:0", "-f", "mp3", "pipe:1"}, wav)
}
