package benchmark

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
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
