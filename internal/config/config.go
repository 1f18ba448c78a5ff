// Package config is the user-facing schema of a benchmark: every `aiperf
// profile` option as plain, serialisable data, its defaults, its validation
// and the pure rules that resolve options whose defaults depend on other
// options (request count, concurrency, UI, ...).
//
// It mirrors the sections of AIPerf's user configuration (endpoint, input,
// tokenizer, loadgen, output, service) and uses AIPerf's snake_case names in
// its JSON tags, so a Config can be written into an artifact as it is.
// Secrets never reach JSON: API keys and credential-bearing header values
// marshal as "<redacted>".
//
// Options whose default depends on whether the user gave them are pointers
// (nil = not given) or enum strings whose empty value means "not given"; the
// resolved value comes from a method of Config (RequestCount, Concurrency,
// ArrivalPattern, UIType, ...), never from reading the field directly.
//
// The package is a leaf: it imports nothing internal, and no domain package
// imports it; the benchmark composition root translates a Config into each
// package's own options.
package config

// Default values of options with a fixed default, as in AIPerf 0.13.
const (
	DefaultURL                  = "http://localhost:8000"
	DefaultEndpointType         = EndpointChat
	DefaultRequestTimeout       = 21600.0 // seconds (6 h)
	DefaultISL                  = 550
	DefaultNumDatasetEntries    = 100
	DefaultBenchmarkGracePeriod = 30.0 // seconds
	DefaultArrivalSmoothness    = 1.0
	DefaultArtifactDir          = "artifacts"
	DefaultTokenizerRevision    = "main"
	DefaultWaitForModelMode     = WaitForInference
	DefaultWaitForModelInterval = 5.0
	DefaultExportLevel          = ExportRecords
	DefaultLogLevel             = LogInfo
	// MinDefaultRequestCount is the floor of the derived request count,
	// max(MinDefaultRequestCount, 2*concurrency).
	MinDefaultRequestCount = 10
)

// Config is every option of one `aiperf profile` run. Start from Defaults;
// call Validate before use.
type Config struct {
	Endpoint  Endpoint  `json:"endpoint"`
	Input     Input     `json:"input"`
	Tokenizer Tokenizer `json:"tokenizer"`
	Load      Load      `json:"loadgen"`
	Warmup    Warmup    `json:"warmup"`
	Output    Output    `json:"output"`
	Service   Service   `json:"service"`

	// Workload shape and experiment structure.
	Dataset      Dataset      `json:"dataset,omitzero"`
	Replay       Replay       `json:"replay,omitzero"`
	Conversation Conversation `json:"conversation,omitzero"`
	Prompt       Prompt       `json:"prompt,omitzero"`
	Media        Media        `json:"media,omitzero"`
	Rankings     Rankings     `json:"rankings,omitzero"`
	Video        Video        `json:"video,omitzero"`
	Experiment   Experiment   `json:"experiment,omitzero"`
	Reliability  Reliability  `json:"reliability,omitzero"`
	Analysis     Analysis     `json:"analysis,omitzero"`
	Search       Search       `json:"search,omitzero"`
	Visuals      Visuals      `json:"visuals,omitzero"`   // timeslices, auto-plot
	Telemetry    Telemetry    `json:"telemetry,omitzero"` // server metrics, GPU telemetry, control hooks

	// Load shapes: prefill concurrency, ramps, rate series,
	// user-centric rate, the warmup's own load, adaptive scale.
	Shape LoadShape `json:"load_shape,omitzero"`

	// The scenario lock and AIPerf's process-model options;
	// outputs.json, the summary switch and user files.
	Compat    Compat    `json:"compat,omitzero"`
	Artifacts Artifacts `json:"artifacts,omitzero"`

	// OTel, MLflow, W&B, the HTTP API and accuracy mode.
	Integrations Integrations `json:"integrations,omitzero"`

	// HTTP trace export, network latency calibration, pre-connect.
	Fidelity Fidelity `json:"fidelity,omitzero"`

	// Scale-out over load-worker processes (--workers).
	Cluster Cluster `json:"cluster,omitzero"`

	// How the HTTP client reaches the servers: engine, HTTP version,
	// TLS, proxies (network.go).
	Network Network `json:"network,omitzero"`

	// Given names the options set on the command line (canonical flag
	// names), so that the input_config block records what the user set
	// even where it equals the default, as AIPerf's does. Provenance, not
	// configuration: not serialised.
	Given []string `json:"-"`
}

// Endpoint is where requests go and how they are shaped (AIPerf's
// "Endpoint" group).
type Endpoint struct {
	// ModelNames are the models to benchmark (-m); at least one is required.
	ModelNames []string `json:"model_names"`
	// CustomEndpoint replaces the endpoint type's default path
	// (e.g. "/v1/chat/completions") when non-empty.
	CustomEndpoint string `json:"custom_endpoint,omitempty"`
	// Type is the API (--endpoint-type).
	Type EndpointType `json:"type"`
	// Streaming asks the server for SSE responses.
	Streaming bool `json:"streaming"`
	// URLs are the servers' base URLs, normalised by NormalizeURL; requests
	// are spread over them round-robin.
	URLs []string `json:"urls"`
	// TimeoutSeconds bounds each request, connection to last byte.
	TimeoutSeconds float64 `json:"timeout_seconds"`
	// APIKey, when set, is sent as "Authorization: Bearer <key>".
	APIKey Secret `json:"api_key,omitempty"`
	// UseLegacyMaxTokens sends max_tokens instead of max_completion_tokens.
	UseLegacyMaxTokens bool `json:"use_legacy_max_tokens"`
	// UseServerTokenCount takes token counts from the server's usage fields
	// instead of the client-side tokenizer.
	UseServerTokenCount bool `json:"use_server_token_count"`
	// WaitForModelTimeout is how long to wait, in seconds, for the endpoint
	// to answer readiness probes before the run; 0 skips the wait.
	WaitForModelTimeout float64 `json:"wait_for_model_timeout"`
	// WaitForModelMode is how readiness is probed.
	WaitForModelMode WaitForModelMode `json:"wait_for_model_mode"`
	// WaitForModelInterval is the pause, in seconds, between probes.
	WaitForModelInterval float64 `json:"wait_for_model_interval"`
	// ConnectionReuse is --connection-reuse-strategy; "" = pooled.
	ConnectionReuse ConnectionReuse `json:"connection_reuse_strategy,omitempty"`
	// MockServer starts the embedded mock server on a free loopback port and
	// benchmarks it instead of URLs (not an AIPerf option).
	MockServer      bool `json:"mock_server,omitempty"`
	EndpointOptions      // model selection, transport, content type, ... (endpoint_options.go)
	AWS                  // SigV4 signing and SageMaker (aws.go)
}

// Input is what goes into each request besides the prompt, and how the
// synthetic prompts are shaped (AIPerf's "Input", "ISL", "OSL" and
// "Goodput" groups).
type Input struct {
	// Extra are body fields merged into every request, in order; a later
	// key overrides an earlier one.
	Extra []ExtraInput `json:"extra,omitempty"`
	// Headers are sent with every request, in order.
	Headers []Header `json:"headers,omitempty"`
	// RandomSeed makes the synthetic data deterministic; nil = random.
	RandomSeed *int64 `json:"random_seed,omitempty"`
	// Goodput maps a metric tag to its SLO in the metric's display unit.
	Goodput map[string]float64 `json:"goodput,omitempty"`
	// NumDatasetEntries is the number of unique prompts; nil = derived, see
	// Config.DatasetEntries.
	NumDatasetEntries *int `json:"num_dataset_entries,omitempty"`
	// InputTokens shapes the synthetic prompt lengths (ISL).
	InputTokens InputTokens `json:"input_tokens"`
	// OutputTokens shapes the requested output lengths (OSL).
	OutputTokens OutputTokens `json:"output_tokens"`
}

// InputTokens is the normal distribution of synthetic prompt lengths in
// tokens.
type InputTokens struct {
	Mean   int     `json:"mean"`
	Stddev float64 `json:"stddev"`
}

// OutputTokens is the normal distribution of requested output lengths in
// tokens. A nil Mean sends no max-tokens field: the model decides.
type OutputTokens struct {
	Mean   *int    `json:"mean,omitempty"`
	Stddev float64 `json:"stddev"`
}

// Tokenizer selects the client-side tokenizer.
type Tokenizer struct {
	// Name is a tokenizer name or "builtin"; empty = the first model name.
	Name string `json:"name,omitempty"`
	// Revision is the HuggingFace hub revision (branch, tag or commit).
	Revision string `json:"revision"`
	// TrustRemoteCode is accepted for AIPerf compatibility; no remote code
	// runs (a tokenizer.json is data).
	TrustRemoteCode bool `json:"trust_remote_code"`
	// ApplyChatTemplate counts ISL on the prompt rendered with the
	// tokenizer's chat template and compensates synthetic ISL for the
	// template's overhead (AIPerf 0.12+).
	ApplyChatTemplate bool `json:"apply_chat_template,omitempty"`
}

// Load is how much load is offered and when the run stops (AIPerf's "Load
// Generator" group). Every field is optional; see the Config methods for
// the resolved values.
type Load struct {
	// Concurrency caps requests in flight; see Config.Concurrency.
	Concurrency *int `json:"concurrency,omitempty"`
	// RequestRate (requests/s) selects request-rate mode when set.
	RequestRate *float64 `json:"request_rate,omitempty"`
	// ArrivalPattern spaces request-rate arrivals; "" = not given.
	ArrivalPattern ArrivalPattern `json:"arrival_pattern,omitempty"`
	// ArrivalSmoothness is the gamma shape parameter; nil = 1.0.
	ArrivalSmoothness *float64 `json:"arrival_smoothness,omitempty"`
	// RequestCount stops the run after this many requests; see
	// Config.RequestCount.
	RequestCount *int `json:"request_count,omitempty"`
	// BenchmarkDuration stops issuing requests after this many seconds.
	BenchmarkDuration *float64 `json:"benchmark_duration,omitempty"`
	// BenchmarkGracePeriod is how long to wait for in-flight responses
	// after BenchmarkDuration; nil = 30 s, +Inf = wait for all.
	BenchmarkGracePeriod *Seconds `json:"benchmark_grace_period,omitempty"`
	// RequestCancellationRate is the percentage (0, 100] of requests to
	// cancel on purpose; nil = none.
	RequestCancellationRate *float64 `json:"request_cancellation_rate,omitempty"`
	// RequestCancellationDelay is how long, in seconds after a request is
	// fully sent, a request chosen for cancellation is cancelled.
	RequestCancellationDelay float64 `json:"request_cancellation_delay,omitempty"`
	// FailedRequestThreshold aborts the run when the failed fraction of
	// completed requests exceeds it (checked once max(concurrency, 10)
	// records are in); nil = never abort.
	FailedRequestThreshold *float64 `json:"failed_request_threshold,omitempty"`
}

// Warmup is the optional phase run before profiling whose requests are
// excluded from the results. It runs when either field is set.
type Warmup struct {
	RequestCount *int     `json:"warmup_request_count,omitempty"`
	Duration     *float64 `json:"warmup_duration,omitempty"`
}

// Output is where and what artifacts are written.
type Output struct {
	// ArtifactDir is the output directory. When it was not given
	// (ArtifactDirExplicit false), runs write into a per-run subdirectory
	// named after model, endpoint and load, as AIPerf does.
	ArtifactDir string `json:"artifact_directory"`
	// ArtifactDirExplicit records that --output-artifact-dir was given. It
	// is provenance, not configuration, so it is not serialised.
	ArtifactDirExplicit bool `json:"-"`
	// ProfileExportPrefix replaces the base name of every exported file.
	ProfileExportPrefix string `json:"profile_export_prefix,omitempty"`
	// ExportLevel selects which files are written.
	ExportLevel ExportLevel `json:"export_level"`
}

// Service is logging and display (AIPerf's "Service" and "UI" groups).
type Service struct {
	LogLevel     LogLevel `json:"log_level"`
	Verbose      bool     `json:"verbose"`
	ExtraVerbose bool     `json:"extra_verbose"`
	// UIType is the requested display; "" = not given, see Config.UIType.
	UIType UIType `json:"ui_type,omitempty"`
}

// Defaults returns the configuration of `aiperf profile` with no options:
// every fixed default filled in, every derived option left unset. It still
// lacks the required model name, so it does not validate as is.
func Defaults() Config {
	return Config{
		Endpoint: Endpoint{
			Type:                 DefaultEndpointType,
			URLs:                 []string{DefaultURL},
			TimeoutSeconds:       DefaultRequestTimeout,
			WaitForModelMode:     DefaultWaitForModelMode,
			WaitForModelInterval: DefaultWaitForModelInterval,
		},
		Tokenizer: Tokenizer{Revision: DefaultTokenizerRevision},
		Input: Input{
			InputTokens: InputTokens{Mean: DefaultISL},
		},
		Output: Output{
			ArtifactDir: DefaultArtifactDir,
			ExportLevel: DefaultExportLevel,
		},
		Service:      Service{LogLevel: DefaultLogLevel},
		Conversation: defaultConversation(),
		Experiment:   defaultExperiment(),
		Prompt:       defaultPrompt(),
	}
}
