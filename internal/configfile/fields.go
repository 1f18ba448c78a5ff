package configfile

import (
	"slices"

	"github.com/aiperf-go/aiperf/internal/config"
)

// target is what a config file decodes into.
type target struct {
	cfg *config.Config
}

// field maps one config-file key to one configuration field. The table
// below is the only place that knows both the YAML shape and the Config
// shape: decoding, CLI overrides of the envelope and the JSON Schema are
// all derived from it, so supporting a new option is one row.
//
// Paths are dot paths from the envelope root in canonical snake_case.
// Inside "benchmark.phases" the segment after "phases" is the phase kind
// ("warmup" or "profiling"); inside "benchmark.datasets" it is "0", the
// only dataset.
type field struct {
	path string
	// flag is the `aiperf profile` flag (canonical name) whose explicit
	// value overrides this key; "" when none does, several separated by
	// commas when several flags set the key. A flag may override several
	// keys (--random-seed: the envelope's and the dataset's); the first
	// row is its sweep path.
	flag string
	// bind returns a pointer to the target field; nil for keys that are
	// accepted but carry nothing (name, kind).
	bind func(t target) any
	// conv decodes the node when the pointer's type alone does not say
	// how; nil = by type (see decodeValue).
	conv *conv
	// unsupported marks an AIPerf key this implementation recognises but
	// does not implement; using it is an error saying so.
	unsupported bool
	// ignored marks an AIPerf key accepted for compatibility whose value
	// has no effect here; doc says why.
	ignored bool
	doc     string
}

// fields is the config-file schema. Keep rows grouped by section.
func fields() []field {
	return append([]field{
		// Envelope.
		{path: "random_seed", flag: "random-seed", bind: func(t target) any { return &t.cfg.Input.RandomSeed },
			doc: "Base seed of the synthetic data; sweep variation i uses random_seed + i unless sweep.same_seed."},

		// Models and endpoint.
		{path: "benchmark.models", flag: "model-names", bind: func(t target) any { return &t.cfg.Endpoint.ModelNames }, conv: &modelsConv,
			doc: "Model(s) to benchmark: a name, a list of names, or {strategy: round_robin|random, items: [{name: ...}]}."},
		{path: "benchmark.endpoint.urls", flag: "url", bind: func(t target) any { return &t.cfg.Endpoint.URLs }, conv: &urlsConv,
			doc: "Base URL(s) of the server; requests are spread over them round-robin."},
		{path: "benchmark.endpoint.type", flag: "endpoint-type", bind: func(t target) any { return &t.cfg.Endpoint.Type }, conv: &choiceConv,
			doc: "API to benchmark (chat, completions, ...)."},
		{path: "benchmark.endpoint.path", flag: "custom-endpoint", bind: func(t target) any { return &t.cfg.Endpoint.CustomEndpoint },
			doc: "Request path replacing the endpoint type's standard one."},
		{path: "benchmark.endpoint.streaming", flag: "streaming", bind: func(t target) any { return &t.cfg.Endpoint.Streaming }},
		{path: "benchmark.endpoint.api_key", flag: "api-key", bind: func(t target) any { return &t.cfg.Endpoint.APIKey },
			doc: "Sent as \"Authorization: Bearer <key>\"; use ${ENV_VAR} rather than writing it in the file."},
		{path: "benchmark.endpoint.timeout", flag: "request-timeout-seconds", bind: func(t target) any { return &t.cfg.Endpoint.TimeoutSeconds }, conv: &durationConv,
			doc: "Per-request timeout: seconds or a duration such as \"10m\"."},
		{path: "benchmark.endpoint.use_legacy_max_tokens", flag: "use-legacy-max-tokens", bind: func(t target) any { return &t.cfg.Endpoint.UseLegacyMaxTokens }},
		{path: "benchmark.endpoint.use_server_token_count", flag: "use-server-token-count", bind: func(t target) any { return &t.cfg.Endpoint.UseServerTokenCount }},
		{path: "benchmark.endpoint.wait_for_model_timeout", flag: "wait-for-model-timeout", bind: func(t target) any { return &t.cfg.Endpoint.WaitForModelTimeout }, conv: &durationConv},
		{path: "benchmark.endpoint.wait_for_model_mode", flag: "wait-for-model-mode", bind: func(t target) any { return &t.cfg.Endpoint.WaitForModelMode }, conv: &choiceConv},
		{path: "benchmark.endpoint.wait_for_model_interval", flag: "wait-for-model-interval", bind: func(t target) any { return &t.cfg.Endpoint.WaitForModelInterval }, conv: &durationConv},
		{path: "benchmark.endpoint.headers", flag: "header", bind: func(t target) any { return &t.cfg.Input.Headers }, conv: &headersConv,
			doc: "HTTP headers sent with every request, as a mapping."},
		{path: "benchmark.endpoint.extra", flag: "extra-inputs", bind: func(t target) any { return &t.cfg.Input.Extra }, conv: &extraConv,
			doc: "Fields merged into every request body, as a mapping."},
		{path: "benchmark.endpoint.session_header", flag: "session-header", bind: func(t target) any { return &t.cfg.Conversation.SessionHeader }},
		{path: "benchmark.endpoint.connection_reuse", flag: "connection-reuse-strategy", bind: func(t target) any { return &t.cfg.Endpoint.ConnectionReuse },
			doc: "pooled (one shared keep-alive pool), never (a connection per request) or sticky-user-sessions (a connection per conversation)."},
		{path: "benchmark.endpoint.http_client", flag: "http-client", bind: func(t target) any { return &t.cfg.Network.HTTPClient }, conv: &choiceConv,
			doc: "HTTP engine, which follows http_version: lean for 1.1, net/http for 2 and auto; net/http is refused for 1.1 (not an AIPerf key)."},
		{path: "benchmark.endpoint.http_version", flag: "http-version", bind: func(t target) any { return &t.cfg.Network.HTTPVersion }, conv: &choiceConv,
			doc: "1.1 (the default), 2 (h2 by ALPN, h2c on http://) or auto (not an AIPerf key)."},
		{path: "benchmark.endpoint.tls.ca_file", flag: "tls-ca-file", bind: func(t target) any { return &t.cfg.Network.TLSCAFile },
			doc: "PEM bundle of the authorities that sign the server's certificate (not an AIPerf key)."},
		{path: "benchmark.endpoint.tls.cert_file", flag: "tls-cert-file", bind: func(t target) any { return &t.cfg.Network.TLSCertFile },
			doc: "PEM client certificate for mutual TLS; needs key_file (not an AIPerf key)."},
		{path: "benchmark.endpoint.tls.key_file", flag: "tls-key-file", bind: func(t target) any { return &t.cfg.Network.TLSKeyFile },
			doc: "PEM key of cert_file (not an AIPerf key)."},
		{path: "benchmark.endpoint.tls.skip_verify", flag: "tls-skip-verify", bind: func(t target) any { return &t.cfg.Network.TLSSkipVerify },
			doc: "Accept any server certificate, as AIPERF_HTTP_SSL_VERIFY=false (not an AIPerf key)."},
		{path: "benchmark.endpoint.trust_env", flag: "trust-env", bind: func(t target) any { return &t.cfg.Network.TrustEnv },
			doc: "Use the proxies of HTTP_PROXY, HTTPS_PROXY and NO_PROXY, as AIPERF_HTTP_TRUST_ENV=true (not an AIPerf key)."},
		// The rest of the endpoint section. models.strategy is
		// moved here by normalizeBody.
		{path: "benchmark.endpoint.model_selection_strategy", flag: "model-selection-strategy", bind: func(t target) any { return &t.cfg.Endpoint.ModelSelection }, conv: &choiceConv,
			doc: "How requests are assigned to several models: round_robin or random (AIPerf's models.strategy)."},
		{path: "benchmark.endpoint.url_strategy", flag: "url-strategy", bind: func(t target) any { return &t.cfg.Endpoint.URLStrategy }, conv: &choiceConv,
			doc: "How requests are spread over the URLs: round_robin."},
		{path: "benchmark.endpoint.transport", flag: "transport", bind: func(t target) any { return &t.cfg.Endpoint.Transport }, conv: &choiceConv,
			doc: "Transport plugin: http (chosen by the URL scheme when absent)."},
		{path: "benchmark.endpoint.per_chunk_usage", flag: "per-chunk-usage", bind: func(t target) any { return &t.cfg.Endpoint.PerChunkUsage }},
		{path: "benchmark.endpoint.download_video_content", flag: "download-video-content", bind: func(t target) any { return &t.cfg.Endpoint.DownloadVideoContent }},
		{path: "benchmark.endpoint.request_content_type", flag: "request-content-type", bind: func(t target) any { return &t.cfg.Endpoint.RequestContentType },
			doc: "application/json or multipart/form-data (the default of the endpoints that upload files)."},
		{path: "benchmark.endpoint.uuid_and_strip", flag: "uuid-and-strip", bind: func(t target) any { return &t.cfg.Endpoint.UUIDAndStrip }},
		{path: "benchmark.endpoint.template.body", bind: func(t target) any { return &templateOf(t).Body },
			doc: "Template endpoint: a named template (nv-embedqa), a template file, or the Jinja template itself; sets type template when the type is not given."},
		{path: "benchmark.endpoint.template.response_field", bind: func(t target) any { return &templateOf(t).ResponseField },
			doc: "Template endpoint: JMESPath expression picking the response text; \"text\" (the default) auto-detects."},

		// Dataset (exactly one).
		{path: "benchmark.datasets.0.name", doc: "Dataset name; sweep paths may use it (datasets.<name>.prompts.isl)."},
		{path: "benchmark.datasets.0.type", conv: &datasetTypeConv, doc: "synthetic (the default), file (path, format) or public (dataset)."},
		{path: "benchmark.datasets.0.entries", flag: "num-dataset-entries", bind: func(t target) any { return &t.cfg.Input.NumDatasetEntries },
			doc: "Number of distinct prompts."},
		{path: "benchmark.datasets.0.random_seed", flag: "random-seed", bind: func(t target) any { return &t.cfg.Input.RandomSeed },
			doc: "Seed of this dataset; overrides the envelope's random_seed."},
		{path: "benchmark.datasets.0.prompts.isl.mean", flag: "prompt-input-tokens-mean", bind: func(t target) any { return &t.cfg.Input.InputTokens.Mean },
			doc: "Mean prompt length in tokens. isl may also be a number or {type: fixed, value: n}."},
		{path: "benchmark.datasets.0.prompts.isl.stddev", flag: "prompt-input-tokens-stddev", bind: func(t target) any { return &t.cfg.Input.InputTokens.Stddev }},
		{path: "benchmark.datasets.0.prompts.osl.mean", flag: "prompt-output-tokens-mean", bind: func(t target) any { return &t.cfg.Input.OutputTokens.Mean },
			doc: "Mean requested output length in tokens."},
		{path: "benchmark.datasets.0.prompts.osl.stddev", flag: "prompt-output-tokens-stddev", bind: func(t target) any { return &t.cfg.Input.OutputTokens.Stddev }},
		{path: "benchmark.datasets.0.prompts.batch_size", flag: "prompt-batch-size", bind: func(t target) any { return &t.cfg.Prompt.BatchSize },
			doc: "Prompts per request (embeddings and rankings endpoints)."},
		{path: "benchmark.datasets.0.prompts.block_size", flag: "prompt-input-tokens-block-size", bind: func(t target) any { return &t.cfg.Dataset.BlockSize },
			doc: "Tokens per hash_ids block of trace formats."},
		{path: "benchmark.datasets.0.prompts.corpus", flag: "prompt-corpus", bind: func(t target) any { return &t.cfg.Prompt.Corpus }, conv: &choiceConv,
			doc: "Text synthetic prompts and trace blocks are cut from: sonnet, coding or random; the dataset's default when absent."},
		{path: "benchmark.datasets.0.prompts.random_range_ratio", flag: "random-range-ratio", bind: func(t target) any { return &t.cfg.Prompt.RandomRangeRatio }, conv: &rangeRatioConv,
			doc: "Draw each ISL and OSL uniformly from a window around the means: a ratio, or {input: r1, output: r2}."},
		{path: "benchmark.datasets.0.prompts.random_corpus_style", flag: "random-corpus-style", bind: func(t target) any { return &t.cfg.Prompt.RandomCorpusStyle }, conv: &choiceConv,
			doc: "vllm (default) or sglang: the random corpus's tokens and the range-ratio window."},
		{path: "benchmark.datasets.0.prompts.cache_bust.target", flag: "cache-bust", bind: func(t target) any { return &t.cfg.Prompt.CacheBust }, conv: &choiceConv,
			doc: "Synthetic datasets: where a cache-bust marker goes (system_prefix, first_turn_suffix, warmup_isolation_system, ...; none)."},
		{path: "benchmark.datasets.0.cache_bust.target", flag: "cache-bust", bind: func(t target) any { return &t.cfg.Prompt.CacheBust }, conv: &choiceConv,
			doc: "File and public datasets: where a cache-bust marker goes (as prompts.cache_bust.target)."},
		{path: "benchmark.datasets.0.system_prompt", flag: "system-prompt", bind: func(t target) any { return &t.cfg.Prompt.SystemPrompt },
			doc: "Verbatim system prompt sent ahead of every conversation (before a dataset's own system message)."},
		{path: "benchmark.datasets.0.system_prompt_file", flag: "system-prompt-file", bind: func(t target) any { return &t.cfg.Prompt.SystemPromptFile },
			doc: "UTF-8 file holding the verbatim system prompt."},
		{path: "benchmark.datasets.0.prompts.sequence_distribution", flag: "seq-dist", bind: func(t target) any { return &t.cfg.Prompt.SequenceDistribution }, conv: &seqDistConv,
			doc: "Mixed workloads: [{isl, osl, probability}], isl and osl a number or {mean, stddev}, probabilities percentages summing to 100; replaces isl and osl."},
		{path: "benchmark.datasets.0.path", flag: "input-file", bind: func(t target) any { return &t.cfg.Dataset.InputFile },
			doc: "type: file - the file or directory of dataset entries."},
		{path: "benchmark.datasets.0.format", flag: "custom-dataset-type", bind: func(t target) any { return &t.cfg.Dataset.CustomType }, conv: &choiceConv,
			doc: "type: file - single_turn, multi_turn, random_pool, mooncake_trace, ...; detected when absent."},
		{path: "benchmark.datasets.0.dataset", flag: "public-dataset", bind: func(t target) any { return &t.cfg.Dataset.Public }, conv: &choiceConv,
			doc: "type: public - the public dataset's name (aimo, librispeech, sharegpt, ...; `aiperf plugins dataset` lists them)."},
		{path: "benchmark.datasets.0.hf_subset", flag: "hf-subset", bind: func(t target) any { return &t.cfg.Dataset.HFSubset },
			doc: "type: public - the HuggingFace config (subset) to read instead of the dataset's default."},
		{path: "benchmark.datasets.0.hf_weka_dataset", flag: "hf-weka-dataset", bind: func(t target) any { return &t.cfg.Dataset.HFWekaDataset },
			doc: "type: public - the hub repository of Weka traces for dataset weka_hf."},
		{path: "benchmark.datasets.0.ignore_trace_delays", flag: "ignore-trace-delays", bind: func(t target) any { return &t.cfg.Dataset.IgnoreTraceDelays }},
		{path: "benchmark.datasets.0.use_think_time_only", flag: "use-think-time-only", bind: func(t target) any { return &t.cfg.Dataset.UseThinkTimeOnly }},
		{path: "benchmark.datasets.0.max_context_length", flag: "max-context-length", bind: func(t target) any { return &t.cfg.Dataset.MaxContextLength }},
		{path: "benchmark.datasets.0.allow_dataset_wrap", flag: "allow-dataset-wrap", bind: func(t target) any { return &t.cfg.Dataset.AllowDatasetWrap }},
		{path: "benchmark.datasets.0.trace_session_sample_ratio", flag: "trace-session-sample-ratio", bind: func(t target) any { return &t.cfg.Dataset.TraceSessionSampleRatio }},
		{path: "benchmark.datasets.0.sampling", flag: "dataset-sampling-strategy", bind: func(t target) any { return &t.cfg.Dataset.SamplingStrategy }, conv: &choiceConv,
			doc: "Order entries are handed out: sequential, random or shuffle."},
		{path: "benchmark.datasets.0.turns.mean", flag: "session-turns-mean", bind: func(t target) any { return &t.cfg.Conversation.TurnsMean },
			doc: "Turns per synthetic conversation; turns may also be a number."},
		{path: "benchmark.datasets.0.turns.stddev", flag: "session-turns-stddev", bind: func(t target) any { return &t.cfg.Conversation.TurnsStddev }},
		{path: "benchmark.datasets.0.turn_delay.mean", flag: "session-turn-delay-mean", bind: func(t target) any { return &t.cfg.Conversation.TurnDelayMean },
			doc: "Delay between turns in milliseconds; turn_delay may also be a number."},
		{path: "benchmark.datasets.0.turn_delay.stddev", flag: "session-turn-delay-stddev", bind: func(t target) any { return &t.cfg.Conversation.TurnDelayStddev }},
		{path: "benchmark.datasets.0.turn_delay_ratio", flag: "session-delay-ratio", bind: func(t target) any { return &t.cfg.Conversation.DelayRatio }},
		{path: "benchmark.datasets.0.inter_turn_delay_cap_seconds", flag: "inter-turn-delay-cap-seconds", bind: func(t target) any { return &t.cfg.Conversation.InterTurnDelayCapSeconds }},
		{path: "benchmark.datasets.0.prefix_prompts.pool_size", flag: "prompt-prefix-pool-size", bind: func(t target) any { return &t.cfg.Prompt.PrefixPoolSize }},
		{path: "benchmark.datasets.0.prefix_prompts.length", flag: "prompt-prefix-length", bind: func(t target) any { return &t.cfg.Prompt.PrefixLength }},
		{path: "benchmark.datasets.0.prefix_prompts.shared_system_length", flag: "shared-system-prompt-length", bind: func(t target) any { return &t.cfg.Prompt.SharedSystemLength }},
		{path: "benchmark.datasets.0.prefix_prompts.user_context_length", flag: "user-context-prompt-length", bind: func(t target) any { return &t.cfg.Prompt.UserContextLength }},
		{path: "benchmark.datasets.0.images.width.mean", flag: "image-width-mean", bind: func(t target) any { return &t.cfg.Media.ImageWidthMean }},
		{path: "benchmark.datasets.0.images.width.stddev", flag: "image-width-stddev", bind: func(t target) any { return &t.cfg.Media.ImageWidthStddev }},
		{path: "benchmark.datasets.0.images.height.mean", flag: "image-height-mean", bind: func(t target) any { return &t.cfg.Media.ImageHeightMean }},
		{path: "benchmark.datasets.0.images.height.stddev", flag: "image-height-stddev", bind: func(t target) any { return &t.cfg.Media.ImageHeightStddev }},
		{path: "benchmark.datasets.0.images.batch_size", flag: "image-batch-size", bind: func(t target) any { return &t.cfg.Media.ImageBatchSize }},
		{path: "benchmark.datasets.0.images.format", flag: "image-format", bind: func(t target) any { return &t.cfg.Media.ImageFormat }, conv: &choiceConv},
		{path: "benchmark.datasets.0.images.source", flag: "image-source", bind: func(t target) any { return &t.cfg.Media.ImageSource }, conv: &choiceConv},
		{path: "benchmark.datasets.0.audio.length.mean", flag: "audio-length-mean", bind: func(t target) any { return &t.cfg.Media.AudioLengthMean }},
		{path: "benchmark.datasets.0.audio.length.stddev", flag: "audio-length-stddev", bind: func(t target) any { return &t.cfg.Media.AudioLengthStddev }},
		{path: "benchmark.datasets.0.audio.batch_size", flag: "audio-batch-size", bind: func(t target) any { return &t.cfg.Media.AudioBatchSize }},
		{path: "benchmark.datasets.0.audio.format", flag: "audio-format", bind: func(t target) any { return &t.cfg.Media.AudioFormat }, conv: &choiceConv},
		{path: "benchmark.datasets.0.audio.sample_rates", flag: "audio-sample-rates", bind: func(t target) any { return &t.cfg.Media.AudioSampleRates }},
		{path: "benchmark.datasets.0.audio.depths", flag: "audio-depths", bind: func(t target) any { return &t.cfg.Media.AudioDepths }},
		{path: "benchmark.datasets.0.audio.channels", flag: "audio-num-channels", bind: func(t target) any { return &t.cfg.Media.AudioNumChannels }},
		{path: "benchmark.datasets.0.images.source_sampling", flag: "image-source-sampling", bind: func(t target) any { return &t.cfg.Media.ImageSourceSampling }},
		{path: "benchmark.datasets.0.video.batch_size", flag: "video-batch-size", bind: func(t target) any { return &t.cfg.Video.BatchSize }},
		{path: "benchmark.datasets.0.video.duration", flag: "video-duration", bind: func(t target) any { return &t.cfg.Video.Duration }},
		{path: "benchmark.datasets.0.video.fps", flag: "video-fps", bind: func(t target) any { return &t.cfg.Video.FPS }},
		{path: "benchmark.datasets.0.video.width", flag: "video-width", bind: func(t target) any { return &t.cfg.Video.Width }},
		{path: "benchmark.datasets.0.video.height", flag: "video-height", bind: func(t target) any { return &t.cfg.Video.Height }},
		{path: "benchmark.datasets.0.video.synth_type", flag: "video-synth-type", bind: func(t target) any { return &t.cfg.Video.SynthType }, conv: &choiceConv},
		{path: "benchmark.datasets.0.video.format", flag: "video-format", bind: func(t target) any { return &t.cfg.Video.Format }, conv: &choiceConv},
		{path: "benchmark.datasets.0.video.codec", flag: "video-codec", bind: func(t target) any { return &t.cfg.Video.Codec }},
		{path: "benchmark.datasets.0.video.audio.sample_rate", flag: "video-audio-sample-rate", bind: func(t target) any { return &t.cfg.Video.AudioSampleRate }},
		{path: "benchmark.datasets.0.video.audio.channels", flag: "video-audio-num-channels", bind: func(t target) any { return &t.cfg.Video.AudioChannels }},
		{path: "benchmark.datasets.0.video.audio.codec", flag: "video-audio-codec", bind: func(t target) any { return &t.cfg.Video.AudioCodec }, conv: &choiceConv},
		{path: "benchmark.datasets.0.video.audio.depth", flag: "video-audio-depth", bind: func(t target) any { return &t.cfg.Video.AudioDepth }},
		{path: "benchmark.datasets.0.rankings.passages.mean", flag: "rankings-passages-mean", bind: func(t target) any { return &t.cfg.Rankings.PassagesMean },
			doc: "Passages per rankings request; passages, passage_tokens and query_tokens may also be numbers."},
		{path: "benchmark.datasets.0.rankings.passages.stddev", flag: "rankings-passages-stddev", bind: func(t target) any { return &t.cfg.Rankings.PassagesStddev }},
		{path: "benchmark.datasets.0.rankings.passage_tokens.mean", flag: "rankings-passages-prompt-token-mean", bind: func(t target) any { return &t.cfg.Rankings.PassageTokensMean }},
		{path: "benchmark.datasets.0.rankings.passage_tokens.stddev", flag: "rankings-passages-prompt-token-stddev", bind: func(t target) any { return &t.cfg.Rankings.PassageTokensStddev }},
		{path: "benchmark.datasets.0.rankings.query_tokens.mean", flag: "rankings-query-prompt-token-mean", bind: func(t target) any { return &t.cfg.Rankings.QueryTokensMean }},
		{path: "benchmark.datasets.0.rankings.query_tokens.stddev", flag: "rankings-query-prompt-token-stddev", bind: func(t target) any { return &t.cfg.Rankings.QueryTokensStddev }},
		{path: "benchmark.datasets.0.synthesis.speedup_ratio", flag: "synthesis-speedup-ratio", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.SpeedupRatio },
			doc: "Trace synthesis: divide the timestamps by this."},
		{path: "benchmark.datasets.0.synthesis.prefix_len_multiplier", flag: "synthesis-prefix-len-multiplier", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.PrefixLenMultiplier }},
		{path: "benchmark.datasets.0.synthesis.prefix_root_multiplier", flag: "synthesis-prefix-root-multiplier", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.PrefixRootMultiplier }},
		{path: "benchmark.datasets.0.synthesis.prompt_len_multiplier", flag: "synthesis-prompt-len-multiplier", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.PromptLenMultiplier }},
		{path: "benchmark.datasets.0.synthesis.output_len_multiplier", flag: "synthesis-output-len-multiplier", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.OutputLenMultiplier }},
		{path: "benchmark.datasets.0.synthesis.max_isl", flag: "synthesis-max-isl", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.MaxISL }},
		{path: "benchmark.datasets.0.synthesis.max_osl", flag: "synthesis-max-osl", bind: func(t target) any { return &t.cfg.Dataset.Synthesis.MaxOSL }},
		{path: "benchmark.datasets.0.synthesis.allow_dataset_wrap", flag: "allow-dataset-wrap", bind: func(t target) any { return &t.cfg.Dataset.AllowDatasetWrap }},

		// Profiling phase.
		{path: "benchmark.phases.profiling.name"},
		{path: "benchmark.phases.profiling.kind"},
		{path: "benchmark.phases.profiling.exclude_from_results", conv: &mustBeFalseConv},
		{path: "benchmark.phases.profiling.type", flag: "arrival-pattern,fixed-schedule", bind: func(t target) any { return t.cfg }, conv: &phaseTypeConv,
			doc: "concurrency (a fixed number in flight), poisson, gamma or constant (request-rate arrivals), or fixed_schedule (the dataset's timestamps)."},
		{path: "benchmark.phases.profiling.auto_offset", flag: "fixed-schedule-auto-offset", bind: func(t target) any { return &t.cfg.Replay.AutoOffset }},
		{path: "benchmark.phases.profiling.start_offset", flag: "fixed-schedule-start-offset", bind: func(t target) any { return &t.cfg.Replay.StartOffset },
			doc: "fixed_schedule: first timestamp to replay, in ms."},
		{path: "benchmark.phases.profiling.end_offset", flag: "fixed-schedule-end-offset", bind: func(t target) any { return &t.cfg.Replay.EndOffset }},
		{path: "benchmark.phases.profiling.sessions", flag: "num-sessions", bind: func(t target) any { return &t.cfg.Conversation.NumSessions },
			doc: "Stop after this many conversations."},
		{path: "benchmark.phases.profiling.requests", flag: "request-count", bind: func(t target) any { return &t.cfg.Load.RequestCount }},
		{path: "benchmark.phases.profiling.duration", flag: "benchmark-duration", bind: func(t target) any { return &t.cfg.Load.BenchmarkDuration }, conv: &durationConv,
			doc: "Stop issuing requests after this long: seconds or \"120s\", \"5m\"."},
		{path: "benchmark.phases.profiling.concurrency", flag: "concurrency", bind: func(t target) any { return &t.cfg.Load.Concurrency }},
		{path: "benchmark.phases.profiling.rate", flag: "request-rate", bind: func(t target) any { return &t.cfg.Load.RequestRate }},
		{path: "benchmark.phases.profiling.smoothness", flag: "arrival-smoothness", bind: func(t target) any { return &t.cfg.Load.ArrivalSmoothness }},
		{path: "benchmark.phases.profiling.grace_period", flag: "benchmark-grace-period", bind: func(t target) any { return &t.cfg.Load.BenchmarkGracePeriod }, conv: &durationConv},
		{path: "benchmark.phases.profiling.cancellation.rate", flag: "request-cancellation-rate", bind: func(t target) any { return &t.cfg.Load.RequestCancellationRate }},
		{path: "benchmark.phases.profiling.cancellation.delay", flag: "request-cancellation-delay", bind: func(t target) any { return &t.cfg.Load.RequestCancellationDelay }, conv: &durationConv},
		{path: "benchmark.phases.profiling.failed_request_threshold", flag: "failed-request-threshold", bind: func(t target) any { return &t.cfg.Load.FailedRequestThreshold }},
		// Load shapes.
		{path: "benchmark.phases.profiling.users", flag: "num-users", bind: func(t target) any { return &t.cfg.Shape.NumUsers },
			doc: "user_centric phases: the users sharing the rate."},
		{path: "benchmark.phases.profiling.user_centric_rate", flag: "user-centric-rate", bind: func(t target) any { return &t.cfg.Shape.UserCentricRate },
			doc: "A user_centric phase's rate: key lands here (the users' shared QPS)."},
		{path: "benchmark.phases.profiling.concurrency_ramp", flag: "concurrency-ramp-duration", bind: func(t target) any { return &t.cfg.Shape.ConcurrencyRamp }, conv: &rampConv,
			doc: "Ramp the concurrency from 1: seconds, or {duration, strategy: linear|exponential|poisson}."},
		{path: "benchmark.phases.profiling.prefill_concurrency", flag: "prefill-concurrency", bind: func(t target) any { return &t.cfg.Shape.PrefillConcurrency },
			doc: "Requests in prefill (sent, no first token yet) at most; streaming only."},
		{path: "benchmark.phases.profiling.prefill_ramp", flag: "prefill-concurrency-ramp-duration", bind: func(t target) any { return &t.cfg.Shape.PrefillRamp }, conv: &rampConv},
		{path: "benchmark.phases.profiling.rate_ramp", flag: "request-rate-ramp-duration", bind: func(t target) any { return &t.cfg.Shape.RateRamp }, conv: &rampConv},
		{path: "benchmark.phases.profiling.rate_series", flag: "request-rate-series", bind: func(t target) any { return &t.cfg.Shape }, conv: &rateSeriesConv,
			doc: "A piecewise-linear rate: a JSON file, or a list of {time_s, qps}; replaces rate."},
		{path: "benchmark.phases.profiling.sla", bind: func(t target) any { return &t.cfg.Shape.SLA }, conv: &slaConv,
			doc: "SLA filters for adaptive_scale: {metric: {stat: {op: threshold}}}."},
		{path: "benchmark.phases.profiling.timing_mode", bind: func(t target) any { return &t.cfg.Shape.TimingMode }, conv: &choiceConv,
			doc: "agentic_replay: replay Weka agent traces from sampled mid-trace starts (AIPerf's agentic_replay timing mode); unset follows type."},
		{path: "benchmark.phases.profiling.trajectory_start_min_ratio", flag: "trajectory-start-min-ratio", bind: func(t target) any { return &t.cfg.Shape.TrajectoryStartMinRatio }},
		{path: "benchmark.phases.profiling.trajectory_start_max_ratio", flag: "trajectory-start-max-ratio", bind: func(t target) any { return &t.cfg.Shape.TrajectoryStartMaxRatio }},
		{path: "benchmark.phases.profiling.burst_phase_starts", flag: "burst-phase-starts", bind: func(t target) any { return &t.cfg.Shape.BurstPhaseStarts }},
		{path: "benchmark.phases.profiling.system_idle_gap_cap_seconds", flag: "system-idle-gap-cap-seconds", bind: func(t target) any { return &t.cfg.Shape.SystemIdleGapCapSeconds }},
		{path: "benchmark.phases.profiling.agentic_cache_warmup_duration", flag: "agentic-cache-warmup-duration", bind: func(t target) any { return &t.cfg.Shape.AgenticCacheWarmup }},
		{path: "benchmark.phases.profiling.agentic_warmup_grace_period", flag: "agentic-warmup-grace-period", bind: func(t target) any { return &t.cfg.Shape.AgenticWarmupGracePeriod }},
		{path: "benchmark.phases.profiling.seamless", unsupported: true},
		{path: "benchmark.phases.profiling.adaptive_scale", bind: func(t target) any { return &t.cfg.Shape.Adaptive }, conv: &adaptiveConv,
			doc: "Online load search: {control: {variable, min, max}, assessment_period, sustain_duration, min_completed_requests, strategy: {type: ramp_until_fail, step_policy, base_step, max_step_multiplier, step_percent}, sla}."},

		// Warmup phase.
		{path: "benchmark.phases.warmup.name"},
		{path: "benchmark.phases.warmup.kind"},
		{path: "benchmark.phases.warmup.exclude_from_results", conv: &mustBeTrueConv},
		{path: "benchmark.phases.warmup.requests", flag: "warmup-request-count", bind: func(t target) any { return &t.cfg.Warmup.RequestCount }},
		{path: "benchmark.phases.warmup.sessions", flag: "num-warmup-sessions", bind: func(t target) any { return &t.cfg.Conversation.NumWarmupSessions }},
		{path: "benchmark.phases.warmup.duration", flag: "warmup-duration", bind: func(t target) any { return &t.cfg.Warmup.Duration }, conv: &durationConv},
		{path: "benchmark.phases.warmup.type", flag: "warmup-arrival-pattern", bind: func(t target) any { return &t.cfg.Shape.Warmup.ArrivalPattern }, conv: &warmupTypeConv,
			doc: "concurrency, poisson, gamma or constant: the warmup's own load mode."},
		{path: "benchmark.phases.warmup.concurrency", flag: "warmup-concurrency", bind: func(t target) any { return &t.cfg.Shape.Warmup.Concurrency }},
		{path: "benchmark.phases.warmup.rate", flag: "warmup-request-rate", bind: func(t target) any { return &t.cfg.Shape.Warmup.RequestRate }},
		{path: "benchmark.phases.warmup.prefill_concurrency", flag: "warmup-prefill-concurrency", bind: func(t target) any { return &t.cfg.Shape.Warmup.PrefillConcurrency }},
		{path: "benchmark.phases.warmup.grace_period", flag: "warmup-grace-period", bind: func(t target) any { return &t.cfg.Shape.Warmup.GracePeriod }, conv: &durationConv},
		{path: "benchmark.phases.warmup.concurrency_ramp", flag: "warmup-concurrency-ramp-duration", bind: func(t target) any { return &t.cfg.Shape.Warmup.ConcurrencyRamp }, conv: &rampConv},
		{path: "benchmark.phases.warmup.prefill_ramp", flag: "warmup-prefill-concurrency-ramp-duration", bind: func(t target) any { return &t.cfg.Shape.Warmup.PrefillRamp }, conv: &rampConv},
		{path: "benchmark.phases.warmup.rate_ramp", flag: "warmup-request-rate-ramp-duration", bind: func(t target) any { return &t.cfg.Shape.Warmup.RateRamp }, conv: &rampConv},

		// Goodput, artifacts, tokenizer.
		{path: "benchmark.slos", flag: "goodput", bind: func(t target) any { return &t.cfg.Input.Goodput },
			doc: "Goodput SLOs: metric tag -> threshold in the metric's display unit (ms for latencies)."},
		{path: "benchmark.artifacts.dir", flag: "output-artifact-dir", bind: func(t target) any { return &t.cfg.Output }, conv: &artifactDirConv,
			doc: "Output directory."},
		{path: "benchmark.artifacts.prefix", flag: "profile-export-prefix", bind: func(t target) any { return &t.cfg.Output.ProfileExportPrefix }},
		{path: "benchmark.artifacts.slice_duration", flag: "slice-duration", conv: &durationConv, bind: func(t target) any { return &t.cfg.Visuals.SliceDurationSeconds },
			doc: "Width of the time slices of profile_export_aiperf_timeslices.{json,csv}: seconds or a duration (\"10s\")."},
		{path: "benchmark.artifacts.auto_plot", flag: "auto-plot", bind: func(t target) any { return &t.cfg.Visuals.AutoPlot },
			doc: "Run `aiperf plot` on the artifact directory after the run; defaults to on when the file has a plot: section."},
		{path: "benchmark.artifacts.plot_required", flag: "plot-required", bind: func(t target) any { return &t.cfg.Visuals.PlotRequired },
			doc: "Fail the command when the automatic plot fails."},
		{path: "benchmark.tokenizer.name", flag: "tokenizer", bind: func(t target) any { return &t.cfg.Tokenizer.Name },
			doc: "Tokenizer name or \"builtin\"; defaults to the model name."},
		{path: "benchmark.tokenizer.revision", flag: "tokenizer-revision", bind: func(t target) any { return &t.cfg.Tokenizer.Revision }},
		{path: "benchmark.tokenizer.trust_remote_code", flag: "tokenizer-trust-remote-code", bind: func(t target) any { return &t.cfg.Tokenizer.TrustRemoteCode }},
		{path: "benchmark.tokenizer.apply_chat_template", flag: "apply-chat-template", bind: func(t target) any { return &t.cfg.Tokenizer.ApplyChatTemplate }},

		// Network latency calibration and HTTP trace export.
		{path: "benchmark.network_latency.enabled", flag: "network-latency-automatic", bind: func(t target) any { return &t.cfg.Fidelity.NetworkLatencyEnabled },
			doc: "Subtract the network round trip from request-start-anchored latencies (network_adjusted_* metrics): probed every ping_interval, or mean_ms when given."},
		{path: "benchmark.network_latency.mean_ms", flag: "network-latency-mean", bind: func(t target) any { return &t.cfg.Fidelity.NetworkLatencyMeanMS },
			doc: "A fixed round trip in milliseconds, subtracted instead of probing."},
		{path: "benchmark.network_latency.ping_interval", flag: "network-latency-ping-interval", bind: func(t target) any { return &t.cfg.Fidelity.NetworkLatencyPingInterval }, conv: &durationConv,
			doc: "Seconds between round-trip probes (default 1)."},
		{path: "benchmark.artifacts.trace", flag: "export-http-trace", bind: func(t target) any { return &t.cfg.Fidelity.ExportHTTPTrace },
			doc: "Write each request's HTTP trace data (trace_data) into profile_export.jsonl."},
		{path: "benchmark.artifacts.show_trace_timing", flag: "show-trace-timing", bind: func(t target) any { return &t.cfg.Fidelity.ShowTraceTiming },
			doc: "Print the HTTP trace timing table in the console."},
		{path: "benchmark.endpoint.pre_connect", flag: "pre-connect", bind: func(t target) any { return &t.cfg.Fidelity.PreConnect },
			doc: "Connections to open to each server before the first request: auto or a number (not an AIPerf key)."},

		// AIPerf sections not implemented here.
		{path: "benchmark.logging", unsupported: true},
		{path: "benchmark.metrics", unsupported: true},

		// Multi-run and sweep settings (the sweep's shape is parsed by parseSweep).
		{path: "multi_run.num_runs", flag: "num-profile-runs", bind: func(t target) any { return &t.cfg.Experiment.NumProfileRuns },
			doc: "Profile runs per variation (1-10); more than one adds confidence intervals."},
		{path: "multi_run.cooldown_seconds", flag: "profile-run-cooldown-seconds", bind: func(t target) any { return &t.cfg.Experiment.ProfileRunCooldownSeconds }, conv: &durationConv},
		{path: "multi_run.confidence_level", flag: "confidence-level", bind: func(t target) any { return &t.cfg.Experiment.ConfidenceLevel }},
		{path: "multi_run.set_consistent_seed", flag: "set-consistent-seed", bind: func(t target) any { return &t.cfg.Experiment.SetConsistentSeed }},
		{path: "multi_run.disable_warmup_after_first", flag: "profile-run-disable-warmup-after-first", bind: func(t target) any { return &t.cfg.Experiment.DisableWarmupAfterFirst }},
		{path: "multi_run.vary_seed_per_trial", flag: "vary-seed-per-trial", bind: func(t target) any { return &t.cfg.Experiment.VarySeedPerTrial },
			doc: "Give each trial its own seed (SHA-256 of random_seed, variation label and trial)."},
		{path: "multi_run.convergence.metric", flag: "convergence-metric", bind: func(t target) any { return &t.cfg.Experiment.ConvergenceMetric },
			doc: "Stop repeating a variation once its runs agree on this metric; num_runs is then the most runs."},
		{path: "multi_run.convergence.stat", flag: "convergence-stat", bind: func(t target) any { return &t.cfg.Experiment.ConvergenceStat }},
		{path: "multi_run.convergence.mode", flag: "convergence-mode", bind: func(t target) any { return &t.cfg.Experiment.ConvergenceMode }, conv: &choiceConv,
			doc: "ci_width (default), cv or distribution."},
		{path: "multi_run.convergence.threshold", flag: "convergence-threshold", bind: func(t target) any { return &t.cfg.Experiment.ConvergenceThreshold }},
		{path: "multi_run.convergence.min_runs", bind: func(t target) any { return &t.cfg.Experiment.ConvergenceMinRuns },
			doc: "Runs before the first convergence check (at least 2, the default)."},
		{path: "sweep.same_seed", flag: "parameter-sweep-same-seed", bind: func(t target) any { return &t.cfg.Experiment.ParameterSweepSameSeed },
			doc: "Give every variation random_seed instead of random_seed + index."},
		{path: "sweep.cooldown_seconds", flag: "parameter-sweep-cooldown-seconds", bind: func(t target) any { return &t.cfg.Experiment.ParameterSweepCooldownSeconds }, conv: &durationConv},
		{path: "sweep.iteration_order", flag: "parameter-sweep-mode", bind: func(t target) any { return &t.cfg.Experiment.ParameterSweepMode }, conv: &choiceConv,
			doc: "repeated (trials outer, the default) or independent."},
		{path: "no_sweep_table", flag: "no-sweep-table", bind: func(t target) any { return &t.cfg.Experiment.NoSweepTable }},
	}, slices.Concat(telemetryFields(), integrationFields(), compatFields())...) // telemetry, integrations, compat
}

// templateOf returns the config's endpoint template section, creating it
// (a config file naming endpoint.template wants the template endpoint).
func templateOf(t target) *config.TemplateConfig {
	if t.cfg.Endpoint.Template == nil {
		t.cfg.Endpoint.Template = &config.TemplateConfig{}
	}
	return t.cfg.Endpoint.Template
}
