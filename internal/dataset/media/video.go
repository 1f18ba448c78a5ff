package media

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Synthetic video formats and pictures (AIPerf's values, plus mjpeg).
const (
	VideoWebM  = "webm"
	VideoMP4   = "mp4"
	VideoMJPEG = "mjpeg" // Motion JPEG in AVI, written without ffmpeg

	VideoMovingShapes = "moving_shapes"
	VideoGridClock    = "grid_clock"
	VideoNoise        = "noise"
)

// Stream names of the video draws.
const (
	streamVideoNoise = "dataset.video.noise"
	streamVideoAudio = "dataset.video.audio"
)

// maxVideoBytes bounds the raw frames of one synthetic video.
const maxVideoBytes = 1 << 30

// VideoOptions describes the synthetic videos of each turn.
type VideoOptions struct {
	BatchSize     int // videos per turn; 0 disables video
	Duration      float64
	FPS           int
	Width, Height int
	SynthType     string // VideoMovingShapes, VideoGridClock or VideoNoise
	Format        string // VideoWebM, VideoMP4 or VideoMJPEG
	Codec         string // ffmpeg video encoder (webm, mp4)
	// The audio track (ffmpeg formats only): Gaussian noise of the video's
	// duration, AudioChannels 0 for none.
	AudioSampleRateKHz float64
	AudioChannels      int
	AudioCodec         string
	AudioDepth         int
}

// Enabled reports whether turns get videos.
func (o VideoOptions) Enabled() bool { return o.BatchSize > 0 && o.Width > 0 && o.Height > 0 }

func (o VideoOptions) frames() int { return int(o.Duration * float64(o.FPS)) }

func (o VideoOptions) validate() error {
	if !o.Enabled() {
		return nil
	}
	var errs []error
	if !(o.Duration > 0) || math.IsInf(o.Duration, 0) || o.FPS < 1 || o.frames() < 1 {
		errs = append(errs, fmt.Errorf("a video needs at least one frame (duration %v s at %d fps)", o.Duration, o.FPS))
	}
	if raw := float64(o.frames()) * float64(o.Width*o.Height*3); raw > maxVideoBytes {
		errs = append(errs, fmt.Errorf("synthetic video of %d frames of %dx%d is too large (over %d bytes of frames)", o.frames(), o.Width, o.Height, maxVideoBytes))
	}
	switch o.SynthType {
	case VideoMovingShapes, VideoGridClock, VideoNoise:
	default:
		errs = append(errs, fmt.Errorf("unknown video picture %q (moving_shapes, grid_clock, noise)", o.SynthType))
	}
	switch o.Format {
	case VideoMJPEG:
		if o.AudioChannels > 0 {
			errs = append(errs, errors.New("mjpeg video has no audio track"))
		}
	case VideoWebM, VideoMP4:
		if _, err := FFmpegPath(); err != nil {
			errs = append(errs, fmt.Errorf("%s video: %w; or use --video-format mjpeg, which needs no ffmpeg", o.Format, err))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown video format %q (webm, mp4, mjpeg)", o.Format))
	}
	return errors.Join(errs...)
}

// videoGen draws synthetic videos. It is used by one goroutine at a time.
type videoGen struct {
	o     VideoOptions
	noise *rand.ChaCha8
	audio *rand.Rand
}

// next returns one video as a data URL.
func (g *videoGen) next() (string, error) {
	frames := g.frames()
	var data []byte
	var err error
	mime := "video/" + g.o.Format
	if g.o.Format == VideoMJPEG {
		mime = "video/x-msvideo"
		data, err = mjpegAVI(frames, g.o.Width, g.o.Height, g.o.FPS)
	} else {
		data, err = g.encodeFFmpeg(frames)
	}
	if err != nil {
		return "", err
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data), nil
}

// frames renders the picture's frames as packed RGB.
func (g *videoGen) frames() [][]byte {
	n, w, h := g.o.frames(), g.o.Width, g.o.Height
	out := make([][]byte, n)
	for i := range out {
		f := make([]byte, 3*w*h)
		switch g.o.SynthType {
		case VideoNoise:
			g.noise.Read(f)
		case VideoGridClock:
			drawGridClock(f, w, h, i, n)
		default:
			drawMovingShapes(f, w, h, i, n)
		}
		out[i] = f
	}
	return out
}

// set paints pixel (x, y) of an RGB frame, ignoring points outside it.
func set(f []byte, w, h, x, y int, c [3]byte) {
	if x < 0 || y < 0 || x >= w || y >= h {
		return
	}
	copy(f[3*(y*w+x):], c[:])
}

// drawMovingShapes draws frame i of n: on black, a red circle crossing
// left to right, a green square falling from the top and a blue triangle
// moving up and left from the bottom right corner, each wrapping.
func drawMovingShapes(f []byte, w, h, i, n int) {
	fi, fn := float64(i), float64(max(n, 1))
	cx := int(fi*float64(w)/fn*2) % w
	r := max(2, min(w, h)/16)
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			if x*x+y*y <= r*r {
				set(f, w, h, cx+x, h/2+y, [3]byte{255, 0, 0})
			}
		}
	}
	sy := int(fi*float64(h)/fn*2) % h
	for y := range 2 * r {
		for x := range 2 * r {
			set(f, w, h, w/2-r+x, sy+y, [3]byte{0, 255, 0})
		}
	}
	tx := ((w-int(fi*float64(w)/fn*1.5))%w + w) % w
	ty := ((h-int(fi*float64(h)/fn*1.5))%h + h) % h
	for y := range 2 * r {
		for x := -y / 2; x <= y/2; x++ {
			set(f, w, h, tx+x, ty-r+y, [3]byte{0, 0, 255})
		}
	}
}

// drawGridClock draws frame i of n: a grey grid with a yellow hour hand
// and a white minute hand turning around the centre.
func drawGridClock(f []byte, w, h, i, n int) {
	for k := 0; k < len(f); k += 3 {
		f[k], f[k+1], f[k+2] = 32, 32, 32
	}
	grid := max(8, min(w, h)/8)
	for y := range h {
		for x := range w {
			if x%grid == 0 || y%grid == 0 {
				set(f, w, h, x, y, [3]byte{64, 64, 64})
			}
		}
	}
	cx, cy := w/2, h/2
	radius := float64(min(w, h)) / 4
	frac := float64(i) / float64(max(n, 1))
	hand := func(angle, length float64, c [3]byte) {
		for s := 0.0; s <= length; s += 0.5 {
			set(f, w, h, cx+int(s*math.Sin(angle)), cy-int(s*math.Cos(angle)), c)
		}
	}
	hand(2*math.Pi*frac, radius*0.6, [3]byte{255, 255, 0})
	hand(2*math.Pi*frac*12, radius, [3]byte{255, 255, 255})
}

// encodeFFmpeg pipes the raw frames to ffmpeg, as AIPerf does, writing to
// a seekable temporary file so that WebM records its duration (frame
// sampling decoders such as vLLM's need it) and MP4 can move its index to
// the front. An audio track, when asked for, is muxed from a noise WAV.
func (g *videoGen) encodeFFmpeg(frames [][]byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "aiperf-video-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out."+g.o.Format)
	args := []string{"-f", "rawvideo", "-pix_fmt", "rgb24", "-s", fmt.Sprintf("%dx%d", g.o.Width, g.o.Height),
		"-r", strconv.Itoa(g.o.FPS), "-i", "pipe:0"}
	if g.o.AudioChannels > 0 {
		wavPath := filepath.Join(dir, "audio.wav")
		ag := audioGen{o: AudioOptions{Channels: g.o.AudioChannels}, rng: g.audio}
		rate := int(g.o.AudioSampleRateKHz * 1000)
		if err := os.WriteFile(wavPath, ag.wav(int(g.o.Duration*float64(rate)), rate, g.o.AudioDepth), 0o600); err != nil {
			return nil, err
		}
		args = append(args, "-i", wavPath, "-acodec", g.o.AudioCodec, "-shortest")
	}
	args = append(args, "-f", g.o.Format, "-vcodec", g.o.Codec, "-pix_fmt", "yuv420p")
	if g.o.Format == VideoMP4 {
		args = append(args, "-movflags", "faststart")
	}
	args = append(args, "-y", out)
	if _, err := runFFmpeg(args, bytes.Join(frames, nil)); err != nil {
		return nil, fmt.Errorf("creating %s video (codec %s, %dx%d, %d fps): %w", g.o.Format, g.o.Codec, g.o.Width, g.o.Height, g.o.FPS, err)
	}
	data, err := os.ReadFile(out)
	if err == nil && len(data) == 0 {
		err = errors.New("ffmpeg produced no output")
	}
	return data, err
}

// mjpegQuality is the JPEG quality of Motion JPEG frames.
const mjpegQuality = 85

// mjpegAVI writes Motion JPEG in an AVI (RIFF) container: the main and
// stream headers, one '00dc' chunk per JPEG frame, and the idx1 index
// marking every frame a key frame. Players and decoders (ffmpeg, OpenCV)
// read it without extra codecs.
func mjpegAVI(frames [][]byte, w, h, fps int) ([]byte, error) {
	jpegs := make([][]byte, len(frames))
	maxLen := 0
	for i, f := range frames {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for p, q := 0, 0; p < len(f); p, q = p+3, q+4 {
			copy(img.Pix[q:q+3], f[p:p+3])
			img.Pix[q+3] = 0xff
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: mjpegQuality}); err != nil {
			return nil, fmt.Errorf("encoding an mjpeg frame: %w", err)
		}
		jpegs[i] = b.Bytes()
		maxLen = max(maxLen, b.Len())
	}
	le := binary.LittleEndian
	u32 := func(b []byte, v uint32) []byte { return le.AppendUint32(b, v) }
	chunk := func(id string, body []byte) []byte {
		out := append([]byte(id), 0, 0, 0, 0)
		le.PutUint32(out[4:], uint32(len(body)))
		out = append(out, body...)
		if len(body)%2 == 1 {
			out = append(out, 0)
		}
		return out
	}
	list := func(kind string, body ...[]byte) []byte {
		return chunk("LIST", append([]byte(kind), bytes.Join(body, nil)...))
	}
	n := uint32(len(frames))
	var avih []byte
	for _, v := range []uint32{uint32(1e6 / fps), uint32(maxLen * fps), 0, 0x10 /* AVIF_HASINDEX */, n, 0, 1,
		uint32(maxLen), uint32(w), uint32(h), 0, 0, 0, 0} {
		avih = u32(avih, v)
	}
	strh := append([]byte("vidsMJPG"), make([]byte, 12)...) // flags, priority, language, initial frames
	for _, v := range []uint32{1, uint32(fps), 0, n, uint32(maxLen), 0xffffffff, 0} {
		strh = u32(strh, v)
	}
	strh = le.AppendUint16(le.AppendUint16(le.AppendUint16(le.AppendUint16(strh, 0), 0), uint16(w)), uint16(h))
	strf := u32(u32(u32(nil, 40), uint32(w)), uint32(h))
	strf = le.AppendUint16(le.AppendUint16(strf, 1), 24)
	strf = append(strf, "MJPG"...)
	for _, v := range []uint32{uint32(w * h * 3), 0, 0, 0, 0} {
		strf = u32(strf, v)
	}
	var movi, idx []byte
	offset := uint32(4) // from the 'movi' fourcc
	for _, j := range jpegs {
		c := chunk("00dc", j)
		movi = append(movi, c...)
		idx = append(idx, "00dc"...)
		idx = u32(u32(u32(idx, 0x10 /* AVIIF_KEYFRAME */), offset), uint32(len(j)))
		offset += uint32(len(c))
	}
	body := append([]byte("AVI "), list("hdrl", chunk("avih", avih), list("strl", chunk("strh", strh), chunk("strf", strf)))...)
	body = append(body, list("movi", movi)...)
	body = append(body, chunk("idx1", idx)...)
	return chunk("RIFF", body), nil
}
