package benchmark

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/dataset/media"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// addSyntheticMedia gives the turns of a synthetic dataset the images and
// audio of --image-*/--audio-*, when the endpoint sends them (chat); for
// other endpoints they would never reach the wire, so none are generated.
func (p *Plan) addSyntheticMedia(ds *dataset.Dataset) error {
	o := mediaOptions(&p.Config.Media, &p.Config.Video, p.Meta)
	if err := media.AddMedia(ds, o, p.Seed); err != nil {
		return usageError(fmt.Errorf("synthetic media: %w", err))
	}
	return nil
}

// mediaOptions resolves the media configuration for an endpoint.
func mediaOptions(m *config.Media, v *config.Video, meta endpoint.Metadata) media.MediaOptions {
	var o media.MediaOptions
	if vs, on := v.Spec(); on && meta.SupportsVideos {
		o.Video = media.VideoOptions{
			BatchSize: vs.BatchSize, Duration: vs.Duration, FPS: vs.FPS, Width: vs.Width, Height: vs.Height,
			SynthType: string(vs.SynthType), Format: string(vs.Format), Codec: vs.Codec,
			AudioSampleRateKHz: vs.AudioSampleRateKHz, AudioChannels: vs.AudioChannels,
			AudioCodec: string(vs.AudioCodec), AudioDepth: vs.AudioDepth,
		}
	}
	if img, on := m.Images(); on && meta.SupportsImages {
		o.Images = media.ImageOptions{
			BatchSize: img.BatchSize,
			WidthMean: img.WidthMean, WidthStddev: img.WidthStddev,
			HeightMean: img.HeightMean, HeightStddev: img.HeightStddev,
			Format:   string(img.Format),
			Source:   string(m.ImageSource),
			Sampling: string(m.ImageSourceSampling),
		}
	}
	if aud, on := m.Audio(); on && meta.SupportsAudio {
		o.Audio = media.AudioOptions{
			BatchSize:  aud.BatchSize,
			LengthMean: aud.LengthMean, LengthStddev: aud.LengthStddev,
			Format:         string(aud.Format),
			SampleRatesKHz: aud.SampleRatesKHz,
			Depths:         aud.Depths,
			Channels:       aud.Channels,
		}
	}
	return o
}

// inputMedia is the images and audio part of a dataset in input_config.
// Like AIPerf it holds only what the user gave, plus the batch size of 1
// that a size or length flag implies.
type inputMedia struct {
	Images *inputImages `json:"images,omitzero"`
	Audio  *inputAudio  `json:"audio,omitzero"`
}

type inputImages struct {
	BatchSize *int          `json:"batch_size,omitzero"`
	Width     *inputOptDist `json:"width,omitzero"`
	Height    *inputOptDist `json:"height,omitzero"`
	Format    string        `json:"format,omitzero"`
	Source    string        `json:"source,omitzero"`
}

type inputAudio struct {
	BatchSize   *int          `json:"batch_size,omitzero"`
	Length      *inputOptDist `json:"length,omitzero"`
	Format      string        `json:"format,omitzero"`
	SampleRates []float64     `json:"sample_rates,omitzero"`
	Depths      []int         `json:"depths,omitzero"`
	Channels    *int          `json:"channels,omitzero"`
}

// inputOptDist is a distribution of which only the given parts are shown.
type inputOptDist struct {
	Mean   *float64 `json:"mean,omitzero"`
	Stddev *float64 `json:"stddev,omitzero"`
}

func optDist(mean, stddev *float64) *inputOptDist {
	if mean == nil && stddev == nil {
		return nil
	}
	return &inputOptDist{Mean: mean, Stddev: stddev}
}

// mediaDoc describes the --image-*/--audio-* flags given, as AIPerf's
// input_config does (sample rates already read as kHz).
func mediaDoc(m *config.Media) inputMedia {
	var doc inputMedia
	one := 1
	img := inputImages{
		BatchSize: m.ImageBatchSize,
		Width:     optDist(m.ImageWidthMean, m.ImageWidthStddev),
		Height:    optDist(m.ImageHeightMean, m.ImageHeightStddev),
		Format:    string(m.ImageFormat),
		Source:    string(m.ImageSource),
	}
	if img != (inputImages{}) {
		if img.BatchSize == nil && (img.Width != nil || img.Height != nil || img.Source != "") {
			img.BatchSize = &one
		}
		doc.Images = &img
	}
	aud := inputAudio{
		BatchSize: m.AudioBatchSize,
		Length:    optDist(m.AudioLengthMean, m.AudioLengthStddev),
		Format:    string(m.AudioFormat),
		Depths:    m.AudioDepths,
		Channels:  m.AudioNumChannels,
	}
	if len(m.AudioSampleRates) > 0 {
		spec, _ := m.Audio()
		aud.SampleRates = spec.SampleRatesKHz
	}
	if aud.BatchSize != nil || aud.Length != nil || aud.Format != "" || aud.SampleRates != nil || aud.Depths != nil || aud.Channels != nil {
		if aud.BatchSize == nil && aud.Length != nil {
			aud.BatchSize = &one
		}
		doc.Audio = &aud
	}
	return doc
}
