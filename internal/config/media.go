package config

import "math"

// ImageFormat is the encoding of synthetic images (--image-format).
type ImageFormat string

// Image formats, AIPerf's ImageFormat values. Random picks PNG or JPEG
// for each image.
const (
	ImagePNG    ImageFormat = "png"
	ImageJPEG   ImageFormat = "jpeg"
	ImageRandom ImageFormat = "random"
)

// ImageFormats lists the accepted --image-format values in help order.
func ImageFormats() []ImageFormat { return []ImageFormat{ImagePNG, ImageJPEG, ImageRandom} }

// AudioFormat is the container of synthetic audio (--audio-format).
type AudioFormat string

// Audio formats, AIPerf's AudioFormat values. MP3 is encoded with ffmpeg.
const (
	AudioWAV AudioFormat = "wav"
	AudioMP3 AudioFormat = "mp3"
)

// AudioFormats lists AIPerf's --audio-format values in help order.
func AudioFormats() []AudioFormat { return []AudioFormat{AudioWAV, AudioMP3} }

// ImageSource is where synthetic images come from (--image-source): one
// of the constants, or a directory of source images.
type ImageSource string

// Image sources. Noise, AIPerf's default, generates random pixels at the
// drawn size (incompressible, and never the same twice); Assets resizes
// built-in source pictures; any other value is a directory whose images
// are resized.
const (
	ImageNoise  ImageSource = "noise"
	ImageAssets ImageSource = "assets"
)

// IsDirectory reports whether the source names a directory.
func (s ImageSource) IsDirectory() bool { return s != "" && s != ImageNoise && s != ImageAssets }

// ImageSourceSampling is how images are picked from a finite source
// (--image-source-sampling).
type ImageSourceSampling string

// Image source sampling strategies, AIPerf's values.
const (
	SampleRandomWithReplacement ImageSourceSampling = "random-with-replacement"
	SampleShuffleCycle          ImageSourceSampling = "shuffle-cycle"
	SampleSequentialCycle       ImageSourceSampling = "sequential-cycle"
)

// ImageSourceSamplings lists the valid values in help order.
func ImageSourceSamplings() []ImageSourceSampling {
	return []ImageSourceSampling{SampleRandomWithReplacement, SampleShuffleCycle, SampleSequentialCycle}
}

// Effective defaults of a modality that is switched on. AIPerf 0.13 turns
// its --image-*/--audio-* flags into a dataset section in which only the
// flags actually given are set; everything else takes the section's
// defaults, which are NOT the defaults its help prints: an image section
// with no size is 512x512 JPEG, an audio section with no length is 10 s,
// and any size or length flag implies a batch size of 1.
const (
	DefaultImageSize      = 512.0
	DefaultImageFormat    = ImageJPEG
	DefaultAudioLength    = 10.0 // seconds
	DefaultAudioFormat    = AudioWAV
	DefaultAudioChannels  = 1
	DefaultAudioDepth     = 16
	DefaultAudioRateKHz   = 16.0
	maxAudioSampleRateKHz = 96.0
)

// MP3SampleRatesHz lists the sample rates MP3 can hold (MPEG-1, 2 and 2.5
// layer III), which AIPerf enforces for --audio-format mp3.
func MP3SampleRatesHz() []int {
	return []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}
}

// AudioDepths lists the bit depths synthetic WAV audio supports.
func AudioDepths() []int { return []int{8, 16, 24, 32} }

// Media holds the options of --image-* and --audio-*: synthetic images and
// audio added to every synthetic turn as OpenAI content parts.
//
// Pointer fields are nil when the flag was not given: whether a modality is
// on, and the values it then uses, depend on which flags were given (see
// Images and Audio), exactly as in AIPerf.
type Media struct {
	ImageWidthMean    *float64    `json:"image_width_mean,omitempty"`
	ImageWidthStddev  *float64    `json:"image_width_stddev,omitempty"`
	ImageHeightMean   *float64    `json:"image_height_mean,omitempty"`
	ImageHeightStddev *float64    `json:"image_height_stddev,omitempty"`
	ImageBatchSize    *int        `json:"image_batch_size,omitempty"`
	ImageFormat       ImageFormat `json:"image_format,omitempty"` // "" = not given
	ImageSource       ImageSource `json:"image_source,omitempty"` // "" = not given (noise)
	// ImageSourceSampling picks images from a finite source; "" = not given
	// (random-with-replacement).
	ImageSourceSampling ImageSourceSampling `json:"image_source_sampling,omitempty"`

	AudioLengthMean   *float64    `json:"audio_length_mean,omitempty"`
	AudioLengthStddev *float64    `json:"audio_length_stddev,omitempty"`
	AudioBatchSize    *int        `json:"audio_batch_size,omitempty"`
	AudioFormat       AudioFormat `json:"audio_format,omitempty"` // "" = not given (wav)
	// AudioSampleRates are in kHz, as given; values above 96 are read as
	// Hz (AudioSpec divides them by 1000, as AIPerf does). nil = [16].
	AudioSampleRates []float64 `json:"audio_sample_rates,omitempty"`
	AudioDepths      []int     `json:"audio_depths,omitempty"`       // bits; nil = [16]
	AudioNumChannels *int      `json:"audio_num_channels,omitempty"` // nil = 1
}

// ImageSpec is the resolved image configuration of a run.
type ImageSpec struct {
	BatchSize                int // images per turn
	WidthMean, WidthStddev   float64
	HeightMean, HeightStddev float64
	Format                   ImageFormat
}

// AudioSpec is the resolved audio configuration of a run.
type AudioSpec struct {
	BatchSize                int // audio clips per turn
	LengthMean, LengthStddev float64
	Format                   AudioFormat
	SampleRatesKHz           []float64 // Hz-looking values already converted
	Depths                   []int
	Channels                 int
}

// Images resolves the image options and reports whether the run sends
// images. Images are on when any image flag was given and the resulting
// batch size, width mean and height mean are all positive.
func (m *Media) Images() (ImageSpec, bool) {
	given := m.ImageWidthMean != nil || m.ImageWidthStddev != nil ||
		m.ImageHeightMean != nil || m.ImageHeightStddev != nil ||
		m.ImageBatchSize != nil || m.ImageSource != ""
	s := ImageSpec{
		BatchSize:    1,
		WidthMean:    DefaultImageSize,
		HeightMean:   DefaultImageSize,
		WidthStddev:  deref(m.ImageWidthStddev),
		HeightStddev: deref(m.ImageHeightStddev),
		Format:       DefaultImageFormat,
	}
	if m.ImageBatchSize != nil {
		s.BatchSize = *m.ImageBatchSize
	}
	if m.ImageWidthMean != nil {
		s.WidthMean = *m.ImageWidthMean
	}
	if m.ImageHeightMean != nil {
		s.HeightMean = *m.ImageHeightMean
	}
	if m.ImageFormat != "" {
		s.Format = m.ImageFormat
	}
	return s, given && s.BatchSize > 0 && s.WidthMean > 0 && s.HeightMean > 0
}

// Audio resolves the audio options and reports whether the run sends
// audio. Audio is on when a length or batch-size flag was given and the
// resulting batch size and length mean are positive.
func (m *Media) Audio() (AudioSpec, bool) {
	given := m.AudioLengthMean != nil || m.AudioLengthStddev != nil || m.AudioBatchSize != nil
	s := AudioSpec{
		BatchSize:    1,
		LengthMean:   DefaultAudioLength,
		LengthStddev: deref(m.AudioLengthStddev),
		Format:       DefaultAudioFormat,
		Depths:       []int{DefaultAudioDepth},
		Channels:     DefaultAudioChannels,
	}
	if m.AudioBatchSize != nil {
		s.BatchSize = *m.AudioBatchSize
	}
	if m.AudioLengthMean != nil {
		s.LengthMean = *m.AudioLengthMean
	}
	if m.AudioFormat != "" {
		s.Format = m.AudioFormat
	}
	if m.AudioNumChannels != nil {
		s.Channels = *m.AudioNumChannels
	}
	if len(m.AudioDepths) > 0 {
		s.Depths = append([]int(nil), m.AudioDepths...)
	}
	s.SampleRatesKHz = []float64{DefaultAudioRateKHz}
	if len(m.AudioSampleRates) > 0 {
		s.SampleRatesKHz = make([]float64, len(m.AudioSampleRates))
		for i, r := range m.AudioSampleRates {
			s.SampleRatesKHz[i] = sampleRateKHz(r)
		}
	}
	return s, given && s.BatchSize > 0 && s.LengthMean > 0
}

// sampleRateKHz reads a rate above 96 as Hz (16000 -> 16), as AIPerf does
// for compatibility with its older Hz-valued flag.
func sampleRateKHz(r float64) float64 {
	if r > maxAudioSampleRateKHz {
		return r / 1000
	}
	return r
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// validateMedia checks the --image-*/--audio-* options with AIPerf's
// bounds, and what the generators need: a known format, a sample rate and
// channel count a WAV file can hold, a supported bit depth, and an audio
// length of at least 10 ms when audio is on.
func (c *Config) validateMedia(p *problems) {
	m := &c.Media
	m.validateSizes(p)
	m.validateImage(p)
	m.validateAudioFormat(p)
	m.validateAudioShape(p)
	c.validateMediaSource(p)
}

// validateSizes checks the image and audio size distributions and the
// batch sizes.
func (m *Media) validateSizes(p *problems) {
	for _, f := range []struct {
		flag string
		v    *float64
	}{
		{"--image-width-mean", m.ImageWidthMean},
		{"--image-width-stddev", m.ImageWidthStddev},
		{"--image-height-mean", m.ImageHeightMean},
		{"--image-height-stddev", m.ImageHeightStddev},
		{"--audio-length-mean", m.AudioLengthMean},
		{"--audio-length-stddev", m.AudioLengthStddev},
	} {
		if f.v != nil {
			nonNegative(p, f.flag, *f.v)
		}
	}
	for _, f := range []struct {
		flag string
		v    *int
	}{{"--image-batch-size", m.ImageBatchSize}, {"--audio-batch-size", m.AudioBatchSize}} {
		if f.v != nil && *f.v < 0 {
			p.add(f.flag, "must be >= 0, got %d", *f.v)
		}
	}
}

// validateImage checks the image format and the source sampling.
func (m *Media) validateImage(p *problems) {
	if m.ImageFormat != "" && !contains(ImageFormats(), m.ImageFormat) {
		p.add("--image-format", "invalid choice %q (choose from %s)", m.ImageFormat, joinChoices(ImageFormats()))
	}
	if m.ImageSourceSampling != "" {
		if !contains(ImageSourceSamplings(), m.ImageSourceSampling) {
			p.add("--image-source-sampling", "invalid choice %q (choose from %s)", m.ImageSourceSampling, joinChoices(ImageSourceSamplings()))
		} else if m.ImageSourceSampling != SampleRandomWithReplacement && (m.ImageSource == "" || m.ImageSource == ImageNoise) {
			p.add("--image-source-sampling", "%s needs a finite image source (--image-source assets or a directory); noise images are all different", m.ImageSourceSampling)
		}
	}
}

// validateAudioFormat checks the audio format and, for mp3, that every
// sample rate is one the encoder supports.
func (m *Media) validateAudioFormat(p *problems) {
	switch m.AudioFormat {
	case "", AudioWAV:
	case AudioMP3:
		if s, on := m.Audio(); on {
			for _, r := range s.SampleRatesKHz {
				if !contains(MP3SampleRatesHz(), int(r*1000+0.5)) || math.Abs(r*1000-math.Round(r*1000)) > 1e-6 {
					p.add("--audio-sample-rates", "mp3 supports only these sample rates (Hz): %v; got %v kHz", MP3SampleRatesHz(), r)
					break
				}
			}
		}
	default:
		p.add("--audio-format", "invalid choice %q (choose from %s)", m.AudioFormat, joinChoices(AudioFormats()))
	}
}

// validateAudioShape checks the sample rates, bit depths, channels and
// length of generated audio.
func (m *Media) validateAudioShape(p *problems) {
	if m.AudioSampleRates != nil && len(m.AudioSampleRates) == 0 {
		p.add("--audio-sample-rates", "needs at least one sample rate")
	}
	for _, r := range m.AudioSampleRates {
		hz := sampleRateKHz(r) * 1000
		if !(r > 0) || math.IsInf(r, 0) || hz < 1 || hz > math.MaxUint32 {
			p.add("--audio-sample-rates", "each sample rate must be a positive number of kHz, got %v", r)
		}
	}
	if m.AudioDepths != nil && len(m.AudioDepths) == 0 {
		p.add("--audio-depths", "needs at least one bit depth")
	}
	for _, d := range m.AudioDepths {
		if !contains(AudioDepths(), d) {
			p.add("--audio-depths", "unsupported bit depth %d (supported: 8, 16, 24, 32)", d)
		}
	}
	if n := m.AudioNumChannels; n != nil && (*n < 1 || *n > 2) {
		p.add("--audio-num-channels", "must be 1 (mono) or 2 (stereo), got %d", *n)
	}
	if s, on := m.Audio(); on && s.LengthMean < 0.01 {
		p.add("--audio-length-mean", "audio length must be at least 0.01 seconds, got %v", s.LengthMean)
	}
}

// validateMediaSource rejects the synthetic-media batch and source flags
// with a file or public dataset, whose media (if any) come from the file,
// as AIPerf does, except the batch sizes with --custom-dataset-type
// random_pool, which packs that many images or clips per request. Like
// AIPerf, the size, length and format flags are simply unused with a
// file.
func (c *Config) validateMediaSource(p *problems) {
	if !c.Dataset.FromFile() {
		return
	}
	m := &c.Media
	const only = "is only supported with synthetic datasets (remove --input-file / --public-dataset)"
	if m.ImageBatchSize != nil && !c.Dataset.packsPool() {
		p.add("--image-batch-size", only)
	}
	if m.ImageSource != "" {
		p.add("--image-source", only)
	}
	if m.AudioBatchSize != nil && !c.Dataset.packsPool() {
		p.add("--audio-batch-size", only)
	}
}
