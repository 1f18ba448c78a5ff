package config

import (
	"math"
	"strings"
)

// VideoSynthType is the picture of synthetic videos (--video-synth-type).
type VideoSynthType string

// Video synthesis types, AIPerf's values.
const (
	VideoMovingShapes VideoSynthType = "moving_shapes"
	VideoGridClock    VideoSynthType = "grid_clock"
	VideoNoise        VideoSynthType = "noise"
)

// VideoSynthTypes lists the valid values in help order.
func VideoSynthTypes() []VideoSynthType {
	return []VideoSynthType{VideoMovingShapes, VideoGridClock, VideoNoise}
}

// VideoFormat is the container of synthetic videos (--video-format).
type VideoFormat string

// Video formats. WebM and MP4 are AIPerf's and need ffmpeg; MJPEG (Motion
// JPEG in an AVI container) is written in pure Go, for machines without
// ffmpeg.
const (
	VideoWebM  VideoFormat = "webm"
	VideoMP4   VideoFormat = "mp4"
	VideoMJPEG VideoFormat = "mjpeg"
)

// VideoFormats lists the valid values in help order.
func VideoFormats() []VideoFormat { return []VideoFormat{VideoWebM, VideoMP4, VideoMJPEG} }

// VideoAudioCodec is the codec of a synthetic video's audio track.
type VideoAudioCodec string

// Video audio codecs, AIPerf's values.
const (
	VideoAudioVorbis VideoAudioCodec = "libvorbis"
	VideoAudioOpus   VideoAudioCodec = "libopus"
	VideoAudioAAC    VideoAudioCodec = "aac"
)

// VideoAudioCodecs lists the valid values.
func VideoAudioCodecs() []VideoAudioCodec {
	return []VideoAudioCodec{VideoAudioVorbis, VideoAudioOpus, VideoAudioAAC}
}

// Video defaults, AIPerf 0.13's. A video section switched on by any video
// flag gets these, not the values AIPerf's help prints (a batch size of 1
// and a 5 s duration): the section's own defaults are batch size 0 and 1 s,
// so video reaches requests only with --video-batch-size and a size.
const (
	DefaultVideoDuration        = 1.0
	DefaultVideoFPS             = 4
	DefaultVideoCodec           = "libvpx-vp9"
	DefaultVideoAudioSampleRate = 44.1 // kHz
	DefaultVideoAudioDepth      = 16
)

// Video holds the options of AIPerf's "Video Input" group: synthetic
// videos added to every synthetic turn (chat video_url parts). nil and ""
// fields were not given.
type Video struct {
	BatchSize *int           `json:"video_batch_size,omitempty"`
	Duration  *float64       `json:"video_duration,omitempty"`
	FPS       *int           `json:"video_fps,omitempty"`
	Width     *int           `json:"video_width,omitempty"`
	Height    *int           `json:"video_height,omitempty"`
	SynthType VideoSynthType `json:"video_synth_type,omitempty"`
	Format    VideoFormat    `json:"video_format,omitempty"`
	Codec     string         `json:"video_codec,omitempty"`
	// AudioSampleRate is in kHz or Hz as given; above 96 it is read as Hz.
	AudioSampleRate *float64        `json:"video_audio_sample_rate,omitempty"`
	AudioChannels   *int            `json:"video_audio_num_channels,omitempty"`
	AudioCodec      VideoAudioCodec `json:"video_audio_codec,omitempty"`
	AudioDepth      *int            `json:"video_audio_depth,omitempty"`
}

// VideoSpec is the resolved video configuration of a run.
type VideoSpec struct {
	BatchSize     int
	Duration      float64 // seconds
	FPS           int
	Width, Height int
	SynthType     VideoSynthType
	Format        VideoFormat
	Codec         string
	// Audio track: Channels 0 means none.
	AudioSampleRateKHz float64
	AudioChannels      int
	AudioCodec         VideoAudioCodec // resolved: libvorbis for WebM, libopus for MP4 unless given
	AudioDepth         int
}

// given reports whether any video option was set.
func (v *Video) given() bool {
	return v.BatchSize != nil || v.Duration != nil || v.FPS != nil || v.Width != nil || v.Height != nil ||
		v.SynthType != "" || v.Format != "" || v.Codec != "" || v.AudioSampleRate != nil ||
		v.AudioChannels != nil || v.AudioCodec != "" || v.AudioDepth != nil
}

// Spec resolves the video options and reports whether the run sends video:
// a batch size above 0 and both a width and a height, as in AIPerf. A
// shape option (width, height, duration, fps, synth type) given without a
// batch size implies a batch of one, as AIPerf's command line does.
func (v *Video) Spec() (VideoSpec, bool) {
	s := VideoSpec{
		Duration: DefaultVideoDuration, FPS: DefaultVideoFPS, SynthType: VideoMovingShapes,
		Format: VideoWebM, Codec: DefaultVideoCodec,
		AudioSampleRateKHz: DefaultVideoAudioSampleRate, AudioDepth: DefaultVideoAudioDepth,
	}
	switch {
	case v.BatchSize != nil:
		s.BatchSize = *v.BatchSize
	case v.Width != nil || v.Height != nil || v.Duration != nil || v.FPS != nil || v.SynthType != "":
		s.BatchSize = 1 // AIPerf: a video shape option without a batch size means one video
	}
	if v.Duration != nil {
		s.Duration = *v.Duration
	}
	if v.FPS != nil {
		s.FPS = *v.FPS
	}
	if v.Width != nil {
		s.Width = *v.Width
	}
	if v.Height != nil {
		s.Height = *v.Height
	}
	if v.SynthType != "" {
		s.SynthType = v.SynthType
	}
	if v.Format != "" {
		s.Format = v.Format
	}
	if v.Codec != "" {
		s.Codec = v.Codec
	} else if s.Format == VideoMJPEG {
		s.Codec = "mjpeg"
	}
	if v.AudioSampleRate != nil {
		s.AudioSampleRateKHz = *v.AudioSampleRate
		if s.AudioSampleRateKHz > maxAudioSampleRateKHz {
			s.AudioSampleRateKHz /= 1000
		}
	}
	if v.AudioChannels != nil {
		s.AudioChannels = *v.AudioChannels
	}
	if v.AudioDepth != nil {
		s.AudioDepth = *v.AudioDepth
	}
	s.AudioCodec = v.AudioCodec
	if s.AudioCodec == "" {
		s.AudioCodec = VideoAudioVorbis
		if s.Format == VideoMP4 {
			s.AudioCodec = VideoAudioOpus
		}
	}
	return s, v.given() && s.BatchSize > 0 && s.Width > 0 && s.Height > 0
}

func (c *Config) validateVideo(p *problems) {
	v := &c.Video
	v.validateFrames(p)
	v.validateEncoding(p)
	v.validateAudioTrack(p)
}

// validateFrames checks the batch size, duration, frame rate and size.
func (v *Video) validateFrames(p *problems) {
	if v.BatchSize != nil && *v.BatchSize < 0 {
		p.add("--video-batch-size", "must be >= 0, got %d", *v.BatchSize)
	}
	if v.Duration != nil && !(*v.Duration > 0) || v.Duration != nil && math.IsInf(*v.Duration, 0) {
		p.add("--video-duration", "must be a positive number of seconds, got %v", *v.Duration)
	}
	if v.FPS != nil && *v.FPS < 1 {
		p.add("--video-fps", "must be >= 1, got %d", *v.FPS)
	}
	for _, d := range []struct {
		flag string
		v    *int
	}{{"--video-width", v.Width}, {"--video-height", v.Height}} {
		if d.v != nil && *d.v < 1 {
			p.add(d.flag, "must be >= 1, got %d", *d.v)
		}
	}
	if (v.Width == nil) != (v.Height == nil) {
		p.add("--video-width", "--video-width and --video-height must be given together (both or neither)")
	}
}

// validateEncoding checks the generator, container and codec choices.
func (v *Video) validateEncoding(p *problems) {
	if v.SynthType != "" && !contains(VideoSynthTypes(), v.SynthType) {
		p.add("--video-synth-type", "invalid choice %q (choose from %s)", v.SynthType, joinChoices(VideoSynthTypes()))
	}
	if v.Format != "" && !contains(VideoFormats(), v.Format) {
		p.add("--video-format", "invalid choice %q (choose from %s)", v.Format, joinChoices(VideoFormats()))
	}
	if strings.ContainsAny(v.Codec, " \t\n") {
		p.add("--video-codec", "codec name %q must not contain whitespace", v.Codec)
	}
}

// validateAudioTrack checks the audio track's options and that the
// container can carry one.
func (v *Video) validateAudioTrack(p *problems) {
	if v.AudioSampleRate != nil {
		if r := *v.AudioSampleRate; !(r >= 8 && r <= 96000) {
			p.add("--video-audio-sample-rate", "must be between 8 and 96000 (kHz or Hz), got %v", r)
		}
	}
	if v.AudioChannels != nil && (*v.AudioChannels < 0 || *v.AudioChannels > 2) {
		p.add("--video-audio-num-channels", "must be 0 (no audio), 1 or 2, got %d", *v.AudioChannels)
	}
	if v.AudioCodec != "" && !contains(VideoAudioCodecs(), v.AudioCodec) {
		p.add("--video-audio-codec", "invalid choice %q (choose from %s)", v.AudioCodec, joinChoices(VideoAudioCodecs()))
	}
	if v.AudioCodec != "" && (v.AudioChannels == nil || *v.AudioChannels == 0) {
		p.add("--video-audio-codec", "is set but --video-audio-num-channels is 0 (no audio track); set it to 1 or 2")
	}
	if v.AudioDepth != nil && !contains(AudioDepths(), *v.AudioDepth) {
		p.add("--video-audio-depth", "must be 8, 16, 24 or 32, got %d", *v.AudioDepth)
	}
	if s, on := v.Spec(); on && s.Format == VideoMJPEG && s.AudioChannels > 0 {
		p.add("--video-audio-num-channels", "the pure-Go mjpeg format has no audio track; use --video-format webm or mp4 (ffmpeg) for audio")
	}
}
