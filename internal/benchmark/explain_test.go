package benchmark

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/cluster"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/validity"
)

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// recordMetrics reads profile_export.jsonl's per-record metric values (ms).
func recordMetrics(t *testing.T, dir string) []map[string]float64 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Metrics map[string]struct {
				Value json.RawMessage `json:"value"`
			} `json:"metrics"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", sc.Text(), err)
		}
		m := map[string]float64{}
		for k, v := range line.Metrics {
			var x float64
			if json.Unmarshal(v.Value, &x) == nil {
				m[k] = x
			}
		}
		out = append(out, m)
	}
	return out
}

// TestRunTimeDecomposition: against the mock giving its own account in
// each server form, every record carries each part the form reports,
// equal to the mock's configured value within 1 ms; the summary holds the
// decomposition with every record counted under its source; and the
// unexplained rest is not negative beyond that tolerance (the mock really
// spends the times it reports).
func TestRunTimeDecomposition(t *testing.T) {
	const (
		queueMs, ttftMs, itlMs = 7.0, 12.0, 2.0
		osl                    = 5
	)
	cases := []struct {
		name, form, proto string
		streaming         bool
		parts             map[string]float64 // per-record metric -> want (ms)
		source            string
	}{
		{"llamacpp stream", mockserver.ServerTimingLlamaCpp, "", true,
			map[string]float64{"server_prefill_time": ttftMs, "server_decode_time": (osl - 1) * itlMs}, "llama.cpp timings"},
		{"llamacpp body", mockserver.ServerTimingLlamaCpp, "", false,
			map[string]float64{"server_prefill_time": ttftMs, "server_decode_time": osl * itlMs}, "llama.cpp timings"},
		// TGI writes whole milliseconds.
		{"tgi body", mockserver.ServerTimingTGI, "", false,
			map[string]float64{"server_queue_time": queueMs, "server_inference_time": ttftMs + osl*itlMs}, "TGI headers"},
		{"vllm grpc stream", mockserver.ServerTimingVLLM, mockserver.OTLPGRPC, true,
			map[string]float64{"server_queue_time": queueMs, "server_prefill_time": ttftMs, "server_decode_time": (osl - 1) * itlMs}, "vLLM OTLP span"},
		{"vllm http body", mockserver.ServerTimingVLLM, mockserver.OTLPHTTPProtobuf, false,
			map[string]float64{"server_queue_time": queueMs, "server_prefill_time": ttftMs, "server_decode_time": osl * itlMs}, "vLLM OTLP span"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recvAddr := ""
			if c.form == mockserver.ServerTimingVLLM {
				recvAddr = freeAddr(t)
			}
			url, _ := mock(t, func(m *mockserver.Config) {
				m.Fast = false
				m.TTFT, m.ITL, m.ServerQueue = time.Duration(ttftMs*1e6), time.Duration(itlMs*1e6), time.Duration(queueMs*1e6)
				m.ServerTiming, m.OTLPTracesProtocol = c.form, c.proto
				m.OTLPTracesEndpoint = recvAddr
				if c.proto == mockserver.OTLPHTTPProtobuf {
					m.OTLPTracesEndpoint = "http://" + recvAddr
				}
			})
			cfg := baseConfig(t, url)
			cfg.Endpoint.Streaming = c.streaming
			cfg.Input.OutputTokens.Mean = ptr(osl)
			cfg.Load.RequestCount = ptr(6)
			cfg.Load.Concurrency = ptr(2)
			cfg.Fidelity.OTLPTracesReceiver = recvAddr
			out, err := run(t, context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, out)
			}
			recs := recordMetrics(t, cfg.Output.ArtifactDir)
			if len(recs) != 6 {
				t.Fatalf("%d records, want 6", len(recs))
			}
			for i, m := range recs {
				for tag, want := range c.parts {
					got, ok := m[tag]
					if !ok {
						t.Errorf("record %d lacks %s (%v)", i, tag, m)
						continue
					}
					if d := got - want; d < -1 || d > 1 {
						t.Errorf("record %d: %s = %v ms, want %v within 1 ms", i, tag, got, want)
					}
				}
				if u, ok := m["unexplained_time"]; !ok || u < -1 {
					t.Errorf("record %d: unexplained_time %v (present %v), want >= -1 ms", i, u, ok)
				}
			}
			doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			var d struct {
				Sources    map[string]int `json:"sources"`
				Explained  int            `json:"requests_with_server_timing"`
				Components []struct {
					Metric string `json:"metric"`
				} `json:"components"`
			}
			if err := json.Unmarshal(doc["time_decomposition"], &d); err != nil {
				t.Fatalf("time_decomposition %s: %v", doc["time_decomposition"], err)
			}
			if d.Explained != 6 || d.Sources[c.source] != 6 {
				t.Errorf("time_decomposition %s: want 6 records from %s", doc["time_decomposition"], c.source)
			}
			if !strings.Contains(out, "Time decomposition (6 of 6 requests") {
				t.Errorf("console lacks the decomposition block:\n%s", out)
			}
		})
	}
}

// verdictOf reads client_health.validity from a run's summary.
func verdictOf(t *testing.T, dir string) (string, []validity.Reason) {
	t.Helper()
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	var h struct {
		Validity *struct {
			Verdict string `json:"verdict"`
			Reasons []struct {
				Check, Level, Message string
			} `json:"reasons"`
		} `json:"validity"`
	}
	if err := json.Unmarshal(doc["client_health"], &h); err != nil || h.Validity == nil {
		t.Fatalf("client_health %s: %v; want a validity verdict", doc["client_health"], err)
	}
	var reasons []validity.Reason
	for _, r := range h.Validity.Reasons {
		reasons = append(reasons, validity.Reason{Check: r.Check, Message: r.Level + ": " + r.Message})
	}
	return h.Validity.Verdict, reasons
}

// TestRunInvalidVerdict: a request rate the client cannot offer (200/s
// against a server taking 300 ms per request, through a client allowed 2
// connections, so at most about 8 of the 200 requests due in the second
// can leave, whatever the machine's speed) is INVALID for its unsent
// requests, and --fail-on-invalid exits with ExitInvalidRun.
func TestRunInvalidVerdict(t *testing.T) {
	t.Setenv("AIPERF_HTTP_CONNECTION_LIMIT", "2")
	url, _ := mock(t, func(c *mockserver.Config) { c.Fast, c.TTFT, c.ITL = false, 300*time.Millisecond, time.Millisecond })
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.RequestRate = ptr(200.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.BenchmarkDuration = ptr(1.0)
	grace := config.Seconds(0.5)
	cfg.Load.BenchmarkGracePeriod = &grace
	cfg.Input.OutputTokens.Mean = ptr(2)
	cfg.Fidelity.FailOnInvalid = true
	out, err := run(t, context.Background(), cfg)
	wantInvalid(t, cfg, out, err, validity.CheckUnsent, "")
}

// wantInvalid checks that a --fail-on-invalid run exited with
// ExitInvalidRun, its summary's verdict is INVALID with an INVALID
// reason for check whose message holds text, and the console says so.
func wantInvalid(t *testing.T, cfg *config.Config, out string, err error, check, text string) {
	t.Helper()
	var ee *config.ExitError
	if !errors.As(err, &ee) || ee.Code != config.ExitInvalidRun {
		t.Fatalf("Run = %v, want exit code %d\n%s", err, config.ExitInvalidRun, out)
	}
	v, reasons := verdictOf(t, cfg.Output.ArtifactDir)
	if v != "INVALID" {
		t.Fatalf("verdict %s (%v), want INVALID", v, reasons)
	}
	found := false
	for _, r := range reasons {
		found = found || (r.Check == check && strings.HasPrefix(r.Message, "INVALID") && strings.Contains(r.Message, text))
	}
	if !found {
		t.Errorf("reasons %v lack an INVALID %s saying %q", reasons, check, text)
	}
	if !strings.Contains(out, "Run validity: INVALID") || !strings.Contains(out, "INVALID "+check) {
		t.Errorf("console lacks the verdict or its reason:\n%s", out)
	}
}

// schedStats returns a reader of the client's thread times that, on
// each call, adds run to the threads' time on a CPU, wait to their wait
// for one, and one time put on a CPU: the CPU wait per wake a run reports
// is wait, set by the test and not by this machine's load.
func schedStats(run, wait time.Duration) func() (clienthealth.SchedStat, bool) {
	var s clienthealth.SchedStat
	var mu sync.Mutex
	return func() (clienthealth.SchedStat, bool) {
		mu.Lock()
		defer mu.Unlock()
		s.Run += run
		s.Wait += wait
		s.Slices++
		return s, true
	}
}

// quietCPU is a client whose threads never waited for a CPU.
func quietCPU() func() (clienthealth.SchedStat, bool) { return schedStats(time.Millisecond, 0) }

// runSched is run with the client's thread times read from sched.
func runSched(t *testing.T, cfg *config.Config, sched func() (clienthealth.SchedStat, bool)) (string, error) {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("test config invalid: %v", err)
	}
	var out, errOut bytes.Buffer
	err := Run(context.Background(), cfg, IO{Env: environ.Read(), Stdout: &out, Stderr: &errOut, CLICommand: "aiperf profile (test)", Version: "test", SchedStat: sched})
	return out.String() + errOut.String(), err
}

// TestRunCPUStarvedVerdict: a client whose threads waited 2 ms for a CPU
// each time they woke (what a loaded machine causes) is INVALID for its
// CPU wait, and
// --fail-on-invalid exits with ExitInvalidRun. The wait is injected: this
// machine's own load must not decide the verdict (docs/explain.md has the
// busy-loop run measured end to end).
func TestRunCPUStarvedVerdict(t *testing.T) {
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(1)
	cfg.Fidelity.FailOnInvalid = true
	out, err := runSched(t, cfg, schedStats(time.Millisecond, 2*time.Millisecond))
	wantInvalid(t, cfg, out, err, validity.CheckCPUWait, "2000 µs")
}

// TestRunQuietVerdict: a quiet closed-loop run against the mock, its
// client's threads never kept from a CPU, is not INVALID and
// --fail-on-invalid exits 0. It is VALID unless this machine's own load
// stretched the send lag or the CPU share (the only checks a busy shared
// machine can trip here; the rules themselves are table-tested in
// package validity).
func TestRunQuietVerdict(t *testing.T) {
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(1)
	cfg.Fidelity.FailOnInvalid = true
	out, err := runSched(t, cfg, quietCPU())
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	v, reasons := verdictOf(t, cfg.Output.ArtifactDir)
	switch v {
	case "VALID":
		if !strings.Contains(out, "Run validity: VALID") {
			t.Errorf("console lacks the verdict:\n%s", out)
		}
	case "DEGRADED":
		for _, r := range reasons {
			if r.Check != validity.CheckSendLag && r.Check != validity.CheckCPU && r.Check != validity.CheckGovernor {
				t.Errorf("quiet run DEGRADED by %s: %s", r.Check, r.Message)
			}
		}
		t.Logf("DEGRADED by this machine's load: %v", reasons)
	default:
		t.Errorf("verdict %s (%v), want VALID", v, reasons)
	}
}

// TestRunHeldVerdict: the same unreachable rate, held back by a
// --concurrency the user chose, is not INVALID: the requests never sent
// are reported but not judged (held_by), and --fail-on-invalid exits 0.
func TestRunHeldVerdict(t *testing.T) {
	url, _ := mock(t, func(c *mockserver.Config) { c.Fast, c.TTFT, c.ITL = false, 300*time.Millisecond, time.Millisecond })
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.RequestRate = ptr(200.0)
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.BenchmarkDuration = ptr(1.0)
	grace := config.Seconds(0.5)
	cfg.Load.BenchmarkGracePeriod = &grace
	cfg.Input.OutputTokens.Mean = ptr(2)
	cfg.Fidelity.FailOnInvalid = true
	out, err := runSched(t, cfg, quietCPU())
	if err != nil {
		t.Fatalf("Run: %v, want exit 0 (the limit was the user's)\n%s", err, out)
	}
	v, reasons := verdictOf(t, cfg.Output.ArtifactDir)
	if v == "INVALID" {
		t.Fatalf("verdict INVALID (%v) for a limit the user chose", reasons)
	}
	for _, r := range reasons {
		if r.Check == validity.CheckUnsent && !strings.HasPrefix(r.Message, "VALID") {
			t.Errorf("unsent requests judged: %s", r.Message)
		}
	}
}

// TestJudgeCPUWaitWorkers: the client's CPU wait is judged when this
// process sent the requests, and not with load workers, whose records
// were timed on their own machines.
func TestJudgeCPUWaitWorkers(t *testing.T) {
	perWake := 2000.0 // µs
	h := &clienthealth.Report{CPUWaitPerWakeUs: &perWake}
	cfg := config.Defaults()
	plan := &Plan{Config: &cfg}
	for _, c := range []struct {
		name    string
		workers []cluster.WorkerInfo
		judged  bool
	}{
		{"this process", nil, true},
		{"load workers", []cluster.WorkerInfo{{State: "ready"}}, false},
	} {
		v := judgeValidity(plan, h, nil, c.workers, 10)
		judged := false
		for _, r := range v.Reasons {
			judged = judged || (r.Check == validity.CheckCPUWait && r.Level == validity.Invalid)
		}
		if judged != c.judged {
			t.Errorf("%s: CPU wait judged INVALID %v, want %v (%+v)", c.name, judged, c.judged, v.Reasons)
		}
	}
}
