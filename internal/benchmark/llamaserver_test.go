package benchmark

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// The real-engine integration test: whole runs against llama.cpp's
// llama-server, which closes streamed connections its headers promised to
// keep alive (the phantom-error case). It needs a running
// server, started with
//
//	scripts/llama-server.sh start 8089     # builds and caches it on first use
//	AIPERF_TEST_LLAMA_SERVER=http://127.0.0.1:8089 \
//	  GOTOOLCHAIN=local go test -count=1 -run LlamaServer -v ./internal/benchmark/
//
// and is skipped otherwise. Each case checks the run against what the
// server itself reports (llamaServerCheck) and against the server-metrics
// export the run wrote from the same /metrics (llamaServerTelemetryCheck,
// llamaserver_telemetry_test.go).

// llamaServerEnv names the environment variable with the server's URL.
const llamaServerEnv = "AIPERF_TEST_LLAMA_SERVER"

// llamaOSL is the output length every case asks for, with ignore_eos.
const llamaOSL = 8

// llamaCase is one run of the matrix.
type llamaCase struct {
	endpoint    config.EndpointType
	streaming   bool
	concurrency int
}

func (c llamaCase) name() string {
	return fmt.Sprintf("%s/stream=%v/c=%d", c.endpoint, c.streaming, c.concurrency)
}

// llamaMetrics scrapes the server's /metrics, by AIPerf's family name
// (counters without "_total"), summing the series of a family.
func llamaMetrics(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("scraping %s/metrics: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s/metrics: status %d, %v (start the server with --metrics)", url, resp.StatusCode, err)
	}
	fams, err := prom.Parse(body, resp.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("parsing %s/metrics: %v", url, err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		for _, s := range f.Series {
			out[f.Name] += s.Value
		}
	}
	return out
}

// llamaServerCheck is run after every case with the server's metrics
// before and after it and the run's records; the telemetry tests extend it.
var llamaServerCheck = func(t *testing.T, c llamaCase, before, after map[string]float64, recs []llamaRecord) {
	t.Helper()
	// llama-server counts no requests, but every request of a case
	// predicts exactly llamaOSL tokens (ignore_eos), so its counter of
	// predicted tokens grew by requests x llamaOSL.
	got := after["llamacpp:tokens_predicted"] - before["llamacpp:tokens_predicted"]
	if want := float64(len(recs) * llamaOSL); got != want {
		t.Errorf("llamacpp:tokens_predicted_total grew by %v; want %d requests x %d tokens = %v", got, len(recs), llamaOSL, want)
	}
}

// llamaRecord is the part of a JSONL record the test reads.
type llamaRecord struct {
	Metadata struct {
		XRequestID        string `json:"x_request_id"`
		ConnectionRetries int    `json:"connection_retries"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
	} `json:"metrics"`
	Error json.RawMessage `json:"error"`
}

func TestLlamaServerIntegration(t *testing.T) {
	url := strings.TrimRight(os.Getenv(llamaServerEnv), "/")
	if url == "" {
		t.Skipf("%s is not set: start scripts/llama-server.sh and point it at the server to run this test", llamaServerEnv)
	}
	tokDir := testmodels.Dir(t, "qwen3")
	var cases []llamaCase
	for _, ep := range []config.EndpointType{config.EndpointChat, config.EndpointCompletions} {
		for _, s := range []bool{true, false} {
			for _, c := range []int{1, 4, 16} {
				cases = append(cases, llamaCase{ep, s, c})
			}
		}
	}
	// One case at a time: the server's counters are read around each.
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			n := max(4, 2*c.concurrency)
			cfg := baseConfig(t, url)
			cfg.Endpoint.ModelNames = []string{"qwen3-tiny-random"}
			cfg.Endpoint.Type = c.endpoint
			cfg.Endpoint.Streaming = c.streaming
			cfg.Endpoint.TimeoutSeconds = 120
			cfg.Tokenizer.Name = tokDir
			cfg.Input.InputTokens.Mean = 32
			cfg.Input.OutputTokens.Mean = ptr(llamaOSL)
			cfg.Input.Extra = []config.ExtraInput{{Key: "ignore_eos", Value: json.RawMessage("true")}}
			cfg.Load.Concurrency = ptr(c.concurrency)
			cfg.Load.RequestCount = ptr(n)
			llamaTelemetry(cfg)
			before := llamaMetrics(t, url)
			start := time.Now()
			out, err := run(t, context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, out)
			}
			after := llamaMetrics(t, url)
			var recs []llamaRecord
			retries := 0
			for _, l := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
				var r llamaRecord
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatal(err)
				}
				if r.Error != nil {
					t.Errorf("request %s failed: %s", r.Metadata.XRequestID, r.Error)
				}
				var usage int
				if json.Unmarshal(r.Metrics["usage_completion_tokens"].Value, &usage) != nil || usage != llamaOSL {
					t.Errorf("request %s: server-reported completion tokens %s; want %d", r.Metadata.XRequestID, r.Metrics["usage_completion_tokens"].Value, llamaOSL)
				}
				// llama.cpp's own account: its timings object on every answer.
				for _, tag := range []string{"server_prefill_time", "server_decode_time", "unexplained_time"} {
					var v float64
					if json.Unmarshal(r.Metrics[tag].Value, &v) != nil || (tag != "unexplained_time" && !(v > 0)) {
						t.Errorf("request %s: %s %s; want the server's own time", r.Metadata.XRequestID, tag, r.Metrics[tag].Value)
					}
				}
				retries += r.Metadata.ConnectionRetries
				recs = append(recs, r)
			}
			var decomp struct {
				Sources map[string]int `json:"sources"`
			}
			doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			if err := json.Unmarshal(doc["time_decomposition"], &decomp); err != nil || decomp.Sources["llama.cpp timings"] != n {
				t.Errorf("time_decomposition %s: want all %d requests with llama.cpp timings (%v)", doc["time_decomposition"], n, err)
			}
			if !strings.Contains(out, "Time decomposition (") {
				t.Errorf("the console lacks the time decomposition:\n%s", out)
			}
			if len(recs) != n {
				t.Errorf("%d records; want %d", len(recs), n)
			}
			llamaServerCheck(t, c, before, after, recs)
			llamaServerTelemetryCheck(t, c, cfg.Output.ArtifactDir, out, recs)
			t.Logf("%s: %d requests in %.1f s, %d connection resends", c.name(), len(recs), time.Since(start).Seconds(), retries)
		})
	}
}
