package benchmark

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// The telemetry half of the llama-server integration test
// (llamaserver_test.go): every case also scrapes the server's /metrics
// as a benchmark does, and the server_metrics_export.json it writes must
// agree with the server's own counters and the run.

// llamaTelemetry turns server-metrics collection on for a case (baseConfig
// turns it off), with a short flush: llama-server counts a request's
// tokens when it finishes it, a moment after its last byte.
func llamaTelemetry(cfg *config.Config) {
	cfg.Telemetry.ServerMetrics.Disabled = false
	flush := 0.5
	cfg.Telemetry.ServerMetrics.FlushSeconds = &flush
}

// llamaServerTelemetryCheck checks the case's server-metrics export: the
// llamacpp:* families are there, the predicted-token counter's increase
// over the profiling window is requests x llamaOSL (what the server's
// counter itself says, before and after), the busy-request gauge never
// exceeds the concurrency, and the console names the backend.
func llamaServerTelemetryCheck(t *testing.T, c llamaCase, dir, console string, recs []llamaRecord) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "server_metrics_export.json"))
	if err != nil {
		t.Fatalf("no server metrics export: %v", err)
	}
	var doc struct {
		Metrics map[string]struct {
			Type   string `json:"type"`
			Series []struct {
				Stats map[string]float64 `json:"stats"`
			} `json:"series"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"llamacpp:prompt_tokens", "llamacpp:tokens_predicted", "llamacpp:n_decode", "llamacpp:requests_processing", "llamacpp:predicted_tokens_seconds"} {
		if m, ok := doc.Metrics[name]; !ok || len(m.Series) == 0 {
			t.Errorf("server_metrics_export.json lacks %s", name)
		}
	}
	stat := func(name, key string) float64 {
		m := doc.Metrics[name]
		if len(m.Series) == 0 {
			return -1
		}
		return m.Series[0].Stats[key]
	}
	if got, want := stat("llamacpp:tokens_predicted", "total"), float64(len(recs)*llamaOSL); got != want {
		t.Errorf("llamacpp:tokens_predicted total over the profiling window = %v; want %d requests x %d = %v", got, len(recs), llamaOSL, want)
	}
	if got := stat("llamacpp:prompt_tokens", "total"); got <= 0 {
		t.Errorf("llamacpp:prompt_tokens total = %v; want > 0", got)
	}
	if got := stat("llamacpp:requests_processing", "max"); got > float64(c.concurrency) {
		t.Errorf("llamacpp:requests_processing max = %v; more than the concurrency %d", got, c.concurrency)
	}
	if !strings.Contains(console, "Server Metrics (llama.cpp)") {
		t.Error("the console's server-metrics panel does not name llama.cpp")
	}
}
