package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/config"
)

// Help groups of the endpoint-family flags (AIPerf's panel titles).
const (
	groupRankings = "Rankings"
	groupVideo    = "Video Input"
)

// addEndpointFlags registers the rest of AIPerf's Endpoint group (model
// selection, URL strategy, transport, per-chunk usage, body encoding,
// video download, image UUIDs), its Rankings group and its Video Input
// group. It sets b.group itself.
func (b *flagBuilder) addEndpointFlags(cfg *config.Config) {
	e := &cfg.Endpoint

	b.group = groupEndpoint
	b.add(&choiceValue[config.ModelSelectionStrategy]{recorder: b.rec("model-selection-strategy"), p: &e.ModelSelection, normalize: normalizeChoice[config.ModelSelectionStrategy]}, spec{
		name: "model-selection-strategy", meta: "<strategy>", def: string(config.ModelRoundRobin),
		choices: strs(config.ModelSelectionStrategies()),
		usage:   "How requests are assigned to the models of -m when it lists several: round_robin = the n-th request goes to model n mod len(models); random = uniformly at random (seeded by --random-seed).",
	})
	b.add(&choiceValue[config.URLStrategy]{recorder: b.rec("url-strategy"), p: &e.URLStrategy, normalize: normalizeChoice[config.URLStrategy]}, spec{
		name: "url-strategy", meta: "<strategy>", def: string(config.URLRoundRobin),
		choices: strs(config.URLStrategies()),
		usage:   "How requests are spread over several --url: round_robin sends request n to URL n mod len(urls).",
	})
	b.add(&choiceValue[config.TransportType]{recorder: b.rec("transport"), p: &e.Transport, normalize: normalizeChoice[config.TransportType]}, spec{
		name: "transport", aliases: []string{"transport-type"}, meta: "<transport>",
		def:     "chosen by the URL scheme (http)",
		choices: strs(config.TransportTypes()),
		usage:   "Transport plugin. Only http (HTTP/1.1 with SSE streaming, for http:// and https:// URLs) exists, which is also what the URL selects when this is not given.",
	})
	b.add(&boolValue{recorder: b.rec("per-chunk-usage"), p: &e.PerChunkUsage}, spec{
		name:  "per-chunk-usage",
		usage: "Ask a streaming chat server for cumulative usage on every chunk (stream_options.continuous_usage_stats; vLLM, TensorRT-LLM), so the first chunk's real token count is known. Requires --streaming, --use-server-token-count and --endpoint-type chat; strict OpenAI servers reject it.",
	})
	b.add(&boolValue{recorder: b.rec("download-video-content"), p: &e.DownloadVideoContent}, spec{
		name:  "download-video-content",
		usage: "video_generation: after a job completes, download the video too, so request latency includes the download (by default only the generation is timed).",
	})
	b.add(&choiceValue[config.RequestContentType]{recorder: b.rec("request-content-type"), p: &e.RequestContentType, normalize: func(s string) config.RequestContentType {
		return config.RequestContentType(strings.ToLower(strings.TrimSpace(s)))
	}}, spec{
		name: "request-content-type", meta: "<mime-type>",
		def:     "multipart/form-data for image_edit, video_generation and audio_transcription, else application/json",
		choices: strs(config.RequestContentTypes()),
		usage:   "How request bodies are encoded. The endpoints that upload files need multipart/form-data, which is their default; the others take application/json only.",
	})
	b.add(&boolValue{recorder: b.rec("uuid-and-strip"), p: &e.UUIDAndStrip}, spec{
		name:  "uuid-and-strip",
		usage: "For vLLM's multimodal processor cache (chat only): an image a conversation already sent goes again as its cache UUID alone, without its bytes. Needs image_uuids in a single_turn dataset whose rows are grouped by session_id.",
	})

	r := &cfg.Rankings
	b.group = groupRankings
	for _, f := range []struct {
		name, meta, def, usage string
		p                      **int
	}{
		{"rankings-passages-mean", "<n>", "10", "Mean number of passages per rankings request (normally distributed, at least 1).", &r.PassagesMean},
		{"rankings-passages-stddev", "<n>", "0", "Standard deviation of the number of passages per request; 0 gives every request the mean.", &r.PassagesStddev},
		{"rankings-passages-prompt-token-mean", "<tokens>", "128", "Mean length of each synthetic passage in tokens.", &r.PassageTokensMean},
		{"rankings-passages-prompt-token-stddev", "<tokens>", "0", "Standard deviation of the passage lengths in tokens.", &r.PassageTokensStddev},
		{"rankings-query-prompt-token-mean", "<tokens>", "32", "Mean length of each synthetic query in tokens.", &r.QueryTokensMean},
		{"rankings-query-prompt-token-stddev", "<tokens>", "0", "Standard deviation of the query lengths in tokens.", &r.QueryTokensStddev},
	} {
		b.add(&intPtrValue{recorder: b.rec(f.name), p: f.p}, spec{name: f.name, meta: f.meta, def: f.def, usage: f.usage})
	}

	v := &cfg.Video
	b.group = groupVideo
	b.add(&intPtrValue{recorder: b.rec("video-batch-size"), p: &v.BatchSize}, spec{
		name: "video-batch-size", aliases: []string{"batch-size-video"}, meta: "<n>", def: "0",
		usage: "Synthetic videos per request (chat video_url parts); videos are sent when --video-width and --video-height are given. " +
			"A video shape option (size, duration, fps, synth type) without this flag means 1; 0 turns video off.",
	})
	b.add(&floatPtrValue{recorder: b.rec("video-duration"), p: &v.Duration}, spec{
		name: "video-duration", meta: "<seconds>", def: formatFloat(config.DefaultVideoDuration),
		usage: "Length of each synthetic video; frames = duration x --video-fps.",
	})
	b.add(&intPtrValue{recorder: b.rec("video-fps"), p: &v.FPS}, spec{
		name: "video-fps", meta: "<fps>", def: "4",
		usage: "Frames per second of the synthetic videos (4 suits Cosmos models; 24-60 for smooth video).",
	})
	b.add(&intPtrValue{recorder: b.rec("video-width"), p: &v.Width}, spec{
		name: "video-width", meta: "<pixels>",
		usage: "Frame width of the synthetic videos; give --video-height too.",
	})
	b.add(&intPtrValue{recorder: b.rec("video-height"), p: &v.Height}, spec{
		name: "video-height", meta: "<pixels>",
		usage: "Frame height of the synthetic videos; give --video-width too.",
	})
	b.add(&choiceValue[config.VideoSynthType]{recorder: b.rec("video-synth-type"), p: &v.SynthType, normalize: normalizeChoice[config.VideoSynthType]}, spec{
		name: "video-synth-type", meta: "<type>", def: string(config.VideoMovingShapes),
		choices: strs(config.VideoSynthTypes()),
		usage:   "Picture of the synthetic videos: moving_shapes (a circle, a square and a triangle moving on black), grid_clock (a grid with clock hands turning), noise (random pixels, which compress worst).",
	})
	b.add(&choiceValue[config.VideoFormat]{recorder: b.rec("video-format"), p: &v.Format, normalize: normalizeChoice[config.VideoFormat]}, spec{
		name: "video-format", meta: "<format>", def: string(config.VideoWebM),
		choices: strs(config.VideoFormats()),
		usage:   "Container of the synthetic videos: webm or mp4 (encoded with ffmpeg, which must be on PATH), or mjpeg (Motion JPEG in AVI, written without ffmpeg).",
	})
	b.add(&stringValue{recorder: b.rec("video-codec"), p: &v.Codec}, spec{
		name: "video-codec", meta: "<codec>", def: config.DefaultVideoCodec,
		usage: "ffmpeg video encoder, e.g. libvpx-vp9 (default), libvpx (VP8), libx264 or h264_nvenc when the local ffmpeg has them.",
	})
	b.add(&floatPtrValue{recorder: b.rec("video-audio-sample-rate"), p: &v.AudioSampleRate}, spec{
		name: "video-audio-sample-rate", meta: "<kHz>", def: formatFloat(config.DefaultVideoAudioSampleRate),
		usage: "Sample rate of the videos' audio track in kHz (or Hz above 96: 44100 = 44.1).",
	})
	b.add(&intPtrValue{recorder: b.rec("video-audio-num-channels"), p: &v.AudioChannels}, spec{
		name: "video-audio-num-channels", meta: "<n>", def: "0",
		usage: "Audio channels muxed into each video: 0 = no audio track, 1 = mono, 2 = stereo (Gaussian noise, needs ffmpeg).",
	})
	b.add(&choiceValue[config.VideoAudioCodec]{recorder: b.rec("video-audio-codec"), p: &v.AudioCodec, normalize: normalizeChoice[config.VideoAudioCodec]}, spec{
		name: "video-audio-codec", meta: "<codec>", def: "libvorbis for webm, libopus for mp4",
		choices: strs(config.VideoAudioCodecs()),
		usage:   "Encoder of the videos' audio track.",
	})
	b.add(&intPtrValue{recorder: b.rec("video-audio-depth"), p: &v.AudioDepth}, spec{
		name: "video-audio-depth", meta: "<bits>", def: "16",
		usage: "Bit depth of the videos' audio track: 8, 16, 24 or 32.",
	})
}

// textOnlyFlags are the options AIPerf refuses with an endpoint that
// neither tokenizes its input nor produces tokens (audio_transcription,
// image_retrieval): prompt shaping and the tokenizer. Flags another area
// has not registered yet are skipped.
var textOnlyFlags = []string{
	"prompt-input-tokens-mean", "prompt-input-tokens-stddev", "prompt-input-tokens-block-size",
	"prompt-batch-size", "sequence-distribution", "random-range-ratio",
	"prompt-prefix-length", "prompt-prefix-pool-size",
	"tokenizer", "tokenizer-trust-remote-code", "tokenizer-revision",
}

// nonTextEndpointProblems reports each text-only flag given on the command
// line with such an endpoint, as AIPerf does.
func nonTextEndpointProblems(fs *pflag.FlagSet, typ config.EndpointType) []error {
	p, err := builtin.New().Endpoints.Lookup(string(typ))
	if err != nil || p.Meta.TokenizesInput || p.Meta.ProducesTokens {
		return nil
	}
	var out []error
	for _, name := range textOnlyFlags {
		if fs.Lookup(name) != nil && fs.Changed(name) {
			out = append(out, &config.FieldError{Flag: "--" + name,
				Problem: fmt.Sprintf("cannot be used with --endpoint-type %s, which neither tokenizes its input nor produces tokens", typ)})
		}
	}
	return out
}
