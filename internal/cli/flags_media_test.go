package cli

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// parseMedia parses a profile command line and returns its media options
// and the value problems recorded.
func parseMedia(t *testing.T, line string) (config.Media, []string) {
	t.Helper()
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	cfg := config.Defaults()
	var probs problemList
	registerProfileFlags(fs, &cfg, &probs)
	args, problems, _ := prepareProfileArgs(fs, strings.Fields(line))
	if len(problems) > 0 {
		t.Fatalf("%q: %v", line, problems)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	var ps []string
	for _, p := range probs.errs {
		ps = append(ps, p.Error())
	}
	return cfg.Media, ps
}

func TestMediaFlags(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	for _, tt := range []struct {
		line string
		want config.Media
	}{
		{"", config.Media{}},
		{"--image-width-mean 64 --image-width-stddev 2 --image-height-mean 32 --image-height-stddev 1.5 --image-format RANDOM --batch-size-image 3 --image-source noise",
			config.Media{ImageWidthMean: f(64), ImageWidthStddev: f(2), ImageHeightMean: f(32), ImageHeightStddev: f(1.5),
				ImageFormat: config.ImageRandom, ImageBatchSize: n(3), ImageSource: config.ImageNoise}},
		{"--audio-length-mean 0.5 --audio_length_stddev 0.1 --batch-size-audio 2 --audio-format wav --audio-num-channels 2",
			config.Media{AudioLengthMean: f(0.5), AudioLengthStddev: f(0.1), AudioBatchSize: n(2), AudioFormat: config.AudioWAV, AudioNumChannels: n(2)}},
		// Lists: comma-separated or repeated; the first use replaces the default.
		{"--audio-depths 8,24 --audio-depths 32 --audio-sample-rates 16 --audio-sample-rates 44100,48",
			config.Media{AudioDepths: []int{8, 24, 32}, AudioSampleRates: []float64{16, 44100, 48}}},
		{"--image-batch-size 0 --audio-batch-size 0", config.Media{ImageBatchSize: n(0), AudioBatchSize: n(0)}},
	} {
		got, probs := parseMedia(t, tt.line)
		if len(probs) > 0 {
			t.Errorf("%q: problems %v", tt.line, probs)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestMediaFlagValueProblems(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ line, want string }{
		{"--audio-depths 16,x", "--audio-depths"},
		{"--audio-sample-rates nan", "--audio-sample-rates"},
		{"--image-width-mean wide", "--image-width-mean"},
		{"--image-batch-size 1.5", "--image-batch-size"},
	} {
		_, probs := parseMedia(t, tt.line)
		if len(probs) != 1 || !strings.Contains(probs[0], tt.want) {
			t.Errorf("%q: problems %v, want one naming %s", tt.line, probs, tt.want)
		}
	}
}

// FuzzMediaListFlags: any value given to the list flags either records a
// problem or yields finite numbers, one per comma-separated element.
func FuzzMediaListFlags(f *testing.F) {
	f.Add("16,24")
	f.Add("44100, 48 ,")
	f.Add("1e400,nan")
	f.Fuzz(func(t *testing.T, s string) {
		var probs problemList
		var floats []float64
		var ints []int
		fv := floatList(recorder{flag: "--audio-sample-rates", probs: &probs}, &floats)
		iv := intList(recorder{flag: "--audio-depths", probs: &probs}, &ints)
		if fv.Set(s) != nil || iv.Set(s) != nil {
			t.Fatal("Set returned an error instead of recording a problem")
		}
		n := len(config.SplitList(s))
		for _, x := range floats {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("non-finite %v from %q", x, s)
			}
		}
		if len(probs.errs) == 0 && (len(floats) != n || len(ints) != n) {
			t.Fatalf("%q: %d floats, %d ints, want %d each", s, len(floats), len(ints), n)
		}
	})
}
