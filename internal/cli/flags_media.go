package cli

import (
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// addMediaFlags registers the profile flags of config.Media: AIPerf's
// "Audio Input" and "Image Input" groups. It sets b.group itself for each
// flag it adds.
//
// The help shows the values a modality actually uses once switched on
// (512x512 JPEG images, 10 s clips), which is what AIPerf 0.13 does, not
// the zeros and png its own help prints.
func (b *flagBuilder) addMediaFlags(cfg *config.Config) {
	m := &cfg.Media

	b.group = groupAudio
	b.add(&intPtrValue{recorder: b.rec("audio-batch-size"), p: &m.AudioBatchSize}, spec{
		name: "audio-batch-size", aliases: []string{"batch-size-audio"}, meta: "<n>", def: "1",
		usage: "Audio clips per request (chat endpoint), sent as input_audio content parts; 0 disables audio.",
	})
	b.add(&floatPtrValue{recorder: b.rec("audio-length-mean"), p: &m.AudioLengthMean}, spec{
		name: "audio-length-mean", meta: "<seconds>", def: "10.0 once audio is on",
		usage: "Mean duration of the synthetic audio clips (random noise) in seconds. Giving it, or --audio-batch-size, switches audio on.",
	})
	b.add(&floatPtrValue{recorder: b.rec("audio-length-stddev"), p: &m.AudioLengthStddev}, spec{
		name: "audio-length-stddev", meta: "<seconds>", def: "0.0",
		usage: "Standard deviation of the clip duration; durations below 0.01 s are redrawn. 0 gives every clip the mean length.",
	})
	b.add(&choiceValue[config.AudioFormat]{recorder: b.rec("audio-format"), p: &m.AudioFormat, normalize: normalizeChoice[config.AudioFormat]}, spec{
		name: "audio-format", meta: "<format>", def: string(config.DefaultAudioFormat),
		choices: strs(config.AudioFormats()),
		usage:   "Container of the synthetic clips: wav is uncompressed PCM; mp3 is encoded by ffmpeg (which must be on PATH) at 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 or 48 kHz.",
	})
	b.add(intList(b.rec("audio-depths"), &m.AudioDepths), spec{
		name: "audio-depths", meta: "<bits>", def: "[16]",
		usage: "Bit depths to pick from at random for each clip (8, 16, 24 or 32), comma-separated or by repeating the flag.",
	})
	b.add(floatList(b.rec("audio-sample-rates"), &m.AudioSampleRates), spec{
		name: "audio-sample-rates", meta: "<kHz>", def: "[16.0]",
		usage: "Sample rates in kHz to pick from at random for each clip (e.g. 16, 44.1, 48), comma-separated or by repeating the flag. Values above 96 are read as Hz.",
	})
	b.add(&intPtrValue{recorder: b.rec("audio-num-channels"), p: &m.AudioNumChannels}, spec{
		name: "audio-num-channels", meta: "<n>", def: "1",
		usage: "Channels of the synthetic clips: 1 = mono, 2 = stereo (twice the bytes).",
	})

	b.group = groupImage
	b.add(&floatPtrValue{recorder: b.rec("image-width-mean"), p: &m.ImageWidthMean}, spec{
		name: "image-width-mean", meta: "<pixels>", def: "512 once images are on",
		usage: "Mean width of the synthetic images (random-noise pixels). Giving any image flag switches images on.",
	})
	b.add(&floatPtrValue{recorder: b.rec("image-width-stddev"), p: &m.ImageWidthStddev}, spec{
		name: "image-width-stddev", meta: "<pixels>", def: "0.0",
		usage: "Standard deviation of the image width; 0 gives every image the mean width.",
	})
	b.add(&floatPtrValue{recorder: b.rec("image-height-mean"), p: &m.ImageHeightMean}, spec{
		name: "image-height-mean", meta: "<pixels>", def: "512 once images are on",
		usage: "Mean height of the synthetic images.",
	})
	b.add(&floatPtrValue{recorder: b.rec("image-height-stddev"), p: &m.ImageHeightStddev}, spec{
		name: "image-height-stddev", meta: "<pixels>", def: "0.0",
		usage: "Standard deviation of the image height; 0 gives every image the mean height.",
	})
	b.add(&intPtrValue{recorder: b.rec("image-batch-size"), p: &m.ImageBatchSize}, spec{
		name: "image-batch-size", aliases: []string{"batch-size-image"}, meta: "<n>", def: "1",
		usage: "Images per request (chat endpoint), sent as image_url content parts holding data URLs; 0 disables images.",
	})
	b.add(&choiceValue[config.ImageFormat]{recorder: b.rec("image-format"), p: &m.ImageFormat, normalize: normalizeChoice[config.ImageFormat]}, spec{
		name: "image-format", meta: "<format>", def: string(config.DefaultImageFormat),
		choices: strs(config.ImageFormats()),
		usage:   "Encoding of the synthetic images: png (lossless, larger), jpeg (lossy, smaller) or random (png or jpeg per image).",
	})
	b.add(&choiceValue[config.ImageSource]{recorder: b.rec("image-source"), p: &m.ImageSource, normalize: normalizeImageSource}, spec{
		name: "image-source", meta: "<source>", def: string(config.ImageNoise),
		choices: []string{string(config.ImageNoise), string(config.ImageAssets), "<directory>"},
		usage:   "Where image pixels come from: noise = random pixels generated at the drawn size (incompressible; servers cannot deduplicate them); assets = four built-in source pictures, resized; a directory = its PNG, JPEG and GIF files, resized.",
	})
	b.add(&choiceValue[config.ImageSourceSampling]{recorder: b.rec("image-source-sampling"), p: &m.ImageSourceSampling, normalize: func(s string) config.ImageSourceSampling {
		return config.ImageSourceSampling(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
	}}, spec{
		name: "image-source-sampling", meta: "<strategy>", def: string(config.SampleRandomWithReplacement),
		choices: strs(config.ImageSourceSamplings()),
		usage:   "How images are picked from assets or a directory: random-with-replacement = independently each time; shuffle-cycle = each once per shuffled round; sequential-cycle = in file-name order, wrapping. Noise allows only the first.",
	})
}

// normalizeImageSource canonicalises noise and assets in any case; any
// other value is a directory path, kept as given.
func normalizeImageSource(s string) config.ImageSource {
	switch c := config.ImageSource(config.NormalizeChoice(s)); c {
	case config.ImageNoise, config.ImageAssets:
		return c
	}
	return config.ImageSource(s)
}

// numListValue sets a list of numbers, comma-separated or by repeating the
// flag; the first Set replaces the default. A bad element is recorded as a
// problem of the flag.
type numListValue[T any] struct {
	recorder
	p       *[]T
	parse   func(string) (T, error)
	format  func(T) string
	changed bool
}

// floatList is a numListValue of finite floats.
func floatList(r recorder, p *[]float64) *numListValue[float64] {
	return &numListValue[float64]{recorder: r, p: p, parse: config.ParseFloat, format: formatFloat}
}

// intList is a numListValue of integers.
func intList(r recorder, p *[]int) *numListValue[int] {
	return &numListValue[int]{recorder: r, p: p, format: strconv.Itoa, parse: func(s string) (int, error) {
		n, err := config.ParseInt64(s)
		return int(n), err
	}}
}

func (v *numListValue[T]) Set(s string) error {
	if !v.changed {
		*v.p, v.changed = []T{}, true
	}
	for _, e := range config.SplitList(s) {
		x, err := v.parse(e)
		if err != nil {
			v.fail(err)
			return nil
		}
		*v.p = append(*v.p, x)
	}
	return nil
}

func (v *numListValue[T]) String() string {
	parts := make([]string, len(*v.p))
	for i, x := range *v.p {
		parts[i] = v.format(x)
	}
	return strings.Join(parts, ",")
}
func (v *numListValue[T]) Type() string { return "list" }
