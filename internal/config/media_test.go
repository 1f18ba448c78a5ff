package config

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMediaResolution checks which flags switch a modality on and the
// values it then uses: AIPerf 0.13's effective behaviour (a section built
// from the flags given, the rest from its defaults: 512x512 JPEG images,
// 10 s clips, batch size 1).
func TestMediaResolution(t *testing.T) {
	t.Parallel()
	img := func(m Media) (ImageSpec, bool) { return m.Images() }
	aud := func(m Media) (AudioSpec, bool) { return m.Audio() }
	for _, tt := range []struct {
		name    string
		m       Media
		wantImg ImageSpec
		imgOn   bool
	}{
		{"nothing given", Media{}, ImageSpec{BatchSize: 1, WidthMean: 512, HeightMean: 512, Format: ImageJPEG}, false},
		{"batch size alone", Media{ImageBatchSize: ptr(3)}, ImageSpec{BatchSize: 3, WidthMean: 512, HeightMean: 512, Format: ImageJPEG}, true},
		{"size given", Media{ImageWidthMean: ptr(64.0), ImageHeightMean: ptr(32.0), ImageHeightStddev: ptr(4.0)},
			ImageSpec{BatchSize: 1, WidthMean: 64, HeightMean: 32, HeightStddev: 4, Format: ImageJPEG}, true},
		{"format alone does not switch on", Media{ImageFormat: ImagePNG}, ImageSpec{BatchSize: 1, WidthMean: 512, HeightMean: 512, Format: ImagePNG}, false},
		{"source alone switches on", Media{ImageSource: ImageNoise}, ImageSpec{BatchSize: 1, WidthMean: 512, HeightMean: 512, Format: ImageJPEG}, true},
		{"batch zero", Media{ImageBatchSize: ptr(0), ImageWidthMean: ptr(8.0)}, ImageSpec{WidthMean: 8, HeightMean: 512, Format: ImageJPEG}, false},
		{"zero width", Media{ImageWidthMean: ptr(0.0)}, ImageSpec{BatchSize: 1, HeightMean: 512, Format: ImageJPEG}, false},
	} {
		got, on := img(tt.m)
		if on != tt.imgOn {
			t.Errorf("%s: images on = %v, want %v", tt.name, on, tt.imgOn)
		}
		if diff := cmp.Diff(tt.wantImg, got); diff != "" {
			t.Errorf("%s: image spec (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, tt := range []struct {
		name    string
		m       Media
		wantAud AudioSpec
		audOn   bool
	}{
		{"nothing given", Media{AudioSampleRates: []float64{8}}, AudioSpec{BatchSize: 1, LengthMean: 10, Format: AudioWAV, SampleRatesKHz: []float64{8}, Depths: []int{16}, Channels: 1}, false},
		{"batch size alone", Media{AudioBatchSize: ptr(2)}, AudioSpec{BatchSize: 2, LengthMean: 10, Format: AudioWAV, SampleRatesKHz: []float64{16}, Depths: []int{16}, Channels: 1}, true},
		{"hz read as khz", Media{AudioLengthMean: ptr(0.5), AudioSampleRates: []float64{44100, 48, 96, 96.5}, AudioDepths: []int{8, 24}, AudioNumChannels: ptr(2)},
			AudioSpec{BatchSize: 1, LengthMean: 0.5, Format: AudioWAV, SampleRatesKHz: []float64{44.1, 48, 96, 0.0965}, Depths: []int{8, 24}, Channels: 2}, true},
		{"zero length", Media{AudioLengthMean: ptr(0.0)}, AudioSpec{BatchSize: 1, Format: AudioWAV, SampleRatesKHz: []float64{16}, Depths: []int{16}, Channels: 1}, false},
	} {
		got, on := aud(tt.m)
		if on != tt.audOn {
			t.Errorf("%s: audio on = %v, want %v", tt.name, on, tt.audOn)
		}
		if diff := cmp.Diff(tt.wantAud, got); diff != "" {
			t.Errorf("%s: audio spec (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateMedia(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		m    Media
		// flags every problem must name, in order ("" entries none).
		flags []string
		text  string
	}{
		{"defaults", Media{}, nil, ""},
		{"a full valid set", Media{ImageWidthMean: ptr(10.0), ImageWidthStddev: ptr(2.0), ImageFormat: ImageRandom,
			AudioLengthMean: ptr(1.0), AudioDepths: []int{8, 16, 24, 32}, AudioSampleRates: []float64{8, 44100}, AudioNumChannels: ptr(2)}, nil, ""},
		{"negative width", Media{ImageWidthMean: ptr(-1.0)}, []string{"--image-width-mean"}, ">= 0"},
		{"nan stddev", Media{ImageHeightStddev: ptr(math.NaN())}, []string{"--image-height-stddev"}, ">= 0"},
		{"negative batch", Media{AudioBatchSize: ptr(-1)}, []string{"--audio-batch-size"}, ">= 0"},
		{"bad format", Media{ImageFormat: "gif"}, []string{"--image-format"}, "invalid choice"},
		{"assets source", Media{ImageSource: ImageAssets, ImageSourceSampling: SampleShuffleCycle}, nil, ""},
		{"directory source", Media{ImageSource: "./imgs", ImageSourceSampling: SampleSequentialCycle}, nil, ""},
		{"cycle over noise", Media{ImageSourceSampling: SampleShuffleCycle}, []string{"--image-source-sampling"}, "finite image source"},
		{"bad sampling", Media{ImageSource: ImageAssets, ImageSourceSampling: "round-robin"}, []string{"--image-source-sampling"}, "invalid choice"},
		{"mp3", Media{AudioFormat: AudioMP3, AudioLengthMean: ptr(1.0), AudioSampleRates: []float64{16, 44.1, 48000}}, nil, ""},
		{"mp3 rate", Media{AudioFormat: AudioMP3, AudioLengthMean: ptr(1.0), AudioSampleRates: []float64{44}}, []string{"--audio-sample-rates"}, "mp3 supports only"},
		{"ogg", Media{AudioFormat: "ogg"}, []string{"--audio-format"}, "invalid choice"},
		{"depth", Media{AudioDepths: []int{12}}, []string{"--audio-depths"}, "unsupported bit depth 12"},
		{"empty depths", Media{AudioDepths: []int{}}, []string{"--audio-depths"}, "at least one"},
		{"zero rate", Media{AudioSampleRates: []float64{0}}, []string{"--audio-sample-rates"}, "positive"},
		{"channels", Media{AudioNumChannels: ptr(3)}, []string{"--audio-num-channels"}, "1 (mono) or 2"},
		{"too short", Media{AudioLengthMean: ptr(0.005)}, []string{"--audio-length-mean"}, "at least 0.01"},
		{"everything at once", Media{ImageWidthMean: ptr(-1.0), AudioFormat: "ogg", AudioNumChannels: ptr(0)},
			[]string{"--image-width-mean", "--audio-format", "--audio-num-channels"}, ""},
	} {
		c := valid()
		c.Media = tt.m
		err := c.Validate()
		got := flagsOf(err)
		if !slices.Equal(got, tt.flags) {
			t.Errorf("%s: problems name %v, want %v (%v)", tt.name, got, tt.flags, err)
			continue
		}
		if tt.text != "" && !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: %v lacks %q", tt.name, err, tt.text)
		}
	}
}

func TestValidateMediaWithFileDataset(t *testing.T) {
	t.Parallel()
	c := valid()
	c.Dataset.InputFile = "data.jsonl"
	c.Media = Media{ImageBatchSize: ptr(1), ImageSource: ImageNoise, AudioBatchSize: ptr(0), ImageWidthMean: ptr(64.0)}
	got := flagsOf(c.Validate())
	want := []string{"--image-batch-size", "--image-source", "--audio-batch-size"}
	if !slices.Equal(got, want) {
		t.Errorf("problems name %v, want %v", got, want)
	}
}
