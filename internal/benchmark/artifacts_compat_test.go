package benchmark

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestRunAIPerfArtifacts checks the artifacts AIPerf 0.13 adds around a
// run: outputs.json with every profiling request's text
// (--export-outputs-json), request_headers on the raw records (secrets
// redacted), warmup records in the per-request files, and the results
// ready marker once everything is written.
func TestRunAIPerfArtifacts(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(4)
	cfg.Warmup.RequestCount = ptr(2)
	cfg.Output.ExportLevel = config.ExportRaw
	cfg.Artifacts.ExportOutputsJSON = true
	cfg.Endpoint.APIKey = "sk-test-secret"
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir

	var outputs struct {
		Schema string `json:"schema_version"`
		Data   []struct {
			SessionNum int                `json:"session_num"`
			XRequestID string             `json:"x_request_id"`
			Metrics    map[string]float64 `json:"metrics"`
			Text       string             `json:"response_text"`
		} `json:"data"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &outputs); err != nil {
		t.Fatal(err)
	}
	if outputs.Schema != "1.0" || len(outputs.Data) != 4 {
		t.Fatalf("outputs.json: schema %q, %d entries; want 1.0 and the 4 profiling requests", outputs.Schema, len(outputs.Data))
	}
	for i, d := range outputs.Data {
		if d.SessionNum != i || d.Text == "" || d.Metrics["output_sequence_length"] != 8 || d.Metrics["time_to_first_token"] <= 0 {
			t.Errorf("entry %d: %+v", i, d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "output_fragments")); !os.IsNotExist(err) {
		t.Errorf("output_fragments left behind: %v", err)
	}

	raw := lines(t, filepath.Join(dir, "profile_export_raw.jsonl"))
	if len(raw) != 6 {
		t.Errorf("raw records %d; want 2 warmup + 4 profiling", len(raw))
	}
	for _, l := range raw {
		if strings.Contains(l, "sk-test-secret") {
			t.Fatalf("API key in the raw records: %s", l)
		}
		var rec struct {
			Metadata struct {
				XRequestID string `json:"x_request_id"`
			} `json:"metadata"`
			Headers map[string]string `json:"request_headers"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Headers["X-Request-Id"] != rec.Metadata.XRequestID || rec.Headers["Authorization"] != "<redacted>" ||
			rec.Headers["Content-Type"] != "application/json" {
			t.Errorf("request_headers %v for request %s", rec.Headers, rec.Metadata.XRequestID)
		}
	}

	ready, err := os.ReadFile(filepath.Join(dir, ".aiperf_results_ready.json"))
	if err != nil || string(ready) != `{"ready":true,"was_cancelled":false,"partial":false}` {
		t.Errorf("ready marker %q (%v)", ready, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".aiperf_results_processing.json")); !os.IsNotExist(err) {
		t.Errorf("processing marker left behind: %v", err)
	}
}

// TestRunAIPerf013MetricTags checks the metric tags AIPerf 0.13 adds to a
// streaming chat run's summary: the effective/active sweep family (time-
// weighted: unit, avg, min, max, p50, p90, p95, p99, std, no count),
// credit_to_start_latency (a full distribution) and, when the server
// reports them, the prediction-token usage counts.
func TestRunAIPerf013MetricTags(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) { c.PredictionAcceptRate = 0.75 })
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(6)
	cfg.Load.Concurrency = ptr(2)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	keys := func(tag string) []string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(doc[tag], &m); err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	sweepKeys := []string{"avg", "max", "min", "p50", "p90", "p95", "p99", "std", "unit"}
	for _, tag := range []string{"effective_concurrency", "effective_decode_throughput", "effective_prefill_throughput",
		"effective_decode_concurrency", "effective_prefill_concurrency", "effective_total_throughput",
		"effective_decode_throughput_per_user", "effective_prefill_throughput_per_user", "tokens_in_flight",
		"active_decode_throughput", "active_prefill_throughput", "active_decode_throughput_per_user",
		"active_prefill_throughput_per_user", "active_total_throughput"} {
		if got := keys(tag); !slices.Equal(got, sweepKeys) {
			t.Errorf("%s keys %v, want %v", tag, got, sweepKeys)
		}
	}
	if c := avg(t, doc, "effective_concurrency"); !(c > 0 && c <= 2) {
		t.Errorf("effective_concurrency avg %v, want in (0, 2] at concurrency 2", c)
	}
	if got := keys("credit_to_start_latency"); !slices.Contains(got, "count") || !slices.Contains(got, "p25") {
		t.Errorf("credit_to_start_latency keys %v, want a full distribution", got)
	}
	for tag, want := range map[string]float64{
		"usage_accepted_prediction_tokens": 6, "usage_rejected_prediction_tokens": 2,
		"total_usage_accepted_prediction_tokens": 36, "total_usage_rejected_prediction_tokens": 12,
	} {
		if got := avg(t, doc, tag); got != want {
			t.Errorf("%s = %v, want %v (8 output tokens, 75%% accepted, 6 requests)", tag, got, want)
		}
	}
}
