package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// Help groups of `aiperf profile`, in the order help prints them. The names
// are AIPerf's panel titles.
const (
	groupEndpoint = "Endpoint"
	groupInput    = "Input"
	groupConv     = "Conversation Input"
	groupTok      = "Tokenizer"
	groupISL      = "Input Sequence Length (ISL)"
	groupOSL      = "Output Sequence Length (OSL)"
	groupLoad     = "Load Generator"
	groupWarmup   = "Warmup"
	groupGoodput  = "Goodput"
	groupOutput   = "Output"
	groupUI       = "UI"
	groupService  = "Service"
	groupFixed    = "Fixed Schedule"
	groupAudio    = "Audio Input"
	groupImage    = "Image Input"
	groupPrompt   = "Prompt"
	groupPrefix   = "Prefix Prompt"
)

// profileGroups lists the help groups in print order.
func profileGroups() []string {
	return []string{
		groupEndpoint, groupInput, groupConv, groupTok, groupISL, groupOSL, groupPrompt, groupPrefix, groupCacheBust, groupRankings, groupSynthesis, groupAudio, groupImage, groupVideo,
		groupLoad, groupFixed, groupWarmup, groupUserCentric, groupGoodput, groupOutput, groupUI, groupService, groupAccuracy, groupNetwork, groupHTTPTrace, groupNetworkLatency, groupServerMetrics, groupGPUTelemetry, groupMultiRun, groupAnalysis, groupCluster,
	}
}

// Flag annotation keys read by the help renderer.
const (
	annGroup   = "aiperf_group"   // one value: the help group
	annAliases = "aiperf_aliases" // alias spellings, with dashes
	annDefault = "aiperf_default" // default shown in help, when not DefValue
	annChoices = "aiperf_choices" // accepted values shown in help
	annMeta    = "aiperf_meta"    // value placeholder, e.g. "<n>"
)

// multiValueFlags are the flags that, as in AIPerf, take several values
// after one flag name (`--extra-inputs a:1 b:2`, `-u host1 host2`).
func multiValueFlags() map[string]bool {
	return map[string]bool{"url": true, "extra-inputs": true, "header": true,
		"server-metrics": true, "server-metrics-formats": true, "gpu-telemetry": true,
		"stream": true, "otel-resource-attributes": true, "mlflow-tag": true, "mlflow-artifact-glob": true, "wandb-tag": true, "accuracy-tasks": true}

}

// flagBuilder registers profile flags bound to a Config, recording aliases
// for the normaliser and help annotations as it goes.
type flagBuilder struct {
	fs      *pflag.FlagSet
	probs   *problemList
	aliases map[string]string // alias (kebab-case) -> canonical name
	group   string
}

// spec describes one flag beyond its value.
type spec struct {
	name, short string
	aliases     []string // long aliases without dashes
	usage       string
	meta        string   // value placeholder; "" for booleans
	def         string   // default shown in help; "" = none
	choices     []string // shown in help
}

// add registers v under s and returns the flag.
func (b *flagBuilder) add(v pflag.Value, s spec) *pflag.Flag {
	f := b.fs.VarPF(v, s.name, s.short, s.usage)
	if _, ok := v.(*boolValue); ok {
		f.NoOptDefVal = "true"
	}
	f.DefValue = s.def
	ann := map[string][]string{annGroup: {b.group}}
	if len(s.aliases) > 0 {
		names := make([]string, len(s.aliases))
		for i, a := range s.aliases {
			b.aliases[a] = s.name
			names[i] = "--" + a
		}
		ann[annAliases] = names
	}
	if s.meta != "" {
		ann[annMeta] = []string{s.meta}
	}
	if len(s.choices) > 0 {
		ann[annChoices] = s.choices
	}
	f.Annotations = ann
	return f
}

// rec returns a recorder for flag name.
func (b *flagBuilder) rec(name string) recorder { return recorder{flag: "--" + name, probs: b.probs} }

// normalizer maps every alias and snake_case spelling to the canonical
// flag name, so "--request_count", "--num-requests" and "--num_requests"
// all set --request-count.
func normalizer(aliases map[string]string) func(*pflag.FlagSet, string) pflag.NormalizedName {
	return func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		n := strings.ReplaceAll(name, "_", "-")
		if c, ok := aliases[n]; ok {
			return pflag.NormalizedName(c)
		}
		return pflag.NormalizedName(n)
	}
}

// strs converts enum values for help.
func strs[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// registerProfileFlags defines every `aiperf profile` flag on fs, bound to
// cfg. Problems found while parsing values go to probs.
func registerProfileFlags(fs *pflag.FlagSet, cfg *config.Config, probs *problemList) {
	b := &flagBuilder{fs: fs, probs: probs, aliases: map[string]string{}}
	fs.SetNormalizeFunc(normalizer(b.aliases))
	fs.SortFlags = false

	e, in, l := &cfg.Endpoint, &cfg.Input, &cfg.Load

	b.addConfigFileFlags(cfg)

	b.group = groupEndpoint
	b.add(&listValue{recorder: b.rec("model-names"), p: &e.ModelNames}, spec{
		name: "model-names", short: "m", aliases: []string{"model"}, meta: "<names>",
		usage: "Model(s) to benchmark, comma-separated or by repeating the flag. Required.",
	})
	b.add(&stringValue{recorder: b.rec("custom-endpoint"), p: &e.CustomEndpoint}, spec{
		name: "custom-endpoint", aliases: []string{"endpoint"}, meta: "<path>",
		usage: "Request path to use instead of the endpoint type's standard one (/v1/chat/completions for chat, /v1/embeddings for embeddings, ...), for servers that mount the API elsewhere.",
	})
	b.add(&choiceValue[config.EndpointType]{recorder: b.rec("endpoint-type"), p: &e.Type, normalize: normalizeChoice[config.EndpointType]}, spec{
		name: "endpoint-type", meta: "<type>", def: string(config.DefaultEndpointType),
		choices: strs(config.SupportedEndpointTypes()),
		usage:   "API to benchmark; it decides the request and response format, the URL path and which metrics apply (aiperf plugins endpoint lists them).",
	})
	b.add(&boolValue{recorder: b.rec("streaming"), p: &e.Streaming}, spec{
		name:  "streaming",
		usage: "Ask for streamed (SSE) responses, which is what makes time to first token and inter-token latency measurable.",
	})
	b.add(&listValue{recorder: b.rec("url"), p: &e.URLs, each: config.NormalizeURL}, spec{
		name: "url", short: "u", meta: "<url>", def: config.DefaultURL,
		usage: "Base URL of the server. Give several (repeated, comma-separated or space-separated) to spread requests over them round-robin. http:// is added when no scheme is given; the endpoint path is appended.",
	})
	b.add(&boolValue{recorder: b.rec("mock-server"), p: &e.MockServer}, spec{
		name:  "mock-server",
		usage: "Start the built-in OpenAI-compatible mock server on a free loopback port and benchmark it instead of --url: a first run that needs no inference server. Not an AIPerf option.",
	})
	b.add(&floatValue{recorder: b.rec("request-timeout-seconds"), p: &e.TimeoutSeconds}, spec{
		name: "request-timeout-seconds", meta: "<seconds>", def: formatFloat(config.DefaultRequestTimeout),
		usage: "Longest a single request may take, from connecting to the last byte; slower requests are cancelled and counted as failed.",
	})
	b.add(&floatValue{recorder: b.rec("wait-for-model-timeout"), p: &e.WaitForModelTimeout}, spec{
		name: "wait-for-model-timeout", meta: "<seconds>", def: "0",
		usage: "Wait up to this many seconds for the endpoint to answer readiness probes before benchmarking; 0 skips the wait.",
	})
	b.add(&choiceValue[config.WaitForModelMode]{recorder: b.rec("wait-for-model-mode"), p: &e.WaitForModelMode, normalize: normalizeChoice[config.WaitForModelMode]}, spec{
		name: "wait-for-model-mode", meta: "<mode>",
		def:     string(config.DefaultWaitForModelMode),
		choices: strs(config.WaitForModelModes()),
		usage:   "How readiness is probed: models = GET /v1/models lists the model; inference = a one-token request is answered with a status below 500 (a 4xx means the server is up); both = models, then inference.",
	})
	b.add(&floatValue{recorder: b.rec("wait-for-model-interval"), p: &e.WaitForModelInterval}, spec{
		name: "wait-for-model-interval", meta: "<seconds>", def: formatFloat(config.DefaultWaitForModelInterval),
		usage: "Seconds between readiness probes.",
	})
	b.add(&secretValue{recorder: b.rec("api-key"), p: &e.APIKey}, spec{
		name: "api-key", meta: "<key>",
		usage: "API key, sent as \"Authorization: Bearer <key>\" (as x-api-key for --endpoint-type messages). Redacted from every artifact.",
	})
	b.add(&boolValue{recorder: b.rec("use-legacy-max-tokens"), p: &e.UseLegacyMaxTokens}, spec{
		name:  "use-legacy-max-tokens",
		usage: "Send the output length limit as max_tokens instead of max_completion_tokens, for servers that predate the newer field.",
	})
	b.add(&boolValue{recorder: b.rec("use-server-token-count"), p: &e.UseServerTokenCount}, spec{
		name:  "use-server-token-count",
		usage: "Count tokens from the server's usage fields instead of tokenizing on the client; streamed requests then ask for usage with stream_options.include_usage.",
	})

	b.group = groupInput
	b.add(&extraInputsValue{recorder: b.rec("extra-inputs"), p: &in.Extra}, spec{
		name: "extra-inputs", meta: "<key:value>",
		usage: "Field to add to every request body, as key:value (the value is read as JSON when it is valid JSON, else as a string) or as a JSON object. Repeat it or list several.",
	})
	b.add(&headersValue{recorder: b.rec("header"), p: &in.Headers}, spec{
		name: "header", short: "H", meta: "<name:value>",
		usage: "HTTP header to send with every request, as Name:Value or a JSON object. Repeat it or list several. Credential-like values are redacted from artifacts.",
	})
	b.add(&int64PtrValue{recorder: b.rec("random-seed"), p: &in.RandomSeed}, spec{
		name: "random-seed", meta: "<n>",
		usage: "Seed for the synthetic data and arrival times, making runs repeatable. Random when not given.",
	})

	b.group = groupConv
	b.add(&intPtrValue{recorder: b.rec("num-dataset-entries"), p: &in.NumDatasetEntries}, spec{
		name: "num-dataset-entries", aliases: []string{"num-prompts"}, meta: "<n>",
		def:   "100, or --request-count when given",
		usage: "Number of distinct synthetic prompts; requests cycle through them.",
	})

	b.addDatasetFlags(cfg)
	b.addWorkloadFlags(cfg)
	b.addPromptSourceFlags(cfg)
	b.addSynthesisFlags(cfg)
	b.addConversationFlags(cfg)
	b.addPromptFlags(cfg)

	b.group = groupTok
	b.add(&stringValue{recorder: b.rec("tokenizer"), p: &cfg.Tokenizer.Name}, spec{
		name: "tokenizer", meta: "<name>",
		usage: "Tokenizer used to size prompts and count tokens: \"builtin\" (tiktoken o200k_base, no network) or a tokenizer name. Defaults to the model name; placeholder names such as mock-model use builtin.",
	})
	b.add(&stringValue{recorder: b.rec("tokenizer-revision"), p: &cfg.Tokenizer.Revision}, spec{
		name: "tokenizer-revision", meta: "<revision>", def: config.DefaultTokenizerRevision,
		usage: "HuggingFace hub revision (branch, tag or commit) of the tokenizer to download.",
	})
	b.add(&boolValue{recorder: b.rec("tokenizer-trust-remote-code"), p: &cfg.Tokenizer.TrustRemoteCode}, spec{
		name:  "tokenizer-trust-remote-code",
		usage: "Accepted for AIPerf compatibility. Nothing is executed: tokenizers are read from tokenizer.json, which is data, so repositories that need custom Python code are not supported.",
	})
	b.add(&boolValue{recorder: b.rec("apply-chat-template"), p: &cfg.Tokenizer.ApplyChatTemplate}, spec{
		name:  "apply-chat-template",
		usage: "Count input tokens on the prompt rendered with the tokenizer's chat template (with the generation prompt), and shorten synthetic prompts by the template's overhead so the rendered prompt has the requested length.",
	})

	b.group = groupISL
	b.add(&intValue{recorder: b.rec("prompt-input-tokens-mean"), p: &in.InputTokens.Mean, magic: true}, spec{
		name: "prompt-input-tokens-mean", aliases: []string{"synthetic-input-tokens-mean", "isl"}, meta: "<tokens>",
		def:   "550",
		usage: "Mean length of the synthetic prompts in tokens.",
	})
	b.add(&floatValue{recorder: b.rec("prompt-input-tokens-stddev"), p: &in.InputTokens.Stddev, magic: true}, spec{
		name: "prompt-input-tokens-stddev", aliases: []string{"synthetic-input-tokens-stddev", "isl-stddev"}, meta: "<tokens>",
		def:   "0",
		usage: "Standard deviation of the synthetic prompt lengths (normally distributed); 0 makes every prompt the same length.",
	})

	b.group = groupOSL
	b.add(&intPtrValue{recorder: b.rec("prompt-output-tokens-mean"), p: &in.OutputTokens.Mean, magic: true}, spec{
		name: "prompt-output-tokens-mean", aliases: []string{"output-tokens-mean", "osl"}, meta: "<tokens>",
		usage: "Mean output length to request, sent as max_completion_tokens. When not given, no limit is sent and the model decides. Add --extra-inputs ignore_eos:true for servers that can honour an exact length.",
	})
	b.add(&floatValue{recorder: b.rec("prompt-output-tokens-stddev"), p: &in.OutputTokens.Stddev, magic: true}, spec{
		name: "prompt-output-tokens-stddev", aliases: []string{"output-tokens-stddev", "osl-stddev"}, meta: "<tokens>",
		def:   "0",
		usage: "Standard deviation of the requested output lengths; used only with --prompt-output-tokens-mean.",
	})

	b.addMediaFlags(cfg)
	b.addEndpointFlags(cfg) // rest of Endpoint, Rankings, Video Input

	b.group = groupLoad
	b.add(&floatPtrValue{recorder: b.rec("benchmark-duration"), p: &l.BenchmarkDuration, magic: true}, spec{
		name: "benchmark-duration", meta: "<seconds>",
		usage: "Stop sending new requests after this many seconds. With --request-count as well, whichever limit is reached first ends the run.",
	})
	b.add(&secondsPtrValue{recorder: b.rec("benchmark-grace-period"), p: &l.BenchmarkGracePeriod}, spec{
		name: "benchmark-grace-period", meta: "<seconds>", def: formatFloat(config.DefaultBenchmarkGracePeriod),
		usage: "How long to wait for in-flight responses after --benchmark-duration (which it requires); responses that arrive in time count. \"inf\" waits for all of them.",
	})
	b.add(&intPtrValue{recorder: b.rec("concurrency"), p: &l.Concurrency, magic: true}, spec{
		name: "concurrency", meta: "<n>",
		def:   "1, or unlimited with --request-rate",
		usage: "Number of requests kept in flight: a new one starts as soon as one finishes. With --request-rate it caps the requests in flight instead.",
	})
	b.add(&floatPtrValue{recorder: b.rec("request-rate"), p: &l.RequestRate, magic: true}, spec{
		name: "request-rate", meta: "<per-second>",
		usage: "Send requests at this average rate (fractions allowed, 0.5 = one every 2 s), spaced by --arrival-pattern, instead of keeping a fixed number in flight.",
	})
	b.add(&choiceValue[config.ArrivalPattern]{recorder: b.rec("arrival-pattern"), p: &l.ArrivalPattern, normalize: normalizeChoice[config.ArrivalPattern]}, spec{
		name: "arrival-pattern", aliases: []string{"request-rate-mode"}, meta: "<pattern>",
		def:     string(config.ArrivalPoisson),
		choices: strs(config.ArrivalPatterns()),
		usage:   "How --request-rate spaces requests (it requires --request-rate): constant = evenly, poisson = exponential gaps, gamma = gaps whose regularity --arrival-smoothness sets. concurrency_burst is the no-rate mode.",
	})
	b.add(&floatPtrValue{recorder: b.rec("arrival-smoothness"), p: &l.ArrivalSmoothness}, spec{
		name: "arrival-smoothness", aliases: []string{"vllm-burstiness"}, meta: "<shape>",
		def:   formatFloat(config.DefaultArrivalSmoothness),
		usage: "Shape of the gamma arrival pattern (implies --arrival-pattern gamma): 1 behaves like poisson, below 1 is burstier, above 1 is more regular. Same meaning as vLLM's --burstiness.",
	})
	b.add(&intPtrValue{recorder: b.rec("request-count"), p: &l.RequestCount, magic: true}, spec{
		name: "request-count", aliases: []string{"num-requests"}, meta: "<n>",
		def:   "max(10, 2 x concurrency) unless --benchmark-duration is given",
		usage: "Number of requests to send before stopping.",
	})
	b.add(&floatPtrValue{recorder: b.rec("request-cancellation-rate"), p: &l.RequestCancellationRate}, spec{
		name: "request-cancellation-rate", meta: "<percent>",
		usage: "Cancel this percentage (0-100] of requests on purpose, to test how the server handles cancellation; they are recorded with error code 499.",
	})
	b.add(&floatValue{recorder: b.rec("request-cancellation-delay"), p: &l.RequestCancellationDelay}, spec{
		name: "request-cancellation-delay", meta: "<seconds>", def: "0",
		usage: "Seconds after a request is fully sent before it is cancelled (requires --request-cancellation-rate); a response that completes first is kept.",
	})
	b.add(&floatPtrValue{recorder: b.rec("failed-request-threshold"), p: &l.FailedRequestThreshold}, spec{
		name: "failed-request-threshold", meta: "<fraction>",
		usage: "Abort the run, with artifacts written and exit code 3, when the fraction (0-1) of failed requests exceeds this; checked once max(concurrency, 10) requests have completed.",
	})

	b.addReplayFlags(cfg)
	b.addReliabilityFlags(cfg)
	b.addNetworkFlags(cfg)
	b.addFidelityFlags(cfg) // --pre-connect, HTTP Trace, Network Latency
	b.addExperimentFlags(cfg)
	b.addLoadShapeFlags(cfg)
	b.addAnalysisFlags(cfg)

	b.group = groupWarmup
	b.add(&intPtrValue{recorder: b.rec("warmup-request-count"), p: &cfg.Warmup.RequestCount}, spec{
		name: "warmup-request-count", aliases: []string{"num-warmup-requests"}, meta: "<n>",
		usage: "Send this many warmup requests, excluded from the results, before profiling starts. No warmup when neither warmup flag is given.",
	})
	b.add(&floatPtrValue{recorder: b.rec("warmup-duration"), p: &cfg.Warmup.Duration}, spec{
		name: "warmup-duration", meta: "<seconds>",
		usage: "Run the warmup for at most this many seconds; with --warmup-request-count, whichever is reached first ends it.",
	})

	b.group = groupGoodput
	b.add(&goodputValue{recorder: b.rec("goodput"), p: &in.Goodput}, spec{
		name: "goodput", meta: "<metric:value ...>",
		usage: "Service level objectives for goodput, as space-separated metric:value pairs in the metric's display unit (ms for latencies), e.g. \"time_to_first_token:200 inter_token_latency:20\". A request is good when it meets all of them (the DistServe definition).",
	})

	b.group = groupOutput
	b.add(&stringValue{recorder: b.rec("output-artifact-dir"), p: &cfg.Output.ArtifactDir}, spec{
		name: "output-artifact-dir", aliases: []string{"artifact-dir"}, meta: "<dir>",
		def:   config.DefaultArtifactDir,
		usage: "Directory for the results, created if needed. When not given, each run writes to a subdirectory of artifacts/ named after the model, endpoint and load.",
	})
	b.add(&stringValue{recorder: b.rec("profile-export-prefix"), p: &cfg.Output.ProfileExportPrefix}, spec{
		name: "profile-export-prefix", aliases: []string{"profile-export-file"}, meta: "<name>",
		usage: "Base name for every exported file (name.json, name.csv, name.jsonl, ...) instead of the standard profile_export* names.",
	})
	b.add(&choiceValue[config.ExportLevel]{recorder: b.rec("export-level"), p: &cfg.Output.ExportLevel, normalize: normalizeChoice[config.ExportLevel]}, spec{
		name: "export-level", aliases: []string{"profile-export-level"}, meta: "<level>",
		def:     string(config.DefaultExportLevel),
		choices: strs(config.ExportLevels()),
		usage:   "Which files to write: summary = aggregate JSON and CSV; records = also one JSONL line per request; raw = also the raw requests and responses.",
	})

	b.addVisualsFlags(cfg)
	b.addTelemetryFlags(cfg)   // Endpoint hooks, Server Metrics, GPU Telemetry; sets b.group
	b.addIntegrationFlags(cfg) // OTel, MLflow, W&B (Output), API (Service), Accuracy
	b.addClusterFlags(cfg)     // --workers

	b.group = groupUI
	b.add(&choiceValue[config.UIType]{recorder: b.rec("ui-type"), p: &cfg.Service.UIType, normalize: normalizeChoice[config.UIType]}, spec{
		name: "ui-type", aliases: []string{"ui"}, meta: "<ui>",
		def:     "dashboard on a terminal, else none",
		choices: strs(config.UITypes()),
		usage:   "Progress display while the benchmark runs. -v and -vv switch to simple.",
	})

	b.group = groupService
	b.add(&choiceValue[config.LogLevel]{recorder: b.rec("log-level"), p: &cfg.Service.LogLevel, normalize: config.NormalizeLogLevel}, spec{
		name: "log-level", meta: "<level>",
		def:     string(config.DefaultLogLevel),
		choices: strs(config.LogLevels()),
		usage:   "Logging threshold (any case).",
	})
	b.add(&boolValue{recorder: b.rec("verbose"), p: &cfg.Service.Verbose}, spec{
		name: "verbose", short: "v",
		usage: "Same as --log-level DEBUG, and the simple UI.",
	})
	f := b.add(&boolValue{recorder: b.rec("extra-verbose"), p: &cfg.Service.ExtraVerbose}, spec{
		name:  "extra-verbose",
		usage: "Same as --log-level TRACE, and the simple UI.",
	})
	// pflag shorthands are one letter; "-vv" is rewritten to
	// --extra-verbose before parsing (see prepareProfileArgs) and shown in
	// help through this annotation.
	f.Annotations[annAliases] = []string{"-vv"}

	b.addCompatFlags(cfg)
}
