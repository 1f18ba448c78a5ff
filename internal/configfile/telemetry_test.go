package configfile

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func applyDoc(t *testing.T, doc string) (config.Config, error) {
	t.Helper()
	cfg := config.Defaults()
	f, err := Parse("t.yaml", []byte(doc), Options{})
	if err != nil {
		return cfg, err
	}
	return cfg, f.Apply(&cfg)
}

// TestTelemetrySections decodes AIPerf 0.13's server_metrics,
// gpu_telemetry and endpoint control-hook keys, shorthands included.
func TestTelemetrySections(t *testing.T) {
	cfg, err := applyDoc(t, `schemaVersion: "2.0"
benchmark:
  model: m
  endpoint:
    url: http://localhost:8000
    resetKvCache: {path: /reset, timeout_seconds: 5, max_retry_seconds: 0}
    server_profiler: true
  server_metrics:
    url: node1:8081
    formats: [json, parquet]
    discovery: {mode: disabled}
  gpu_telemetry:
    urls: [node1:9400, "http://node2:9401/metrics"]
    mode: realtime_dashboard
    metrics_file: custom.csv
`)
	if err != nil {
		t.Fatal(err)
	}
	tel := cfg.Telemetry
	zero := 0.0
	if want := (&config.ResetKVCache{Path: "/reset", TimeoutSeconds: 5, MaxRetrySeconds: &zero}); !reflect.DeepEqual(tel.ResetKVCache, want) {
		t.Errorf("reset_kv_cache %+v, want %+v", tel.ResetKVCache, want)
	}
	if tel.ServerProfiler == nil || *tel.ServerProfiler != (config.ServerProfiler{}) {
		t.Errorf("server_profiler %+v, want the defaults", tel.ServerProfiler)
	}
	if got := tel.ServerMetrics.URLs; !reflect.DeepEqual(got, []string{"http://node1:8081/metrics"}) {
		t.Errorf("server metrics urls %q", got)
	}
	if got := tel.ServerMetrics.Formats; !reflect.DeepEqual(got, []config.ServerMetricsFormat{"json", "parquet"}) {
		t.Errorf("formats %q", got)
	}
	g := tel.GPU
	if !reflect.DeepEqual(g.URLs, []string{"http://node1:9400/metrics", "http://node2:9401/metrics"}) || !g.Dashboard || g.MetricsFile != "custom.csv" || g.Disabled {
		t.Errorf("gpu telemetry %+v", g)
	}

	cfg, err = applyDoc(t, `schemaVersion: "2.0"
benchmark:
  model: m
  endpoint: {reset_kv_cache: false, server_profiler: {stop_path: /halt}}
  server_metrics: {enabled: false}
  gpu_telemetry: "localhost:9500"
`)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Telemetry.ResetKVCache != nil || cfg.Telemetry.ServerProfiler.StopPath != "/halt" {
		t.Errorf("hooks %+v %+v", cfg.Telemetry.ResetKVCache, cfg.Telemetry.ServerProfiler)
	}
	if !cfg.Telemetry.ServerMetrics.Disabled {
		t.Error("server_metrics.enabled: false did not disable")
	}
	if got := cfg.Telemetry.GPU.URLs; !reflect.DeepEqual(got, []string{"http://localhost:9500/metrics"}) {
		t.Errorf("gpu_telemetry string shorthand gave %q", got)
	}
}

func TestTelemetrySectionProblems(t *testing.T) {
	for doc, want := range map[string]string{
		`{reset_kv_cache: {paht: /x}}`:              `unknown key "paht"`,
		`{server_profiler: "yes"}`:                  "must be false, true or a mapping",
		`{reset_kv_cache: {timeout_seconds: fast}}`: "timeout_seconds: must be a number",
	} {
		_, err := applyDoc(t, "schemaVersion: '2.0'\nbenchmark:\n  model: m\n  endpoint: "+doc+"\n")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
	_, err := applyDoc(t, "schemaVersion: '2.0'\nbenchmark: {model: m, gpu_telemetry: {mode: live}}\n")
	if err == nil || !strings.Contains(err.Error(), `unknown mode "live"`) {
		t.Errorf("mode: live: %v", err)
	}
	_, err = applyDoc(t, "schemaVersion: '2.0'\nbenchmark: {model: m, server_metrics: {url: a:1, urls: [b:2]}}\n")
	if err == nil || !strings.Contains(err.Error(), "cannot be used together") {
		t.Errorf("url and urls: %v", err)
	}
}

// TestTelemetryOverride: the CLI's telemetry flags replace the file's.
func TestTelemetryOverride(t *testing.T) {
	f, err := Parse("o.yaml", []byte("schemaVersion: '2.0'\nbenchmark: {model: m, endpoint: {server_profiler: {start_path: /go}}, gpu_telemetry: {enabled: true}}\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cli := config.Defaults()
	cli.Telemetry.ServerProfiler = &config.ServerProfiler{TimeoutSeconds: 9}
	cli.Telemetry.GPU.Disabled = true
	if err := f.Override(&cli, []string{"server-profiler-timeout-seconds", "no-gpu-telemetry"}); err != nil {
		t.Fatal(err)
	}
	out := config.Defaults()
	if err := f.Apply(&out); err != nil {
		t.Fatal(err)
	}
	if out.Telemetry.ServerProfiler == nil || *out.Telemetry.ServerProfiler != (config.ServerProfiler{TimeoutSeconds: 9}) {
		t.Errorf("server_profiler %+v, want the CLI's", out.Telemetry.ServerProfiler)
	}
	if !out.Telemetry.GPU.Disabled {
		t.Error("--no-gpu-telemetry did not override gpu_telemetry.enabled")
	}
}
