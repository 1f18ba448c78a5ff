package media

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"image"
	_ "image/jpeg" // decoders for image.Decode
	_ "image/png"
	"math"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/google/go-cmp/cmp"
)

// mediaDataset returns n single-turn conversations with the given media.
func mediaDataset(t *testing.T, n int, o MediaOptions, seed uint64) *dataset.Dataset {
	t.Helper()
	ds := &dataset.Dataset{Conversations: make([]dataset.Conversation, n)}
	for i := range ds.Conversations {
		ds.Conversations[i] = dataset.Conversation{ID: "c" + string(rune('a'+i)), Turns: []dataset.Turn{{Role: "user", Texts: []string{"hi"}}}}
	}
	if err := AddMedia(ds, o, seed); err != nil {
		t.Fatalf("AddMedia: %v", err)
	}
	return ds
}

// decodeDataURL splits "data:image/<fmt>;base64,<b64>".
func decodeDataURL(t *testing.T, url string) (format string, data []byte) {
	t.Helper()
	head, b64, ok := strings.Cut(url, ",")
	if !ok || !strings.HasPrefix(head, "data:image/") || !strings.HasSuffix(head, ";base64") {
		t.Fatalf("not an image data URL: %.60q", url)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("base64: %v", err)
	}
	return strings.TrimSuffix(strings.TrimPrefix(head, "data:image/"), ";base64"), data
}

func TestImagesDecodeAtDrawnSize(t *testing.T) {
	for _, tc := range []struct {
		name       string
		o          ImageOptions
		wantW      int
		wantH      int
		wantFormat string
	}{
		{"png", ImageOptions{BatchSize: 2, WidthMean: 16, HeightMean: 8, Format: ImagePNG}, 16, 8, "png"},
		{"jpeg", ImageOptions{BatchSize: 1, WidthMean: 33, HeightMean: 17, Format: ImageJPEG}, 33, 17, "jpeg"},
		// AIPerf truncates the mean to an integer before drawing.
		{"truncated mean", ImageOptions{BatchSize: 1, WidthMean: 10.9, HeightMean: 3.2, Format: ImagePNG}, 10, 3, "png"},
		{"below one pixel", ImageOptions{BatchSize: 1, WidthMean: 0.5, HeightMean: 0.5, Format: ImagePNG}, 1, 1, "png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := mediaDataset(t, 3, MediaOptions{Images: tc.o}, 7)
			for _, c := range ds.Conversations {
				turn := c.Turns[0]
				if len(turn.Images) != tc.o.BatchSize {
					t.Fatalf("%d images, want %d", len(turn.Images), tc.o.BatchSize)
				}
				for _, url := range turn.Images {
					format, data := decodeDataURL(t, url)
					img, name, err := image.Decode(bytes.NewReader(data))
					if err != nil {
						t.Fatalf("decode: %v", err)
					}
					if format != tc.wantFormat || name != tc.wantFormat {
						t.Errorf("format %q (decoded as %q), want %q", format, name, tc.wantFormat)
					}
					if b := img.Bounds(); b.Dx() != tc.wantW || b.Dy() != tc.wantH {
						t.Errorf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), tc.wantW, tc.wantH)
					}
				}
			}
		})
	}
}

func TestImagesRandomFormatAndSpread(t *testing.T) {
	o := ImageOptions{BatchSize: 4, WidthMean: 20, WidthStddev: 6, HeightMean: 12, HeightStddev: 4, Format: ImageRandom}
	ds := mediaDataset(t, 10, MediaOptions{Images: o}, 3)
	formats := map[string]int{}
	widths := map[int]bool{}
	for _, c := range ds.Conversations {
		for _, url := range c.Turns[0].Images {
			format, data := decodeDataURL(t, url)
			formats[format]++
			cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width < 1 || cfg.Height < 1 {
				t.Errorf("size %dx%d below 1", cfg.Width, cfg.Height)
			}
			widths[cfg.Width] = true
		}
	}
	if formats["png"] == 0 || formats["jpeg"] == 0 || len(formats) != 2 {
		t.Errorf("formats %v: want both png and jpeg only", formats)
	}
	if len(widths) < 3 {
		t.Errorf("widths %v: stddev 6 should spread them", widths)
	}
}

// wavInfo is a parsed canonical WAV header.
type wavInfo struct {
	Channels, Rate, ByteRate, Align, Bits int
	DataLen                               int
}

func parseWAV(t *testing.T, clip string) (wavInfo, []byte) {
	t.Helper()
	b64, ok := strings.CutPrefix(clip, "wav,")
	if !ok {
		t.Fatalf("clip %.20q lacks the wav, prefix", clip)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV header: % x", b[:min(len(b), 44)])
	}
	if int(le.Uint32(b[4:])) != len(b)-8 {
		t.Errorf("RIFF size %d, file %d", le.Uint32(b[4:]), len(b))
	}
	if le.Uint32(b[16:]) != 16 || le.Uint16(b[20:]) != 1 {
		t.Errorf("fmt chunk size %d / format %d, want 16 / PCM", le.Uint32(b[16:]), le.Uint16(b[20:]))
	}
	w := wavInfo{
		Channels: int(le.Uint16(b[22:])), Rate: int(le.Uint32(b[24:])), ByteRate: int(le.Uint32(b[28:])),
		Align: int(le.Uint16(b[32:])), Bits: int(le.Uint16(b[34:])), DataLen: int(le.Uint32(b[40:])),
	}
	if len(b) != 44+w.DataLen+w.DataLen%2 {
		t.Errorf("file %d bytes, data chunk %d", len(b), w.DataLen)
	}
	return w, b[44 : 44+w.DataLen]
}

func TestAudioWAVOfDrawnShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		o     AudioOptions
		want  wavInfo
		frame int // expected frames
	}{
		{"16-bit mono 16 kHz", AudioOptions{BatchSize: 1, LengthMean: 0.05, Format: AudioWAV, SampleRatesKHz: []float64{16}, Depths: []int{16}, Channels: 1},
			wavInfo{Channels: 1, Rate: 16000, ByteRate: 32000, Align: 2, Bits: 16, DataLen: 1600}, 800},
		{"8-bit stereo 8 kHz", AudioOptions{BatchSize: 2, LengthMean: 0.05, Format: AudioWAV, SampleRatesKHz: []float64{8}, Depths: []int{8}, Channels: 2},
			wavInfo{Channels: 2, Rate: 8000, ByteRate: 16000, Align: 2, Bits: 8, DataLen: 800}, 400},
		{"24-bit stereo 44.1 kHz", AudioOptions{BatchSize: 1, LengthMean: 0.01, Format: AudioWAV, SampleRatesKHz: []float64{44.1}, Depths: []int{24}, Channels: 2},
			wavInfo{Channels: 2, Rate: 44100, ByteRate: 264600, Align: 6, Bits: 24, DataLen: 441 * 6}, 441},
		{"32-bit mono odd", AudioOptions{BatchSize: 1, LengthMean: 0.0125, Format: AudioWAV, SampleRatesKHz: []float64{8}, Depths: []int{32}, Channels: 1},
			wavInfo{Channels: 1, Rate: 8000, ByteRate: 32000, Align: 4, Bits: 32, DataLen: 400}, 100},
		{"8-bit mono odd length is padded", AudioOptions{BatchSize: 1, LengthMean: 0.012875, Format: AudioWAV, SampleRatesKHz: []float64{8}, Depths: []int{8}, Channels: 1},
			wavInfo{Channels: 1, Rate: 8000, ByteRate: 8000, Align: 1, Bits: 8, DataLen: 103}, 103},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := mediaDataset(t, 2, MediaOptions{Audio: tc.o}, 11)
			for _, c := range ds.Conversations {
				turn := c.Turns[0]
				if len(turn.Audios) != tc.o.BatchSize {
					t.Fatalf("%d clips, want %d", len(turn.Audios), tc.o.BatchSize)
				}
				if turn.AudioSeconds != tc.o.LengthMean {
					t.Errorf("AudioSeconds %v, want %v", turn.AudioSeconds, tc.o.LengthMean)
				}
				for _, clip := range turn.Audios {
					got, data := parseWAV(t, clip)
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("header (-want +got):\n%s", diff)
					}
					if tc.want.Bits == 8 {
						// Unsigned samples centred on 128: noise of stddev
						// 0.3 averages close to it.
						sum := 0
						for _, s := range data {
							sum += int(s)
						}
						if mean := float64(sum) / float64(len(data)); math.Abs(mean-128) > 15 {
							t.Errorf("8-bit mean sample %.1f, want about 128", mean)
						}
					}
				}
			}
		})
	}
}

func TestAudioLengthSpreadAndChoices(t *testing.T) {
	o := AudioOptions{BatchSize: 3, LengthMean: 0.02, LengthStddev: 0.05, Format: AudioWAV,
		SampleRatesKHz: []float64{8, 16}, Depths: []int{8, 16, 24, 32}, Channels: 1}
	ds := mediaDataset(t, 12, MediaOptions{Audio: o}, 5)
	rates, depths := map[int]bool{}, map[int]bool{}
	for _, c := range ds.Conversations {
		turn := c.Turns[0]
		if turn.AudioSeconds < minAudioSeconds {
			t.Errorf("duration %v below %v", turn.AudioSeconds, minAudioSeconds)
		}
		first, _ := parseWAV(t, turn.Audios[0])
		if want := int(turn.AudioSeconds*float64(first.Rate)) * first.Align; first.DataLen != want {
			t.Errorf("first clip holds %d bytes, want %d for %v s", first.DataLen, want, turn.AudioSeconds)
		}
		for _, clip := range turn.Audios {
			w, _ := parseWAV(t, clip)
			rates[w.Rate], depths[w.Bits] = true, true
		}
	}
	if len(rates) != 2 || len(depths) != 4 {
		t.Errorf("rates %v depths %v: want every listed value drawn", rates, depths)
	}
}

func TestMediaDeterministic(t *testing.T) {
	o := MediaOptions{
		Images: ImageOptions{BatchSize: 2, WidthMean: 12, WidthStddev: 3, HeightMean: 9, Format: ImageRandom},
		Audio:  AudioOptions{BatchSize: 1, LengthMean: 0.02, LengthStddev: 0.01, Format: AudioWAV, SampleRatesKHz: []float64{8, 16}, Depths: []int{8, 16}, Channels: 2},
	}
	a := mediaDataset(t, 4, o, 42)
	b := mediaDataset(t, 4, o, 42)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different media (-a +b):\n%.2000s", diff)
	}
	c := mediaDataset(t, 4, o, 43)
	if cmp.Equal(a.Conversations[0].Turns[0].Images, c.Conversations[0].Turns[0].Images) {
		t.Error("different seeds gave the same images")
	}
	// Conversation i does not depend on how many conversations there are.
	d := mediaDataset(t, 2, o, 42)
	if diff := cmp.Diff(a.Conversations[1], d.Conversations[1]); diff != "" {
		t.Errorf("conversation 1 changed with the number of entries:\n%.2000s", diff)
	}
}

func TestAddMediaSkipsRawPayloadsAndDisabled(t *testing.T) {
	ds := &dataset.Dataset{Conversations: []dataset.Conversation{{ID: "x", Turns: []dataset.Turn{{RawPayload: []byte(`{}`)}, {Texts: []string{"a"}}}}}}
	o := MediaOptions{Images: ImageOptions{BatchSize: 1, WidthMean: 2, HeightMean: 2, Format: ImagePNG}}
	if err := AddMedia(ds, o, 1); err != nil {
		t.Fatal(err)
	}
	if turns := ds.Conversations[0].Turns; len(turns[0].Images) != 0 || len(turns[1].Images) != 1 {
		t.Errorf("images per turn: %d, %d; want 0, 1", len(turns[0].Images), len(turns[1].Images))
	}
	// Disabled modalities (batch 0, zero size or length) add nothing and
	// are not validated.
	for _, o := range []MediaOptions{
		{Images: ImageOptions{BatchSize: 0, WidthMean: 5, HeightMean: 5, Format: "bmp"}},
		{Images: ImageOptions{BatchSize: 1, WidthMean: 0, HeightMean: 5}},
		{Audio: AudioOptions{BatchSize: 1, LengthMean: 0, Format: "mp3"}},
	} {
		ds := mediaDataset(t, 1, o, 1)
		if turn := ds.Conversations[0].Turns[0]; len(turn.Images)+len(turn.Audios) != 0 {
			t.Errorf("%+v added media", o)
		}
	}
}

func TestMediaValidateReportsEverything(t *testing.T) {
	o := MediaOptions{
		Images: ImageOptions{BatchSize: 1, WidthMean: 4, HeightMean: 4, WidthStddev: math.Inf(1), Format: "gif"},
		Audio:  AudioOptions{BatchSize: 1, LengthMean: 0.001, Format: "ogg", Depths: []int{12}, Channels: 3},
	}
	err := AddMedia(&dataset.Dataset{Conversations: []dataset.Conversation{{Turns: []dataset.Turn{{}}}}}, o, 1)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"image width stddev", "image format", "audio length must be at least 0.01",
		"audio format", "at least one sample rate", "bit depth 12", "channels must be 1 or 2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestMediaTooLarge(t *testing.T) {
	for _, o := range []MediaOptions{
		{Images: ImageOptions{BatchSize: 1, WidthMean: 1 << 14, HeightMean: 1 << 14, Format: ImagePNG}},
		{Audio: AudioOptions{BatchSize: 1, LengthMean: 1e6, Format: AudioWAV, SampleRatesKHz: []float64{96}, Depths: []int{32}, Channels: 2}},
	} {
		err := AddMedia(&dataset.Dataset{Conversations: []dataset.Conversation{{ID: "big", Turns: []dataset.Turn{{}}}}}, o, 1)
		if err == nil || !strings.Contains(err.Error(), "too large") || !strings.Contains(err.Error(), "conversation big turn 0") {
			t.Errorf("error %v: want a too-large error naming the conversation and turn", err)
		}
	}
}

// TestJPEG444Fidelity decodes encodeJPEG444's output of a smooth image
// and of noise, at sizes that are and are not multiples of 8, and checks
// that the pixels come back close: the coefficients, Huffman codes and
// markers are right, not merely decodable.
func TestJPEG444Fidelity(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w, h    int
		noise   bool
		quality int
		maxMean float64 // mean absolute error per channel
	}{
		{"gradient 16x8", 16, 8, false, 85, 2},
		{"gradient 13x7", 13, 7, false, 85, 2.5}, // PIL: 2.29
		{"gradient 40x33 q100", 40, 33, false, 100, 1.5},
		{"noise 24x16", 24, 16, true, 85, 25},
		{"noise 1x1", 1, 1, true, 85, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pix := make([]byte, 3*tc.w*tc.h)
			if tc.noise {
				newChaCha(1, tc.name).Read(pix)
			} else {
				for y := range tc.h {
					for x := range tc.w {
						p := pix[3*(y*tc.w+x):]
						p[0], p[1], p[2] = byte(x*255/max(1, tc.w-1)), byte(y*255/max(1, tc.h-1)), byte((x+y)*4)
					}
				}
			}
			var buf bytes.Buffer
			encodeJPEG444(&buf, pix, tc.w, tc.h, tc.quality)
			img, err := jpegDecode(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
				t.Fatalf("decoded %v", b)
			}
			sum := 0.0
			for y := range tc.h {
				for x := range tc.w {
					r, g, b, _ := img.At(x, y).RGBA()
					p := pix[3*(y*tc.w+x):]
					sum += math.Abs(float64(r>>8)-float64(p[0])) + math.Abs(float64(g>>8)-float64(p[1])) + math.Abs(float64(b>>8)-float64(p[2]))
				}
			}
			if mean := sum / float64(3*tc.w*tc.h); mean > tc.maxMean {
				t.Errorf("mean absolute error %.2f > %v", mean, tc.maxMean)
			}
			// Full-resolution chroma: every component samples 1x1.
			if sof := bytes.Index(buf.Bytes(), []byte{0xff, 0xc0}); sof < 0 || !bytes.Equal(buf.Bytes()[sof+10:sof+19], []byte{1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1}) {
				t.Errorf("SOF0 component spec % x", buf.Bytes()[sof+10:sof+19])
			}
		})
	}
}

func jpegDecode(b []byte) (image.Image, error) {
	img, format, err := image.Decode(bytes.NewReader(b))
	if err == nil && format != "jpeg" {
		err = errors.New("decoded as " + format)
	}
	return img, err
}
