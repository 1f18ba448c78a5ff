package config

import (
	"strings"
	"testing"
)

// TestValidateEndpointOptions: the Endpoint, Rankings and Video Input
// rules, each problem attributed to the flag to change, as AIPerf words
// its validators.
func TestValidateEndpointOptions(t *testing.T) {
	t.Parallel()
	chatStream := func(c *Config) { c.Endpoint.Streaming, c.Endpoint.UseServerTokenCount = true, true }
	tests := []struct {
		name       string
		edit       func(*Config)
		flag, text string
	}{
		{"random models", func(c *Config) { c.Endpoint.ModelSelection = ModelRandom }, "", ""},
		{"bad model strategy", func(c *Config) { c.Endpoint.ModelSelection = "weighted" }, "--model-selection-strategy", "invalid choice"},
		{"bad url strategy", func(c *Config) { c.Endpoint.URLStrategy = "random" }, "--url-strategy", "invalid choice"},
		{"http transport", func(c *Config) { c.Endpoint.Transport = TransportHTTP }, "", ""},
		{"grpc transport", func(c *Config) { c.Endpoint.Transport = "grpc" }, "--transport", "invalid choice"},
		{"per chunk ok", func(c *Config) { chatStream(c); c.Endpoint.PerChunkUsage = true }, "", ""},
		{"per chunk needs server counts", func(c *Config) {
			chatStream(c)
			c.Endpoint.UseServerTokenCount = false
			c.Endpoint.PerChunkUsage = true
		}, "--per-chunk-usage", "--use-server-token-count"},
		{"per chunk needs streaming", func(c *Config) {
			chatStream(c)
			c.Endpoint.Streaming = false
			c.Endpoint.PerChunkUsage = true
		}, "--per-chunk-usage", "--streaming"},
		{"multipart for image edit", func(c *Config) {
			c.Endpoint.Type = EndpointImageEdit
			c.Endpoint.RequestContentType = ContentMultipart
		}, "", ""},
		{"json for image edit", func(c *Config) {
			c.Endpoint.Type = EndpointImageEdit
			c.Endpoint.RequestContentType = ContentJSON
		}, "--request-content-type", "requires multipart/form-data"},
		{"multipart for chat", func(c *Config) { c.Endpoint.RequestContentType = ContentMultipart }, "--request-content-type", "only supported by endpoint types that upload files"},
		{"bad content type", func(c *Config) { c.Endpoint.RequestContentType = "text/xml" }, "--request-content-type", "invalid choice"},
		{"download video on chat", func(c *Config) { c.Endpoint.DownloadVideoContent = true }, "--download-video-content", "video_generation"},
		{"uuid strip on embeddings", func(c *Config) {
			c.Endpoint.Type = EndpointEmbeddings
			c.Endpoint.UUIDAndStrip = true
		}, "--uuid-and-strip", "requires --endpoint-type chat"},
		{"rankings flags", func(c *Config) {
			c.Endpoint.Type = EndpointNIMRankings
			c.Rankings.PassagesMean = ptr(4)
		}, "", ""},
		{"rankings zero passages", func(c *Config) {
			c.Endpoint.Type = EndpointCohereRankings
			c.Rankings.PassagesMean = ptr(0)
		}, "--rankings-passages-mean", ">= 1"},
		{"rankings flags on chat", func(c *Config) { c.Rankings.QueryTokensMean = ptr(10) }, "--rankings-passages-mean", "rankings endpoint types"},
		{"video ok", func(c *Config) { c.Video.BatchSize, c.Video.Width, c.Video.Height = ptr(1), ptr(64), ptr(48) }, "", ""},
		{"video width alone", func(c *Config) { c.Video.Width = ptr(64) }, "--video-width", "together"},
		{"video fps zero", func(c *Config) { c.Video.FPS = ptr(0) }, "--video-fps", ">= 1"},
		{"video format", func(c *Config) { c.Video.Format = "avi" }, "--video-format", "invalid choice"},
		{"video audio codec without channels", func(c *Config) { c.Video.AudioCodec = VideoAudioOpus }, "--video-audio-codec", "channels is 0"},
		{"video depth", func(c *Config) { c.Video.AudioDepth = ptr(12) }, "--video-audio-depth", "8, 16, 24 or 32"},
		{"video sample rate", func(c *Config) { c.Video.AudioSampleRate = ptr(4.0) }, "--video-audio-sample-rate", "between 8 and 96000"},
		{"mjpeg with audio", func(c *Config) {
			c.Video.BatchSize, c.Video.Width, c.Video.Height = ptr(1), ptr(64), ptr(48)
			c.Video.Format, c.Video.AudioChannels = VideoMJPEG, ptr(1)
		}, "--video-audio-num-channels", "no audio track"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tt.edit(&c)
			err := c.Validate()
			if tt.flag == "" {
				if err != nil {
					t.Fatalf("Validate() = %v; want nil", err)
				}
				return
			}
			if got := flagsOf(err); len(got) != 1 || got[0] != tt.flag {
				t.Fatalf("Validate() flags = %v (%v); want [%s]", got, err, tt.flag)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Validate() = %q; want it to contain %q", err, tt.text)
			}
		})
	}
}

// TestVideoSpec: video is on with both sizes and a batch size, which the
// sizes alone imply to be 1 (as AIPerf's command line does; pinned by the
// chat_video_defaults golden), and off with --video-batch-size 0; the
// section's own defaults apply, Hz-looking sample rates are read as Hz,
// and the audio codec follows the container.
func TestVideoSpec(t *testing.T) {
	t.Parallel()
	var v Video
	if _, on := v.Spec(); on {
		t.Error("video on with no flags")
	}
	v.Width = ptr(64)
	if _, on := v.Spec(); on {
		t.Error("video on without a height")
	}
	v.Height = ptr(48)
	if s, on := v.Spec(); !on || s.BatchSize != 1 {
		t.Errorf("sizes alone: Spec() = %+v, %v; want a batch of 1", s, on)
	}
	v.BatchSize = ptr(0)
	if _, on := v.Spec(); on {
		t.Error("video on with --video-batch-size 0")
	}
	v.BatchSize = ptr(2)
	s, on := v.Spec()
	if !on || s.Duration != DefaultVideoDuration || s.FPS != 4 || s.Format != VideoWebM || s.AudioCodec != VideoAudioVorbis {
		t.Errorf("Spec() = %+v, %v", s, on)
	}
	v.Format, v.AudioSampleRate = VideoMP4, ptr(48000.0)
	if s, _ = v.Spec(); s.AudioCodec != VideoAudioOpus || s.AudioSampleRateKHz != 48 {
		t.Errorf("mp4 Spec() = %+v", s)
	}
}

func TestRankingsSpec(t *testing.T) {
	t.Parallel()
	var r Rankings
	if got := r.Spec(); got != (RankingsSpec{PassagesMean: 10, PassageTokensMean: 128, QueryTokensMean: 32}) {
		t.Errorf("default Spec() = %+v", got)
	}
	r.PassagesMean, r.PassagesStddev = ptr(5), ptr(2)
	if got := r.Spec(); got.PassagesMean != 5 || got.PassagesStddev != 2 {
		t.Errorf("Spec() = %+v", got)
	}
	for typ, want := range map[EndpointType]bool{EndpointNIMRankings: true, EndpointHFTEIRankings: true, EndpointCohereRankings: true, EndpointChat: false} {
		if typ.IsRankings() != want {
			t.Errorf("%s.IsRankings() = %v", typ, !want)
		}
	}
}
