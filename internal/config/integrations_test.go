package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestNormalizeOTelURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, err string }{
		{in: "localhost:4318", want: "http://localhost:4318/v1/metrics"},
		{in: "http://collector:4318/", want: "http://collector:4318/v1/metrics"},
		{in: "https://otel.example.com/otlp", want: "https://otel.example.com/otlp/v1/metrics"},
		{in: "http://c:4318/v1/metrics", want: "http://c:4318/v1/metrics"},
		{in: "grpc://c:4317", err: "only http and https"},
		{in: "http://:4318", err: "expected host"},
		{in: "  ", err: "empty"},
		{in: "https://user:secret@c:4318", want: "https://user:secret@c:4318/v1/metrics"},
		{in: "ftp://user:secret@c", err: "<redacted>@c"},
	} {
		got, err := NormalizeOTelURL(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "secret") {
				t.Errorf("NormalizeOTelURL(%q) error = %v; want one containing %q, without the password", tc.in, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("NormalizeOTelURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseKeyValues(t *testing.T) {
	t.Parallel()
	got, err := ParseKeyValues([]string{"a=1, b = two", "c=x=y"}, "=", false)
	want := []KeyValue{{"a", "1"}, {"b", "two"}, {"c", "x=y"}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ParseKeyValues = %v, %v; want %v", got, err, want)
	}
	got, err = ParseKeyValues([]string{`{"team":"perf","n":3}`, "env:ci"}, ":", true)
	want = []KeyValue{{"n", "3"}, {"team", "perf"}, {"env", "ci"}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("ParseKeyValues(json) = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"novalue", "=v", "k="} {
		if _, err := ParseKeyValues([]string{bad}, "=", false); err == nil {
			t.Errorf("ParseKeyValues(%q) = nil error; want one", bad)
		}
	}
}

func TestOTelStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stream         []string
		metricsEnabled *bool
		metrics, tim   bool
	}{
		{nil, nil, true, true},
		{[]string{"default"}, nil, true, true},
		{[]string{"metrics"}, nil, true, false},
		{[]string{"timing"}, nil, false, true},
		{[]string{"metrics", "timing"}, nil, true, true},
		{[]string{"none"}, nil, false, false},
		{nil, ptr(false), false, true},
	} {
		c := valid()
		c.Integrations.OTel.Stream = tc.stream
		c.Integrations.OTel.StreamMetricsEnabled = tc.metricsEnabled
		m, tm := c.OTelStreams()
		if m != tc.metrics || tm != tc.tim {
			t.Errorf("--stream %v: OTelStreams() = %v, %v; want %v, %v", tc.stream, m, tm, tc.metrics, tc.tim)
		}
	}
}

func TestValidateIntegrations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want []string // flags with a problem
	}{
		{"nothing", func(*Config) {}, nil},
		{"otel secondaries alone", func(c *Config) {
			c.Integrations.OTel.Stream = []string{"metrics"}
			c.Integrations.OTel.GenAIProvider = "openai"
		}, []string{"--stream", "--gen-ai-provider"}},
		{"otel ok", func(c *Config) {
			c.Integrations.OTel.URL = "http://c:4318/v1/metrics"
			c.Integrations.OTel.Stream = []string{"timing"}
		}, nil},
		{"bad stream", func(c *Config) {
			c.Integrations.OTel.URL = "http://c:4318/v1/metrics"
			c.Integrations.OTel.Stream = []string{"traces"}
		}, []string{"--stream"}},
		{"mlflow secondaries alone", func(c *Config) {
			c.Integrations.MLflow.Experiment = "x"
			c.Integrations.MLflow.Tags = []KeyValue{{"a", "b"}}
		}, []string{"--mlflow-experiment", "--mlflow-tag"}},
		{"mlflow file store", func(c *Config) { c.Integrations.MLflow.TrackingURI = "./mlruns" }, []string{"--mlflow-tracking-uri"}},
		{"mlflow ok", func(c *Config) { c.Integrations.MLflow.TrackingURI = "http://localhost:5000" }, nil},
		{"wandb secondaries alone", func(c *Config) { c.Integrations.Wandb.Tags = []string{"x"} }, []string{"--wandb-tag"}},
		{"api host alone", func(c *Config) { c.Integrations.API.Host = "0.0.0.0" }, []string{"--api-host"}},
		{"api port range", func(c *Config) { c.Integrations.API.Port = ptr(70000) }, []string{"--api-port"}},
		{"accuracy secondaries alone", func(c *Config) {
			c.Integrations.Accuracy.NShots = ptr(3)
			c.Integrations.Accuracy.Verbose = true
		}, []string{"--accuracy-n-shots", "--accuracy-verbose"}},
		{"accuracy bad names", func(c *Config) {
			c.Integrations.Accuracy.Benchmark = "trivia"
			c.Integrations.Accuracy.Grader = "vibes"
		}, []string{"--accuracy-benchmark", "--accuracy-grader"}},
		{"accuracy shots range", func(c *Config) {
			c.Integrations.Accuracy.Benchmark = "mmlu"
			c.Integrations.Accuracy.NShots = ptr(33)
		}, []string{"--accuracy-n-shots"}},
		{"accuracy with a file", func(c *Config) {
			c.Integrations.Accuracy.Benchmark = "gsm8k"
			c.Dataset.InputFile = "x.jsonl"
		}, []string{"--accuracy-benchmark"}},
	} {
		c := valid()
		tc.set(&c)
		got := flagsOf(c.Validate())
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: problems on %v; want %v (%v)", tc.name, got, tc.want, c.Validate())
		}
	}
}

func TestIntegrationSecretsRedacted(t *testing.T) {
	t.Parallel()
	c := valid()
	c.Integrations.MLflow.TrackingURI = "https://bob:hunter2@mlflow.example.com"
	c.Integrations.OTel.URL = "https://otel:tok3n@c/v1/metrics"
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Integrations struct {
			MLflow struct {
				URI string `json:"tracking_uri"`
			} `json:"mlflow"`
		} `json:"integrations"`
	}
	json.Unmarshal(b, &back)
	if s := string(b); strings.Contains(s, "hunter2") || strings.Contains(s, "tok3n") || back.Integrations.MLflow.URI != "https://<redacted>@mlflow.example.com" {
		t.Fatalf("config JSON leaks a credential or lost the URL: %s", s)
	}
	c.Endpoint.URLs = []string{"http://user:pa55word@host:8000"}
	c.Endpoint.APIKey = "sk-abcdef"
	r, err := c.RedactedJSON()
	if err != nil || strings.Contains(string(r), "pa55word") || strings.Contains(string(r), "sk-abcdef") {
		t.Fatalf("RedactedJSON leaks: %s (%v)", r, err)
	}
}

func TestNormalizeAccuracyName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"gsm8-k": "gsm8k", "MMLU-Pro": "mmlu_pro", "math-500": "math_500", "lighteval-gsm8-k": "lighteval_gsm8k"} {
		if got := NormalizeAccuracyName(in); got != want {
			t.Errorf("NormalizeAccuracyName(%q) = %q; want %q", in, got, want)
		}
	}
}
