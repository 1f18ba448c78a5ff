package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// mock starts the embedded mock server in-process and counts the inference
// requests it receives.
func mock(t *testing.T, edit func(*mockserver.Config)) (url string, requests *atomic.Int64) {
	t.Helper()
	cfg := mockConfig(t, edit)
	requests = new(atomic.Int64)
	h := mockserver.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			requests.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

func ptr[T any](v T) *T { return &v }

func baseConfig(t *testing.T, url string) *config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.Endpoint.ModelNames = []string{"mock-model"}
	cfg.Endpoint.URLs = []string{url}
	cfg.Endpoint.Streaming = true
	cfg.Input.InputTokens.Mean = 64
	cfg.Input.OutputTokens.Mean = ptr(8)
	cfg.Input.RandomSeed = ptr(int64(7))
	cfg.Output.ArtifactDir = t.TempDir()
	cfg.Output.ArtifactDirExplicit = true
	cfg.Service.UIType = config.UINone
	cfg.Load.RequestCount = ptr(10)
	// Telemetry has its own tests (telemetry_test.go); here its /metrics
	// probes would reach handlers that count every request as inference.
	cfg.Telemetry.ServerMetrics.Disabled = true
	cfg.Telemetry.GPU.Disabled = true
	return &cfg
}

func run(t *testing.T, ctx context.Context, cfg *config.Config) (stdout string, err error) {
	t.Helper()
	if verr := cfg.Validate(); verr != nil {
		t.Fatalf("test config invalid: %v", verr)
	}
	var out, errOut bytes.Buffer
	err = Run(ctx, cfg, IO{Env: environ.Read(), Stdout: &out, Stderr: &errOut, CLICommand: "aiperf profile (test)", Version: "test"})
	return out.String() + errOut.String(), err
}

func summary(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

func avg(t *testing.T, doc map[string]json.RawMessage, tag string) float64 {
	t.Helper()
	var v struct{ Avg float64 }
	raw, ok := doc[tag]
	if !ok {
		t.Fatalf("summary lacks %s", tag)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v.Avg
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		if !json.Valid([]byte(l)) {
			t.Fatalf("%s: invalid JSON line %q", path, l)
		}
		out = append(out, l)
	}
	return out
}

func exitCode(err error) int {
	var e *config.ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestRunWarmupIsExcluded(t *testing.T) {
	t.Parallel()
	url, requests := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Warmup.RequestCount = ptr(5)
	cfg.Load.Concurrency = ptr(3)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	if got := requests.Load(); got != 15 {
		t.Errorf("server saw %d requests; want 5 warmup + 10 profiling", got)
	}
	dir := cfg.Output.ArtifactDir
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "request_count"); n != 10 {
		t.Errorf("request_count = %v; want 10", n)
	}
	// As in AIPerf 0.13, the per-request file carries the warmup records
	// too, marked by their phase; they are in no result.
	recs := lines(t, filepath.Join(dir, "profile_export.jsonl"))
	phases := map[string]int{}
	for _, l := range recs {
		switch {
		case strings.Contains(l, `"benchmark_phase":"profiling"`):
			phases["profiling"]++
		case strings.Contains(l, `"benchmark_phase":"warmup"`):
			phases["warmup"]++
		default:
			t.Errorf("record of no known phase: %s", l[:min(len(l), 200)])
		}
	}
	if phases["profiling"] != 10 || phases["warmup"] != 5 {
		t.Errorf("JSONL records by phase %v; want 10 profiling and 5 warmup", phases)
	}
	if !strings.Contains(out, "NVIDIA AIPerf | LLM Metrics") {
		t.Errorf("console lacks the table:\n%s", out)
	}
}

func TestRunRequestRate(t *testing.T) {
	t.Parallel()
	url, requests := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestRate = ptr(200.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.RequestCount = ptr(20)
	cfg.Output.ArtifactDirExplicit = false
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	if got := requests.Load(); got != 20 {
		t.Errorf("server saw %d requests; want 20", got)
	}
	dir := filepath.Join(cfg.Output.ArtifactDir, "mock-model-openai-chat-request_rate200.0")
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	for _, tag := range []string{"schedule_lag", "late_request_count", "request_throughput", "time_to_first_token"} {
		if _, ok := doc[tag]; !ok {
			t.Errorf("summary lacks %s", tag)
		}
	}
	if !strings.Contains(out, "Schedule lag: p50") {
		t.Errorf("console lacks the schedule lag line:\n%s", out)
	}
}

func TestRunAllRequestsFailStillWritesArtifacts(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: every connect is refused
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(4)
	out, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitFailure {
		t.Fatalf("exit code %d (%v); want 1\n%s", code, err, out)
	}
	dir := cfg.Output.ArtifactDir
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "error_request_count"); n != 4 {
		t.Errorf("error_request_count = %v; want 4", n)
	}
	var errs []struct {
		ErrorDetails struct{ Type string } `json:"error_details"`
		Count        int
	}
	if err := json.Unmarshal(doc["error_summary"], &errs); err != nil || len(errs) != 1 || errs[0].Count != 4 || errs[0].ErrorDetails.Type != "ConnectionError" {
		t.Errorf("error_summary = %s (%v); want 4 ConnectionErrors", doc["error_summary"], err)
	}
	if n := len(lines(t, filepath.Join(dir, "profile_export.jsonl"))); n != 4 {
		t.Errorf("JSONL has %d lines; want 4 error records", n)
	}
}

func TestRunDurationGraceCancelsStragglers(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT = time.Hour // no response ever completes
	})
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.BenchmarkDuration = ptr(0.2)
	cfg.Load.BenchmarkGracePeriod = ptr(config.Seconds(0))
	out, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitFailure {
		t.Fatalf("exit code %d (%v); want 1 (no request completed)\n%s", code, err, out)
	}
	// AIPerf keeps no record of a request cut off at the end of the grace
	// period and counts it as no error. Here the two were sent, so they are
	// counted apart and keep their lines, marked, but they are no errors.
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "cancelled_at_phase_end_count"); n != 2 {
		t.Errorf("cancelled_at_phase_end_count = %v; want the 2 in-flight requests", n)
	}
	if _, ok := doc["error_request_count"]; ok || strings.Contains(string(doc["error_summary"]), "Cancellation") {
		t.Errorf("error_request_count %s, error_summary %s; the stragglers are no errors", doc["error_request_count"], doc["error_summary"])
	}
	recs := lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))
	if len(recs) != 2 {
		t.Fatalf("JSONL has %d lines; want the 2 in-flight requests", len(recs))
	}
	for _, l := range recs {
		if !strings.Contains(l, `"was_cancelled":true`) || !strings.Contains(l, `"code":499`) || !strings.Contains(l, `"type":"PhaseEndCancellation"`) {
			t.Errorf("straggler not recorded as cut off at the grace period: %s", l)
		}
	}
	if !strings.Contains(out, "2 requests were still in flight when the phase ended (its grace period ran out") {
		t.Errorf("the console does not say what became of the stragglers:\n%s", out)
	}
}

func TestRunSameSeedSameInputs(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	var inputs [2][]byte
	for i := range inputs {
		cfg := baseConfig(t, url)
		cfg.Load.RequestCount = ptr(3)
		if out, err := run(t, context.Background(), cfg); err != nil {
			t.Fatalf("Run: %v\n%s", err, out)
		}
		b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
		if err != nil {
			t.Fatal(err)
		}
		inputs[i] = b
	}
	if !bytes.Equal(inputs[0], inputs[1]) {
		t.Error("two runs with --random-seed 7 wrote different inputs.json")
	}
	if !bytes.Contains(inputs[0], []byte(`"session_id": "session_000000"`)) {
		t.Errorf("inputs.json does not use AIPerf's seeded session ids:\n%.300s", inputs[0])
	}
}

func TestRunExportLevelsAndPrefix(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	tests := []struct {
		level   config.ExportLevel
		prefix  string
		present []string
		absent  []string
	}{
		{config.ExportSummary, "", []string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "inputs.json"}, []string{"profile_export.jsonl", "profile_export_raw.jsonl"}},
		{config.ExportRaw, "", []string{"profile_export.jsonl", "profile_export_raw.jsonl"}, nil},
		{config.ExportRecords, "myrun.json", []string{"myrun.json", "myrun.csv", "myrun.jsonl", "inputs.json"}, []string{"profile_export_aiperf.json"}},
	}
	for _, tt := range tests {
		cfg := baseConfig(t, url)
		cfg.Load.RequestCount = ptr(3)
		cfg.Output.ExportLevel = tt.level
		cfg.Output.ProfileExportPrefix = tt.prefix
		if out, err := run(t, context.Background(), cfg); err != nil {
			t.Fatalf("%s/%s: Run: %v\n%s", tt.level, tt.prefix, err, out)
		}
		for _, f := range tt.present {
			if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, f)); err != nil {
				t.Errorf("%s/%q: %s missing", tt.level, tt.prefix, f)
			}
		}
		for _, f := range tt.absent {
			if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, f)); err == nil {
				t.Errorf("%s/%q: %s written", tt.level, tt.prefix, f)
			}
		}
	}
}

func TestRunRejectsUnknownGoodputTagAsUsageError(t *testing.T) {
	t.Parallel()
	url, requests := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Input.Goodput = map[string]float64{"time_to_first_tokn": 100}
	_, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitUsage || !strings.Contains(err.Error(), "time_to_first_tokn") {
		t.Errorf("err = %v (code %d); want a usage error naming the tag", err, code)
	}
	if requests.Load() != 0 {
		t.Error("requests were sent despite a configuration error")
	}
}

func TestRunGoodput(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Input.Goodput = map[string]float64{"time_to_first_token": 60000}
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "good_request_count"); n != 10 {
		t.Errorf("good_request_count = %v; want all 10 under a 60 s TTFT SLO", n)
	}
	if g := avg(t, doc, "goodput"); g <= 0 {
		t.Errorf("goodput = %v; want > 0", g)
	}
}
