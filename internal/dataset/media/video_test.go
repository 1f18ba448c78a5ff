package media

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/testenv"
)

func videoData(t *testing.T, url, mime string) []byte {
	t.Helper()
	head, b64, ok := strings.Cut(url, ",")
	if !ok || head != "data:"+mime+";base64" {
		t.Fatalf("video URL starts %.40q; want data:%s;base64,", url, mime)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestVideoMJPEG: the pure-Go Motion JPEG AVI has one key-frame chunk per
// frame (duration x fps), each a JPEG of the frame size, an index of them,
// and ffmpeg (when installed) decodes every frame.
func TestVideoMJPEG(t *testing.T) {
	t.Parallel()
	for _, synth := range []string{VideoMovingShapes, VideoGridClock, VideoNoise} {
		o := VideoOptions{BatchSize: 1, Duration: 1.5, FPS: 4, Width: 32, Height: 24, SynthType: synth, Format: VideoMJPEG}
		ds := mediaDataset(t, 1, MediaOptions{Video: o}, 5)
		data := videoData(t, ds.Conversations[0].Turns[0].Videos[0], "video/x-msvideo")
		if string(data[:4]) != "RIFF" || string(data[8:12]) != "AVI " || int(binary.LittleEndian.Uint32(data[4:])) != len(data)-8 {
			t.Fatalf("%s: not a RIFF AVI of the right size", synth)
		}
		if got := bytes.Count(data, []byte("00dc")); got != 2*6 { // one chunk and one index entry per frame
			t.Errorf("%s: %d '00dc' markers; want 12 (6 frames)", synth, got)
		}
		i := bytes.Index(data, []byte("00dc"))
		size := int(binary.LittleEndian.Uint32(data[i+4:]))
		img, err := jpeg.Decode(bytes.NewReader(data[i+8 : i+8+size]))
		if err != nil || img.Bounds().Dx() != 32 || img.Bounds().Dy() != 24 {
			t.Errorf("%s: first frame: %v, %v", synth, err, img)
		}
		if ffmpeg, err := FFmpegPath(); err == nil {
			path := filepath.Join(t.TempDir(), "v.avi")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(ffmpeg, "-v", "error", "-i", path, "-f", "null", "-").CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("%s: ffmpeg cannot decode the AVI: %v %s", synth, err, out)
			}
		}
	}
}

// TestVideoFFmpeg encodes WebM (with an audio track) and MP4 as AIPerf
// does; skipped without ffmpeg, which .ci/run installs.
func TestVideoFFmpeg(t *testing.T) {
	t.Parallel()
	testenv.Tool(t, testenv.FFmpeg, "ffmpeg")
	webm := VideoOptions{BatchSize: 1, Duration: 1, FPS: 4, Width: 32, Height: 32, SynthType: VideoMovingShapes,
		Format: VideoWebM, Codec: "libvpx-vp9", AudioSampleRateKHz: 16, AudioChannels: 1, AudioCodec: "libvorbis", AudioDepth: 16}
	data := videoData(t, mediaDataset(t, 1, MediaOptions{Video: webm}, 6).Conversations[0].Turns[0].Videos[0], "video/webm")
	if !bytes.HasPrefix(data, []byte{0x1a, 0x45, 0xdf, 0xa3}) {
		t.Errorf("webm starts % x; want the EBML magic", data[:4])
	}
	mp4 := webm
	mp4.Format, mp4.AudioChannels, mp4.Codec = VideoMP4, 0, "mpeg4"
	data = videoData(t, mediaDataset(t, 1, MediaOptions{Video: mp4}, 6).Conversations[0].Turns[0].Videos[0], "video/mp4")
	if !bytes.Contains(data[:32], []byte("ftyp")) {
		t.Errorf("mp4 lacks its ftyp box")
	}
	bad := webm
	bad.Codec = "no-such-codec"
	err := AddMedia(&dataset.Dataset{Conversations: []dataset.Conversation{{Turns: []dataset.Turn{{}}}}}, MediaOptions{Video: bad}, 1)
	if err == nil || !strings.Contains(err.Error(), "no-such-codec") {
		t.Errorf("unknown codec: %v; want an error naming it", err)
	}
}
