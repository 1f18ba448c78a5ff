package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Integrations are the options of what a run sends besides its artifacts:
// OpenTelemetry metrics (--otel-*), MLflow and Weights &
// Biases uploads (--mlflow-*, --wandb-*), the HTTP API (--api-port,
// --api-host) and accuracy mode (the Accuracy group). They are AIPerf
// 0.13's otel, mlflow, wandb, accuracy and runtime.api_* sections.
type Integrations struct {
	OTel     OTel     `json:"otel,omitzero"`
	MLflow   MLflow   `json:"mlflow,omitzero"`
	Wandb    Wandb    `json:"wandb,omitzero"`
	API      API      `json:"api,omitzero"`
	Accuracy Accuracy `json:"accuracy,omitzero"`
}

// CredURL is a URL that may carry credentials in its userinfo
// ("https://user:token@host"). Its JSON and String forms are redacted by
// RedactURL; read it with string(u) where the real value is needed.
type CredURL string

// String returns the URL with its userinfo redacted.
func (u CredURL) String() string { return RedactURL(string(u)) }

// MarshalJSON writes the redacted URL.
func (u CredURL) MarshalJSON() ([]byte, error) { return json.Marshal(u.String()) }

// OTel streams metrics to an OpenTelemetry collector over OTLP/HTTP while
// the run goes (--otel-url and its secondary flags).
type OTel struct {
	// URL is the OTLP/HTTP metrics endpoint, normalised by NormalizeOTelURL
	// (scheme added, path ending in /v1/metrics); "" = no OTel.
	URL CredURL `json:"metrics_url,omitempty"`
	// Stream are the --stream domains as given: metrics, timing, default
	// or none; empty = default (both).
	Stream []string `json:"stream,omitempty"`
	// ResourceAttributes are --otel-resource-attributes key=value pairs, in
	// order; they override the default resource attributes.
	ResourceAttributes []KeyValue `json:"custom_resource_attributes,omitempty"`
	// GenAIProvider overrides gen_ai.provider.name (otherwise inferred from
	// the URL host).
	GenAIProvider string `json:"gen_ai_provider,omitempty"`
	// StreamMetricsEnabled and StreamTimingEnabled are the config file's
	// stream_metrics_enabled and stream_timing_enabled; set, they override
	// what Stream says for their domain.
	StreamMetricsEnabled *bool `json:"stream_metrics_enabled,omitempty"`
	StreamTimingEnabled  *bool `json:"stream_timing_enabled,omitempty"`
}

// OTel stream domains (--stream).
const (
	StreamMetrics = "metrics"
	StreamTiming  = "timing"
	StreamDefault = "default"
	StreamNone    = "none"
)

// StreamDomains returns the --stream choices.
func StreamDomains() []string {
	return []string{StreamDefault, StreamMetrics, StreamTiming, StreamNone}
}

// OTelStreams resolves --stream into which domains are exported: per-request
// metrics and phase timing counters. No value, or default, is both; none is
// neither.
func (c *Config) OTelStreams() (metrics, timing bool) {
	o := &c.Integrations.OTel
	s := o.Stream
	has := func(d string) bool { return slices.Contains(s, d) }
	switch {
	case len(s) == 0:
		metrics, timing = true, true
	case has(StreamNone):
	default:
		def := has(StreamDefault)
		metrics, timing = def || has(StreamMetrics), def || has(StreamTiming)
	}
	if o.StreamMetricsEnabled != nil {
		metrics = *o.StreamMetricsEnabled
	}
	if o.StreamTimingEnabled != nil {
		timing = *o.StreamTimingEnabled
	}
	return metrics, timing
}

// MLflow uploads the results to an MLflow tracking server
// (--mlflow-tracking-uri and its secondary flags).
type MLflow struct {
	// TrackingURI is the tracking server's base URL; "" = no MLflow.
	TrackingURI CredURL `json:"tracking_uri,omitempty"`
	// Experiment is the experiment name; "" = DefaultMLflowExperiment.
	Experiment string `json:"experiment,omitempty"`
	// RunName names the run; "" = "aiperf-<benchmark id prefix>".
	RunName string `json:"run_name,omitempty"`
	// Tags are extra run tags, in order.
	Tags []KeyValue `json:"tags,omitempty"`
	// ParentRunID nests the run under another run.
	ParentRunID string `json:"parent_run_id,omitempty"`
	// ArtifactGlobs select the files uploaded; empty = DefaultMLflowArtifactGlobs.
	ArtifactGlobs []string `json:"artifact_globs,omitempty"`
}

// DefaultMLflowExperiment is AIPerf's default experiment name.
const DefaultMLflowExperiment = "aiperf"

// DefaultMLflowArtifactGlobs are the files MLflow and W&B upload by
// default, AIPerf's list (relative to the artifact directory).
func DefaultMLflowArtifactGlobs() []string {
	return []string{"*.json", "*.csv", "*.jsonl", "*.parquet", "*_timeslices.*",
		"**/*.png", "**/*.jpg", "**/*.jpeg", "**/*.svg", "**/*.html"}
}

// MLflowExperiment is the experiment to log to.
func (c *Config) MLflowExperiment() string {
	if e := c.Integrations.MLflow.Experiment; e != "" {
		return e
	}
	return DefaultMLflowExperiment
}

// MLflowArtifactGlobs are the artifact globs to upload.
func (c *Config) MLflowArtifactGlobs() []string {
	if g := c.Integrations.MLflow.ArtifactGlobs; len(g) > 0 {
		return g
	}
	return DefaultMLflowArtifactGlobs()
}

// Wandb uploads the results to Weights & Biases (--wandb-project and its
// secondary flags). The API key comes from WANDB_API_KEY, the server from
// WANDB_BASE_URL, as with the wandb client.
type Wandb struct {
	// Project enables the upload; "" = no W&B.
	Project string `json:"project,omitempty"`
	// Entity is the team or user; "" = the API key's default entity.
	Entity string `json:"entity,omitempty"`
	// RunName names the run; "" = "aiperf-<benchmark id prefix>".
	RunName string `json:"run_name,omitempty"`
	// Tags are extra run tags.
	Tags []string `json:"tags,omitempty"`
}

// API serves the run's state over HTTP and WebSocket while it runs
// (--api-port, --api-host).
type API struct {
	// Port enables the API; nil = off.
	Port *int `json:"api_port,omitempty"`
	// Host is the address to bind; "" = DefaultAPIHost.
	Host string `json:"api_host,omitempty"`
}

// DefaultAPIHost is where the API listens by default (loopback only, as
// AIPerf's AIPERF_API_SERVER_HOST default).
const DefaultAPIHost = "127.0.0.1"

// APIAddr returns the API's listen address and whether the API is on.
func (c *Config) APIAddr() (string, bool) {
	a := c.Integrations.API
	if a.Port == nil {
		return "", false
	}
	h := a.Host
	if h == "" {
		h = DefaultAPIHost
	}
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		h = "[" + h + "]"
	}
	return fmt.Sprintf("%s:%d", h, *a.Port), true
}

// Accuracy runs an accuracy benchmark alongside the performance profile:
// the dataset is the benchmark's questions and every answer is graded (the
// Accuracy group).
type Accuracy struct {
	// Benchmark enables accuracy mode (mmlu, gsm8k, ...); "" = off.
	Benchmark string `json:"benchmark,omitempty"`
	// Tasks restricts the benchmark to these tasks (subjects); empty = all.
	Tasks []string `json:"tasks,omitempty"`
	// NShots is the number of few-shot examples; nil = the benchmark's default.
	NShots *int `json:"n_shots,omitempty"`
	// EnableCoT asks for chain-of-thought; nil = the benchmark's default.
	EnableCoT *bool `json:"enable_cot,omitempty"`
	// Grader overrides the benchmark's grader; "" = its default.
	Grader string `json:"grader,omitempty"`
	// SystemPrompt overrides the benchmark's system prompt; nil = its default.
	SystemPrompt *string `json:"system_prompt,omitempty"`
	// Verbose logs every graded answer.
	Verbose bool `json:"verbose,omitempty"`
}

// AccuracyEnabled reports whether the run grades answers.
func (c *Config) AccuracyEnabled() bool { return c.Integrations.Accuracy.Benchmark != "" }

// MaxAccuracyShots is the largest --accuracy-n-shots (AIPerf's bound).
const MaxAccuracyShots = 32

// NormalizeAccuracyName maps AIPerf's spellings of a benchmark or grader
// name (its help shows kebab-case, "gsm8-k" among them) to the snake_case
// plugin name.
func NormalizeAccuracyName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, "-", "_")
	return strings.ReplaceAll(s, "gsm8_k", "gsm8k")
}

// NormalizeOTelURL turns --otel-url into the OTLP/HTTP metrics endpoint as
// AIPerf does: http:// is added to a bare host[:port], and the path ends in
// /v1/metrics. Only http and https are accepted (OTLP/gRPC is not).
func NormalizeOTelURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", fmt.Errorf("must not be empty")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("invalid URL %q: %v", RedactURL(raw), urlProblem(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("invalid URL %q: only http and https are supported (got %q); OTLP/gRPC is not, use the collector's OTLP/HTTP port (4318)", RedactURL(raw), u.Scheme)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("invalid URL %q: expected host[:port] or a full URL", RedactURL(raw))
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/v1/metrics") {
		p = path.Join("/", p, "v1/metrics")
	}
	u.Path = p
	return u.String(), nil
}

// ParseKeyValues parses pairs separated by sep ("k=v" or "k:v"), each item
// possibly a comma list, for --otel-resource-attributes and --mlflow-tag.
// A --mlflow-tag item may also be a JSON object.
func ParseKeyValues(items []string, sep string, allowJSON bool) ([]KeyValue, error) {
	var out []KeyValue
	for _, item := range items {
		item = strings.TrimSpace(item)
		if allowJSON && strings.HasPrefix(item, "{") {
			var m map[string]any
			if err := json.Unmarshal([]byte(item), &m); err != nil {
				return nil, fmt.Errorf("invalid JSON object %q: %v", item, err)
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				out = append(out, KeyValue{Key: k, Value: fmt.Sprint(m[k])})
			}
			continue
		}
		for _, pair := range strings.Split(item, ",") {
			pair = strings.TrimSpace(pair)
			if pair == "" {
				continue
			}
			k, v, ok := strings.Cut(pair, sep)
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch {
			case !ok:
				return nil, fmt.Errorf("invalid entry %q: expected key%svalue", pair, sep)
			case k == "":
				return nil, fmt.Errorf("invalid entry %q: the key is empty", pair)
			case v == "" && sep == "=":
				return nil, fmt.Errorf("invalid entry %q: the value is empty", pair)
			}
			out = append(out, KeyValue{Key: k, Value: v})
		}
	}
	return out, nil
}

// validateIntegrations checks the integration options: secondary flags
// need their primary one, as in AIPerf.
func (c *Config) validateIntegrations(p *problems) {
	in := &c.Integrations
	o := &in.OTel
	if o.URL == "" {
		requires(p, "--otel-url: OTel streaming is off without an OTLP endpoint",
			set("--stream", len(o.Stream) > 0 || o.StreamMetricsEnabled != nil || o.StreamTimingEnabled != nil),
			set("--otel-resource-attributes", len(o.ResourceAttributes) > 0),
			set("--gen-ai-provider", o.GenAIProvider != ""))
	}
	for _, s := range in.OTel.Stream {
		if !slices.Contains(StreamDomains(), s) {
			p.add("--stream", "invalid choice %q (choose from %s)", s, strings.Join(StreamDomains(), ", "))
		}
	}
	m := &in.MLflow
	if m.TrackingURI == "" {
		requires(p, "--mlflow-tracking-uri",
			set("--mlflow-experiment", m.Experiment != ""),
			set("--mlflow-run-name", m.RunName != ""),
			set("--mlflow-tag", len(m.Tags) > 0),
			set("--mlflow-parent-run-id", m.ParentRunID != ""),
			set("--mlflow-artifact-glob", len(m.ArtifactGlobs) > 0))
	} else if err := checkTrackingURI(string(in.MLflow.TrackingURI)); err != nil {
		p.add("--mlflow-tracking-uri", "%v", err)
	}
	for _, g := range in.MLflow.ArtifactGlobs {
		if strings.TrimSpace(g) == "" {
			p.add("--mlflow-artifact-glob", "entries must not be empty")
		} else if _, err := path.Match(g, ""); err != nil {
			p.add("--mlflow-artifact-glob", "invalid pattern %q: %v", g, err)
		}
	}
	if w := &in.Wandb; w.Project == "" {
		requires(p, "--wandb-project",
			set("--wandb-entity", w.Entity != ""),
			set("--wandb-run-name", w.RunName != ""),
			set("--wandb-tag", len(w.Tags) > 0))
	}
	if port := in.API.Port; port != nil && (*port < 1 || *port > 65535) {
		p.add("--api-port", "must be between 1 and 65535, got %d", *port)
	}
	if in.API.Host != "" && in.API.Port == nil {
		p.add("--api-host", "requires --api-port")
	}
	c.validateAccuracy(p)
}

// flagSet is a secondary flag and whether it was given.
type flagSet struct {
	flag string
	on   bool
}

func set(flag string, on bool) flagSet { return flagSet{flag, on} }

// requires reports each given secondary flag as needing primary.
func requires(p *problems, primary string, flags ...flagSet) {
	for _, f := range flags {
		if f.on {
			p.add(f.flag, "requires %s", primary)
		}
	}
}

// checkTrackingURI accepts an http(s) tracking server; MLflow's file and
// database stores are Python-only.
func checkTrackingURI(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("invalid URL %q: %v", RedactURL(raw), urlProblem(err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) tracking server URL: this implementation speaks MLflow's REST API, so start a server (mlflow server --port 5000) and pass http://host:5000", RedactURL(raw))
	}
	return nil
}

// validateAccuracy checks the Accuracy group; the tasks are checked
// against the benchmark's list when its dataset is loaded.
func (c *Config) validateAccuracy(p *problems) {
	a := &c.Integrations.Accuracy
	if a.Benchmark != "" && !slices.Contains(AccuracyBenchmarks(), a.Benchmark) {
		p.add("--accuracy-benchmark", "invalid choice %q (choose from %s)", a.Benchmark, strings.Join(AccuracyBenchmarks(), ", "))
	}
	if a.Grader != "" && !slices.Contains(AccuracyGraders(), a.Grader) {
		p.add("--accuracy-grader", "invalid choice %q (choose from %s)", a.Grader, strings.Join(AccuracyGraders(), ", "))
	}
	if a.Benchmark == "" {
		requires(p, "--accuracy-benchmark: accuracy mode is off without a benchmark, so this would be silently ignored",
			set("--accuracy-tasks", len(a.Tasks) > 0),
			set("--accuracy-n-shots", a.NShots != nil),
			set("--accuracy-enable-cot", a.EnableCoT != nil),
			set("--accuracy-grader", a.Grader != ""),
			set("--accuracy-system-prompt", a.SystemPrompt != nil),
			set("--accuracy-verbose", a.Verbose))
		return
	}
	if n := a.NShots; n != nil && (*n < 0 || *n > MaxAccuracyShots) {
		p.add("--accuracy-n-shots", "must be between 0 and %d, got %d", MaxAccuracyShots, *n)
	}
	for _, t := range a.Tasks {
		if strings.TrimSpace(t) == "" {
			p.add("--accuracy-tasks", "task names must not be empty")
			break
		}
	}
	if c.Dataset.FromFile() {
		p.add("--accuracy-benchmark", "cannot be combined with --input-file or --public-dataset: the benchmark's questions are the dataset")
	}
}

// AccuracyBenchmarks are the --accuracy-benchmark choices, AIPerf 0.13's
// accuracy_benchmark plugins (internal/accuracy implements each).
func AccuracyBenchmarks() []string {
	return []string{"mmlu", "mmlu_pro", "aime", "hellaswag", "bigbench", "aime24", "aime25",
		"math_500", "gsm8k", "gpqa_diamond", "lcb_codegeneration"}
}

// AccuracyGraders are the --accuracy-grader choices, AIPerf 0.13's
// accuracy_grader plugins.
func AccuracyGraders() []string {
	return []string{"exact_match", "math", "multiple_choice", "code_execution", "lighteval_expr",
		"lighteval_latex", "lighteval_gpqa", "lighteval_gsm8k", "mmlu_pro"}
}
