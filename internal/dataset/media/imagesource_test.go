package media

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/testenv"
)

// meanColor is the average RGB of an image, which tells the source
// pictures apart after resizing.
func meanColor(t *testing.T, url string) [3]float64 {
	t.Helper()
	_, data := decodeDataURL(t, url)
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var sum [3]float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			sum[0], sum[1], sum[2] = sum[0]+float64(r>>8), sum[1]+float64(g>>8), sum[2]+float64(bl>>8)
		}
	}
	n := float64(b.Dx() * b.Dy())
	return [3]float64{sum[0] / n, sum[1] / n, sum[2] / n}
}

// writeSolid writes a solid-colour PNG.
func writeSolid(t *testing.T, path string, c color.RGBA) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 20, 10))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestImageSourceDirectory: a directory's images, in name order, resized
// to the drawn size; sequential-cycle walks them in order across
// conversations, shuffle-cycle uses each once per cycle; files that are
// not images are skipped.
func TestImageSourceDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSolid(t, filepath.Join(dir, "a.png"), color.RGBA{R: 255})
	writeSolid(t, filepath.Join(dir, "b.png"), color.RGBA{G: 255})
	writeSolid(t, filepath.Join(dir, "c.png"), color.RGBA{B: 255})
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := ImageOptions{BatchSize: 1, WidthMean: 8, HeightMean: 6, Format: ImagePNG, Source: dir}
	dominant := func(url string) int {
		m := meanColor(t, url)
		best := 0
		for i := range 3 {
			if m[i] > m[best] {
				best = i
			}
		}
		return best
	}

	seq := base
	seq.Sampling = SampleSequentialCycle
	ds := mediaDataset(t, 5, MediaOptions{Images: seq}, 1)
	for i, c := range ds.Conversations {
		if got := dominant(c.Turns[0].Images[0]); got != i%3 {
			t.Errorf("sequential-cycle image %d comes from source %d; want %d", i, got, i%3)
		}
		_, data := decodeDataURL(t, c.Turns[0].Images[0])
		cfg, _, _ := image.DecodeConfig(bytes.NewReader(data))
		if cfg.Width != 8 || cfg.Height != 6 {
			t.Errorf("image %d is %dx%d; want 8x6", i, cfg.Width, cfg.Height)
		}
	}

	shuf := base
	shuf.Sampling = SampleShuffleCycle
	ds = mediaDataset(t, 6, MediaOptions{Images: shuf}, 2)
	for cycle := range 2 {
		seen := map[int]bool{}
		for i := range 3 {
			seen[dominant(ds.Conversations[3*cycle+i].Turns[0].Images[0])] = true
		}
		if len(seen) != 3 {
			t.Errorf("shuffle-cycle cycle %d used sources %v; want each once", cycle, seen)
		}
	}

	if err := AddMedia(&dataset.Dataset{Conversations: []dataset.Conversation{{Turns: []dataset.Turn{{}}}}},
		MediaOptions{Images: ImageOptions{BatchSize: 1, WidthMean: 4, HeightMean: 4, Format: ImagePNG, Source: filepath.Join(dir, "none")}}, 1); err == nil {
		t.Error("a missing source directory was accepted")
	}
	empty := t.TempDir()
	err := AddMedia(&dataset.Dataset{Conversations: []dataset.Conversation{{Turns: []dataset.Turn{{}}}}},
		MediaOptions{Images: ImageOptions{BatchSize: 1, WidthMean: 4, HeightMean: 4, Format: ImagePNG, Source: empty}}, 1)
	if err == nil || !strings.Contains(err.Error(), "no readable source images") {
		t.Errorf("empty source directory: %v", err)
	}
}

// TestImageSourceAssets: the built-in pictures are resized to the drawn
// size and, being smooth, compress far better than noise of the same size.
func TestImageSourceAssets(t *testing.T) {
	t.Parallel()
	o := ImageOptions{BatchSize: 1, WidthMean: 256, HeightMean: 192, Format: ImagePNG, Source: ImageSourceAssets}
	assets := mediaDataset(t, 4, MediaOptions{Images: o}, 3)
	o.Source = ImageSourceNoise
	noise := mediaDataset(t, 1, MediaOptions{Images: o}, 3)
	_, n := decodeDataURL(t, noise.Conversations[0].Turns[0].Images[0])
	for i, c := range assets.Conversations {
		_, a := decodeDataURL(t, c.Turns[0].Images[0])
		if len(a)*4 > len(n) {
			t.Errorf("asset image %d is %d bytes; noise is %d (want assets at least 4x smaller)", i, len(a), len(n))
		}
	}
	bad := ImageOptions{BatchSize: 1, WidthMean: 4, HeightMean: 4, Format: ImagePNG, Sampling: SampleShuffleCycle}
	if err := bad.validate(); err == nil {
		t.Error("shuffle-cycle over noise accepted")
	}
}

// TestAudioMP3 encodes a clip with ffmpeg: the data is an MPEG audio
// stream (an ID3 tag or a frame sync) in AIPerf's "mp3,<base64>" form.
func TestAudioMP3(t *testing.T) {
	t.Parallel()
	testenv.Tool(t, testenv.FFmpeg, "ffmpeg")
	o := AudioOptions{BatchSize: 1, LengthMean: 0.2, Format: AudioMP3, SampleRatesKHz: []float64{16}, Depths: []int{16}, Channels: 1}
	ds := mediaDataset(t, 1, MediaOptions{Audio: o}, 4)
	clip := ds.Conversations[0].Turns[0].Audios[0]
	format, b64, ok := strings.Cut(clip, ",")
	if !ok || format != "mp3" {
		t.Fatalf("clip %.30q is not mp3,<base64>", clip)
	}
	data, err := base64Decode(b64)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("ID3")) && !(len(data) > 1 && data[0] == 0xff && data[1]&0xe0 == 0xe0) {
		t.Errorf("mp3 data starts % x; want an ID3 tag or an MPEG frame", data[:min(4, len(data))])
	}
}

func base64Decode(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }
