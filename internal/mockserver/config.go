package mockserver

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Config is the mock server's behaviour: where it listens, how slow it is,
// how often it fails, and how it counts prompt tokens.
//
// The zero value is not useful; start from DefaultConfig. Latency
// coefficients are in milliseconds like AIPerf's aiperf-mock-server options,
// except TTFT and ITL, which are durations (their flags take milliseconds).
type Config struct {
	// Host and Port are where `aiperf mock-server` listens (127.0.0.1:8000).
	Host string
	Port int

	// TTFT is the base time to first token (--ttft, ms; default 20 ms).
	TTFT time.Duration
	// ITL is the base inter-token latency (--itl, ms; default 5 ms).
	ITL time.Duration
	// TTFTPerISLToken adds this many ms to TTFT per prompt token.
	TTFTPerISLToken float64
	// TTFTConcurrencyQuad adds this many ms * active^2 to TTFT.
	TTFTConcurrencyQuad float64
	// ITLPerOSLToken adds this many ms to ITL per output token.
	ITLPerOSLToken float64
	// ITLConcurrencyLin adds this many ms * active to ITL.
	ITLConcurrencyLin float64
	// TTFTJitterCV and ITLJitterCV are the coefficients of variation of
	// lognormal multipliers with mean 1 (0 disables jitter). TTFT jitter is
	// drawn once per request, ITL jitter once per token, as AIPerf does.
	TTFTJitterCV, ITLJitterCV float64

	// Fast answers with zero latency, ignoring every latency setting.
	Fast bool
	// ErrorRate is the percentage (0-100) of inference requests answered
	// with HTTP 500.
	ErrorRate float64
	// RandomSeed seeds the jitter and error draws when SeedSet is true;
	// otherwise each Server draws a random seed.
	RandomSeed int64
	SeedSet    bool

	// Fault injection (fault.go; --fault, --fault-delay-ms, and the
	// X-Mock-Fault request header). Faults are drawn in order against
	// cumulative rates, so each request gets at most one; FaultDelay is
	// how long slow_headers holds the headers.
	Faults     []FaultRate
	FaultDelay time.Duration
	// OnFault, when set, is told the fault of every inference request that
	// gets one, before it acts; tests use it to know which request failed
	// how. It must be safe for concurrent use.
	OnFault func(r *http.Request, f Fault)

	// PredictionAcceptRate, when above 0, makes usage report OpenAI's
	// predicted-output counts: that fraction of the completion tokens as
	// completion_tokens_details.accepted_prediction_tokens, the rest as
	// rejected_prediction_tokens (--prediction-accept-rate, 0 to 1).
	PredictionAcceptRate float64

	// DefaultModel is the model listed by /v1/models and echoed when a
	// request names none.
	DefaultModel string

	// CountTokens counts the tokens of a prompt the way the client will, so
	// that usage.prompt_tokens and the ISL-derived output length agree with
	// the client's view. nil means an approximation of about four
	// characters per token (minimum 1 for non-empty text).
	CountTokens func(string) int

	// Batch, when Batch.Slots > 0, replaces the per-request latency model
	// (TTFT, ITL and their coefficients and jitter) by a continuous-batching
	// engine with a capacity knee (batch.go).
	Batch BatchConfig

	// RecordRequests, when set, is a file that Start fills with one JSON
	// line per request: ids, headers, body and the server-side wall-clock
	// times of receipt, headers, each chunk and end (recorder.go). It is
	// the ground truth a client's measurements are checked against.
	RecordRequests string

	// MetricsStyle is the inference server whose /metrics page the mock
	// imitates (--metrics-style): vllm (the default), sglang, trtllm,
	// dynamo, llamacpp, or none for no page. Every style's values follow
	// what the mock really served (metricstyles.go).
	MetricsStyle string
	// KVCacheTokens is the simulated KV-cache capacity in tokens that the
	// KV-cache usage gauges are relative to (--kv-cache-tokens).
	KVCacheTokens int
	// DCGM is the fake DCGM exporter served beside the mock (--dcgm-*).
	DCGM DCGM

	// ServerTiming is the form the mock gives its own account of each
	// request in (--server-timing, servertiming.go): none, llamacpp (the
	// timings object), tgi (timing headers on non-streamed answers) or
	// vllm-otlp (a span per request sent to OTLPTracesEndpoint over
	// OTLPTracesProtocol, grpc or http/protobuf).
	ServerTiming                           string
	OTLPTracesEndpoint, OTLPTracesProtocol string
	// ServerQueue holds every request this long before its latency model
	// starts (--server-queue-ms), the queue time the account reports.
	ServerQueue time.Duration

	// SpecDecode is the form the mock reports each request's
	// speculative-decoding acceptance in (--spec-decode, specdecode.go):
	// none, vllm, trtllm or llamacpp; SpecDecodeK is the draft block.
	SpecDecode  string
	SpecDecodeK int

	// The shape of a streamed chat answer (shape.go; --chunk-tokens,
	// --reasoning-tokens, --tool-call-tokens, --usage-chunks): tokens per
	// chunk (0 or 1: one), the first ReasoningTokens as reasoning_content
	// deltas, the last ToolCallTokens as one tool call's deltas, and a
	// usage-only chunk after every content chunk. Faults and the
	// completions API keep the plain one-token stream.
	ChunkTokens, ReasoningTokens, ToolCallTokens int
	UsageChunks                                  bool
}

// DefaultConfig returns AIPerf's mock-server defaults: 127.0.0.1:8000,
// TTFT 20 ms, ITL 5 ms, no scaling, no jitter, no errors, "mock-model".
func DefaultConfig() Config {
	return Config{
		Host:               "127.0.0.1",
		Port:               8000,
		TTFT:               20 * time.Millisecond,
		ITL:                5 * time.Millisecond,
		DefaultModel:       "mock-model",
		FaultDelay:         DefaultFaultDelay,
		MetricsStyle:       StyleVLLM,
		KVCacheTokens:      DefaultKVCacheTokens,
		DCGM:               DefaultDCGM(),
		ServerTiming:       ServerTimingNone,
		OTLPTracesProtocol: OTLPGRPC,
		SpecDecode:         SpecDecodeNone,
		SpecDecodeK:        DefaultSpecDecodeK,
		Batch: BatchConfig{
			StepMs:            DefaultBatchStepMs,
			StepPerSeqMs:      DefaultBatchStepPerSeqMs,
			PrefillPerTokenMs: DefaultBatchPrefillPerTokenMs,
		},
	}
}

// RegisterFlags binds every option to fs under AIPerf's flag names (without
// "--"). The flags' defaults are c's current values, so call it on a
// DefaultConfig. ttft and itl take milliseconds as a float.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Host, "host", c.Host, "address to listen on")
	fs.IntVar(&c.Port, "port", c.Port, "port to listen on")
	fs.Var(&millis{&c.TTFT}, "ttft", "base time to first token in milliseconds")
	fs.Var(&millis{&c.ITL}, "itl", "base inter-token latency in milliseconds")
	fs.Float64Var(&c.TTFTPerISLToken, "ttft-per-isl-token-ms", c.TTFTPerISLToken,
		"extra TTFT in milliseconds per input token")
	fs.Float64Var(&c.TTFTConcurrencyQuad, "ttft-concurrency-quad-ms", c.TTFTConcurrencyQuad,
		"extra TTFT in milliseconds times the square of the requests in flight")
	fs.Float64Var(&c.ITLPerOSLToken, "itl-per-osl-token-ms", c.ITLPerOSLToken,
		"extra ITL in milliseconds per output token")
	fs.Float64Var(&c.ITLConcurrencyLin, "itl-concurrency-lin-ms", c.ITLConcurrencyLin,
		"extra ITL in milliseconds times the requests in flight")
	fs.Float64Var(&c.TTFTJitterCV, "ttft-jitter-cv", c.TTFTJitterCV,
		"coefficient of variation of the lognormal TTFT jitter (0 = none)")
	fs.Float64Var(&c.ITLJitterCV, "itl-jitter-cv", c.ITLJitterCV,
		"coefficient of variation of the lognormal per-token ITL jitter (0 = none)")
	fs.BoolVar(&c.Fast, "fast", c.Fast, "answer with zero latency")
	fs.Float64Var(&c.ErrorRate, "error-rate", c.ErrorRate,
		"percentage (0-100) of inference requests answered with HTTP 500")
	fs.Float64Var(&c.PredictionAcceptRate, "prediction-accept-rate", c.PredictionAcceptRate,
		"fraction (0-1) of completion tokens usage reports as accepted prediction tokens (OpenAI completion_tokens_details); the rest are rejected; 0 = none reported")
	fs.Var(&seed{c}, "random-seed", "seed for the jitter and error draws (default: random)")
	fs.StringVar(&c.DefaultModel, "default-model", c.DefaultModel, "model name listed by /v1/models")
	c.registerFaultFlags(fs)
	c.registerBatchFlags(fs) // --batch-* (batch.go)
	c.registerRecordFlag(fs) // --record-requests (recorder.go)
	fs.StringVar(&c.MetricsStyle, "metrics-style", c.MetricsStyle,
		"which server's /metrics page to imitate: "+strings.Join(MetricsStyles(), ", "))
	fs.IntVar(&c.KVCacheTokens, "kv-cache-tokens", c.KVCacheTokens,
		"simulated KV-cache capacity in tokens, for the KV-cache usage gauges")
	c.DCGM.registerFlags(fs)        // --dcgm-* (dcgm.go)
	c.registerServerTimingFlags(fs) // --server-timing, --server-queue-ms, --otlp-traces-* (servertiming.go)
	c.registerShapeFlags(fs)        // --chunk-tokens, --reasoning-tokens, --tool-call-tokens, --usage-chunks (shape.go)
	c.registerSpecDecodeFlags(fs)   // --spec-decode, --spec-decode-k (specdecode.go)
}

// Validate reports every invalid setting at once, joined with errors.Join.
// Negative, NaN and infinite latencies and coefficients are rejected, as is
// an error rate outside [0, 100], a port outside [0, 65535] and an empty
// default model.
func (c *Config) Validate() error {
	var errs []error
	if c.Host == "" {
		errs = append(errs, errors.New("host: must not be empty"))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("port: must be in [0, 65535], got %d", c.Port))
	}
	if c.TTFT < 0 {
		errs = append(errs, fmt.Errorf("ttft: must be >= 0 ms, got %v ms", durationMillis(c.TTFT)))
	}
	if c.ITL < 0 {
		errs = append(errs, fmt.Errorf("itl: must be >= 0 ms, got %v ms", durationMillis(c.ITL)))
	}
	errs = append(errs, finiteNonNegative([]namedValue{
		{"ttft-per-isl-token-ms", c.TTFTPerISLToken},
		{"ttft-concurrency-quad-ms", c.TTFTConcurrencyQuad},
		{"itl-per-osl-token-ms", c.ITLPerOSLToken},
		{"itl-concurrency-lin-ms", c.ITLConcurrencyLin},
		{"ttft-jitter-cv", c.TTFTJitterCV},
		{"itl-jitter-cv", c.ITLJitterCV},
	})...)
	if !(c.PredictionAcceptRate >= 0 && c.PredictionAcceptRate <= 1) {
		errs = append(errs, fmt.Errorf("prediction-accept-rate: must be a fraction in [0, 1], got %v", c.PredictionAcceptRate))
	}
	if !(c.ErrorRate >= 0 && c.ErrorRate <= 100) {
		errs = append(errs, fmt.Errorf("error-rate: must be a percentage in [0, 100], got %v", c.ErrorRate))
	}
	if c.DefaultModel == "" {
		errs = append(errs, errors.New("default-model: must not be empty"))
	}
	errs = append(errs, c.validateFaults()...)
	errs = append(errs, c.Batch.validate()...)
	if !slices.Contains(MetricsStyles(), c.MetricsStyle) {
		errs = append(errs, fmt.Errorf("metrics-style: %q is not one of %s", c.MetricsStyle, strings.Join(MetricsStyles(), ", ")))
	}
	if c.KVCacheTokens < 1 {
		errs = append(errs, fmt.Errorf("kv-cache-tokens: must be >= 1, got %d", c.KVCacheTokens))
	}
	errs = append(errs, c.DCGM.validate()...)
	errs = append(errs, c.validateServerTiming()...)
	errs = append(errs, c.validateSpecDecode()...)
	return errors.Join(errs...)
}

// namedValue is an option's flag name and value, for validation messages.
type namedValue struct {
	name string
	v    float64
}

// finiteNonNegative reports each value that is negative, NaN or infinite.
func finiteNonNegative(vs []namedValue) []error {
	var errs []error
	for _, f := range vs {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s: must be a finite number >= 0, got %v", f.name, f.v))
		}
	}
	return errs
}

// countTokens returns the effective prompt-token counter: the injected one,
// or approxTokens.
func (c *Config) countTokens() func(string) int {
	if c.CountTokens != nil {
		return c.CountTokens
	}
	return approxTokens
}

// approxTokens estimates tokens as one per four characters, rounded up, so
// that any non-empty text counts at least 1 (AIPerf's --no-tokenizer mode
// chunks text the same way).
func approxTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// durationMillis converts d to fractional milliseconds.
func durationMillis(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}

// millisDuration converts fractional milliseconds to a Duration, rounded to
// the nanosecond. Callers guarantee ms is finite.
func millisDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// millis is a flag.Value holding a Duration written as milliseconds.
type millis struct{ d *time.Duration }

// String formats the duration in milliseconds. It tolerates the zero value
// because package flag calls String on one to detect default values.
func (m *millis) String() string {
	if m == nil || m.d == nil {
		return "0"
	}
	return strconv.FormatFloat(durationMillis(*m.d), 'g', -1, 64)
}

// Set parses fractional milliseconds. Negative values are accepted here and
// reported by Validate with the other problems.
func (m *millis) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("milliseconds: %w", err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > float64(math.MaxInt64/int64(time.Millisecond)) {
		return fmt.Errorf("milliseconds: %q is out of range", s)
	}
	*m.d = millisDuration(v)
	return nil
}

// seed is the flag.Value for --random-seed: setting it also sets SeedSet,
// so "unset" (random) stays distinguishable from an explicit 0.
type seed struct{ c *Config }

// String formats the seed, or "" when none is set.
func (s *seed) String() string {
	if s == nil || s.c == nil || !s.c.SeedSet {
		return ""
	}
	return strconv.FormatInt(s.c.RandomSeed, 10)
}

// Set parses a decimal int64 seed.
func (s *seed) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("random seed: %w", err)
	}
	s.c.RandomSeed, s.c.SeedSet = n, true
	return nil
}

// configView is the JSON form of a Config served by /health and /: the
// options under their flag names (snake_case, as AIPerf's health payload),
// latencies in milliseconds, and a description of the token counter instead
// of the function itself.
type configView struct {
	Host                  string  `json:"host"`
	Port                  int     `json:"port"`
	TTFT                  float64 `json:"ttft"`
	ITL                   float64 `json:"itl"`
	TTFTPerISLTokenMs     float64 `json:"ttft_per_isl_token_ms"`
	TTFTConcurrencyQuadMs float64 `json:"ttft_concurrency_quad_ms"`
	ITLPerOSLTokenMs      float64 `json:"itl_per_osl_token_ms"`
	ITLConcurrencyLinMs   float64 `json:"itl_concurrency_lin_ms"`
	TTFTJitterCV          float64 `json:"ttft_jitter_cv"`
	ITLJitterCV           float64 `json:"itl_jitter_cv"`
	Fast                  bool    `json:"fast"`
	ErrorRate             float64 `json:"error_rate"`
	RandomSeed            *int64  `json:"random_seed"`
	DefaultModel          string  `json:"default_model"`
	Tokenizer             string  `json:"tokenizer"`
	Faults                string  `json:"faults"`
	FaultDelayMs          float64 `json:"fault_delay_ms"`
	MetricsStyle          string  `json:"metrics_style"`
	KVCacheTokens         int     `json:"kv_cache_tokens"`
	DCGMNumGPUs           int     `json:"dcgm_num_gpus,omitempty"`
	DCGMGPUName           string  `json:"dcgm_gpu_name,omitempty"`
	// Batch is the batched scheduler's model; absent when it is off.
	Batch *batchModelView `json:"batch,omitempty"`
}

// batchModelView is BatchConfig under its flag names.
type batchModelView struct {
	Slots             int     `json:"batch_slots"`
	StepMs            float64 `json:"batch_step_ms"`
	StepPerSeqMs      float64 `json:"batch_step_per_seq_ms"`
	PrefillPerTokenMs float64 `json:"batch_prefill_per_token_ms"`
}

// view returns the JSON form of c.
func (c *Config) view() configView {
	v := configView{
		Host:                  c.Host,
		Port:                  c.Port,
		TTFT:                  durationMillis(c.TTFT),
		ITL:                   durationMillis(c.ITL),
		TTFTPerISLTokenMs:     c.TTFTPerISLToken,
		TTFTConcurrencyQuadMs: c.TTFTConcurrencyQuad,
		ITLPerOSLTokenMs:      c.ITLPerOSLToken,
		ITLConcurrencyLinMs:   c.ITLConcurrencyLin,
		TTFTJitterCV:          c.TTFTJitterCV,
		ITLJitterCV:           c.ITLJitterCV,
		Fast:                  c.Fast,
		ErrorRate:             c.ErrorRate,
		DefaultModel:          c.DefaultModel,
		Tokenizer:             "approximate (4 characters per token)",
		Faults:                (&faultFlag{c}).String(),
		FaultDelayMs:          durationMillis(c.FaultDelay),
		MetricsStyle:          c.MetricsStyle,
		KVCacheTokens:         c.KVCacheTokens,
	}
	if c.DCGM.Enabled {
		v.DCGMNumGPUs, v.DCGMGPUName = c.DCGM.GPUs, c.DCGM.GPUName
	}
	if b := c.Batch; b.Slots > 0 {
		v.Batch = &batchModelView{Slots: b.Slots, StepMs: b.StepMs, StepPerSeqMs: b.StepPerSeqMs, PrefillPerTokenMs: b.PrefillPerTokenMs}
	}
	if c.SeedSet {
		s := c.RandomSeed
		v.RandomSeed = &s
	}
	if c.CountTokens != nil {
		v.Tokenizer = "injected"
	}
	return v
}
