package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/aiperf-go/aiperf/internal/api/apitest"
	"github.com/aiperf-go/aiperf/internal/live"
)

const secret = "sk-topsecret-123"

func startTest(t *testing.T, dir string) *Server {
	t.Helper()
	s, err := Start("127.0.0.1:0", Info{
		Config:      json.RawMessage(`{"endpoint":{"api_key":"<redacted>","note":"` + secret + `"}}`),
		Run:         RunInfo{BenchmarkID: "abc123def456", CLICommand: "aiperf profile --api-key '<redacted>'"},
		Labels:      []Label{{"model", "m1"}, {"endpoint_type", "chat"}, {"streaming", "true"}, {"concurrency", "4"}},
		ArtifactDir: dir,
		SummaryFile: filepath.Join(dir, "profile_export_aiperf.json"),
		Version:     "v-test",
		Secrets:     []string{secret},
		Header:      func(tag string) string { return map[string]string{"request_latency": "Request Latency"}[tag] },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func snapshot(seq uint64, final bool) *live.Snapshot {
	return &live.Snapshot{
		Seq: seq, At: time.Duration(seq) * 250 * time.Millisecond, Wall: time.Unix(1700000000, 0).Add(time.Duration(seq) * time.Second),
		Phase:    live.Progress{Phase: "profiling", Elapsed: 2 * time.Second, Sent: 10, Done: 8, Errors: 1, InFlight: 2, Total: 20, Late: 1, MaxLag: 3 * time.Millisecond},
		Finished: []live.Progress{{Phase: "warmup", Elapsed: time.Second, Sent: 3, Done: 3, Total: 3}},
		Metrics: []live.Metric{
			{Tag: "request_latency", Header: "Request Latency", Unit: "ms", Kind: live.Distribution, Count: 8, Avg: 12.5, P50: 11, P99: 20},
			{Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", Kind: live.Rate, Count: 2, Avg: 4, Series: []float64{3, 5}},
		},
		Health: live.Health{CPUPct: 12, Goroutines: 30, LagP99: time.Millisecond},
		Final:  final,
	}
}

func TestRoutesWhileRunning(t *testing.T) {
	t.Parallel()
	s := startTest(t, t.TempDir())
	if code, body := get(t, s.URL()+"/readyz"); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz before the run = %d %q; want 503", code, body)
	}
	s.ObserveRecord(&live.Record{WorkerID: "worker_0", End: time.Unix(1700000001, 0)})
	s.ObserveRecord(&live.Record{WorkerID: "worker_1", Error: &live.RecordError{Code: 500}})
	s.ObserveRecord(&live.Record{WorkerID: "worker_0"})
	s.Observe(snapshot(1, false))

	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/nope": 404} {
		if code, _ := get(t, s.URL()+path); code != want {
			t.Errorf("GET %s = %d; want %d", path, code, want)
		}
	}
	var prog struct {
		Phases map[string]struct {
			Phase         string   `json:"phase"`
			Sent          int      `json:"requests_sent"`
			Completed     int      `json:"requests_completed"`
			Errors        int      `json:"request_errors"`
			InFlight      int      `json:"in_flight_requests"`
			Total         *int     `json:"total_expected_requests"`
			Progress      *float64 `json:"requests_progress_percent"`
			ETA           *float64 `json:"requests_eta_sec"`
			Complete      bool     `json:"is_requests_complete"`
			StartNs       int64    `json:"start_ns"`
			LastUpdateNs  int64    `json:"last_update_ns"`
			MaxLagMs      float64  `json:"max_schedule_lag_ms"`
			ElapsedSecond float64  `json:"requests_elapsed_time"`
		} `json:"phases"`
		Workers struct{ Ready, Total int } `json:"workers"`
		State   string                     `json:"system_state"`
		Done    bool                       `json:"results_exported"`
	}
	getJSON(t, s.URL()+"/api/progress", &prog)
	p := prog.Phases["profiling"]
	if p.Sent != 10 || p.Completed != 8 || p.Errors != 1 || p.InFlight != 2 || p.Total == nil || *p.Total != 20 ||
		p.Progress == nil || *p.Progress != 40 || p.ETA == nil || *p.ETA != 3 || p.Complete || p.MaxLagMs != 3 ||
		p.LastUpdateNs-p.StartNs != int64(2*time.Second) {
		t.Errorf("/api/progress profiling = %+v", p)
	}
	if w := prog.Phases["warmup"]; !w.Complete || w.Completed != 3 {
		t.Errorf("/api/progress warmup = %+v; want complete with 3 done", w)
	}
	if prog.State != "profiling" || prog.Done || prog.Workers.Total != 2 {
		t.Errorf("/api/progress state %q results_exported %v workers %+v", prog.State, prog.Done, prog.Workers)
	}

	var workers struct {
		Workers map[string]struct {
			TaskStats struct{ Total, Failed, Completed int } `json:"task_stats"`
			Status    string                                 `json:"status"`
		} `json:"workers"`
		Groups map[string]struct {
			TaskStats struct{ Total, Failed, Completed int } `json:"task_stats"`
			Health    struct {
				Goroutines int `json:"goroutines"`
			} `json:"health"`
		} `json:"worker_groups"`
	}
	getJSON(t, s.URL()+"/api/workers", &workers)
	if w := workers.Workers["worker_0"]; w.TaskStats.Completed != 2 || w.Status != "healthy" {
		t.Errorf("/api/workers worker_0 = %+v", w)
	}
	if g := workers.Groups["local"]; g.TaskStats.Total != 3 || g.TaskStats.Failed != 1 || g.Health.Goroutines != 30 {
		t.Errorf("/api/workers group = %+v", g)
	}

	var metrics struct {
		Version     string                               `json:"aiperf_version"`
		BenchmarkID string                               `json:"benchmark_id"`
		Concurrency float64                              `json:"concurrency"`
		Streaming   bool                                 `json:"streaming"`
		Final       bool                                 `json:"final"`
		Metrics     map[string]map[string]any            `json:"metrics"`
		Extra       map[string]map[string]map[string]any `json:"-"`
	}
	getJSON(t, s.URL()+"/api/metrics", &metrics)
	if m := metrics.Metrics["request_latency"]; metrics.Final || metrics.Concurrency != 4 || !metrics.Streaming || m["p99"] != 20.0 || m["unit"] != "ms" {
		t.Errorf("/api/metrics = %+v", metrics)
	}
	if m := metrics.Metrics["request_throughput"]; m["current"] != 5.0 {
		t.Errorf("/api/metrics request_throughput current = %v; want the latest bucket 5", m["current"])
	}

	_, text := get(t, s.URL()+"/metrics")
	fams := parseProm(t, text)
	if f := fams["aiperf_request_latency_ms"]; f == nil || f.Type != model.MetricTypeSummary {
		t.Fatalf("/metrics has no aiperf_request_latency_ms summary:\n%s", text)
	}
	if f := fams["aiperf_request_latency_avg_ms"]; f == nil || f.Metric[0].Value != 12.5 || f.Metric[0].Labels["model"] != "m1" {
		t.Errorf("/metrics aiperf_request_latency_avg_ms = %+v", f)
	}
	if f := fams["aiperf_info"]; f == nil || f.Metric[0].Labels["version"] != "v-test" || f.Metric[0].Labels["benchmark_id"] != "abc123def456" {
		t.Errorf("/metrics aiperf_info = %+v", f)
	}
	if fams["aiperf_request_throughput_current_requests_per_sec"] == nil {
		t.Errorf("/metrics lacks the throughput gauge:\n%s", text)
	}

	if _, body := get(t, s.URL()+"/api/config"); strings.Contains(body, secret) || !strings.Contains(body, "<redacted>") {
		t.Errorf("/api/config leaks the secret: %s", body)
	}
	var run RunInfo
	getJSON(t, s.URL()+"/api/run", &run)
	if run.BenchmarkID != "abc123def456" {
		t.Errorf("/api/run = %+v", run)
	}
	var res map[string]any
	getJSON(t, s.URL()+"/api/results", &res)
	if res["status"] != "running" || res["results"] != nil {
		t.Errorf("/api/results while running = %v", res)
	}
	if code, _ := get(t, s.URL()+"/api/results/files/profile_export_aiperf.json"); code != 404 {
		t.Errorf("a result file before the run ends = %d; want 404", code)
	}
	resp, err := http.Post(s.URL()+"/api/shutdown", "application/json", nil)
	if err != nil || resp.StatusCode != http.StatusConflict {
		t.Errorf("POST /api/shutdown while running = %v %v; want 409", resp.Status, err)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", url, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
}

// parsedFamily is a Prometheus metric family, simplified.
type parsedFamily struct {
	Type   model.MetricType
	Metric []struct {
		Labels map[string]string
		Value  float64
	}
}

// parseProm parses exposition text with Prometheus's own parser.
func parseProm(t *testing.T, text string) map[string]*parsedFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, text)
	}
	out := map[string]*parsedFamily{}
	for name, f := range fams {
		pf := &parsedFamily{}
		switch f.GetType().String() {
		case "SUMMARY":
			pf.Type = model.MetricTypeSummary
		case "GAUGE":
			pf.Type = model.MetricTypeGauge
		}
		for _, m := range f.GetMetric() {
			ls := map[string]string{}
			for _, l := range m.GetLabel() {
				ls[l.GetName()] = l.GetValue()
			}
			v := m.GetGauge().GetValue()
			pf.Metric = append(pf.Metric, struct {
				Labels map[string]string
				Value  float64
			}{ls, v})
		}
		out[name] = pf
	}
	return out
}

func TestFinishServesResultsAndFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	summary := `{"benchmark_id":"abc123def456","request_latency":{"unit":"ms","avg":10,"p50":9,"p99":30,"count":5,"sum":50},"request_count":{"unit":"requests","avg":5}}`
	os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(summary), 0o644)
	os.WriteFile(filepath.Join(dir, "profile_export.jsonl"), []byte("{\"a\":1}\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "plots"), 0o755)
	s := startTest(t, dir)
	s.Observe(snapshot(1, false))
	s.Observe(snapshot(2, true))
	var prog map[string]any
	getJSON(t, s.URL()+"/api/progress", &prog)
	if prog["system_state"] != "processing" {
		t.Errorf("system_state after the final snapshot = %v; want processing", prog["system_state"])
	}
	s.Finish(StatusComplete, "")

	var res struct {
		Status  string         `json:"status"`
		Results map[string]any `json:"results"`
	}
	getJSON(t, s.URL()+"/api/results", &res)
	if res.Status != "complete" || res.Results["benchmark_id"] != "abc123def456" {
		t.Errorf("/api/results = %+v", res)
	}
	var list struct {
		Files []fileInfo `json:"files"`
		Ready bool       `json:"ready"`
	}
	getJSON(t, s.URL()+"/api/results/list", &list)
	if !list.Ready || len(list.Files) != 2 || list.Files[0].Name != "profile_export.jsonl" || list.Files[1].Size != int64(len(summary)) {
		t.Errorf("/api/results/list = %+v", list)
	}
	code, body := get(t, s.URL()+"/api/results/files/profile_export_aiperf.json")
	if code != 200 || body != summary {
		t.Errorf("file download = %d %q", code, body)
	}
	for _, bad := range []string{"../etc/passwd", "..%2Fsecret", "plots/../../x", ".hidden"} {
		if code, _ := get(t, s.URL()+"/api/results/files/"+bad); code != 400 && code != 404 {
			t.Errorf("GET files/%s = %d; want 400 or 404", bad, code)
		}
	}
	if code, _ := get(t, s.URL()+"/api/results/files/missing.json"); code != 404 {
		t.Errorf("missing file = %d; want 404", code)
	}
	var m struct {
		Final   bool                      `json:"final"`
		Metrics map[string]map[string]any `json:"metrics"`
	}
	getJSON(t, s.URL()+"/api/metrics", &m)
	if !m.Final || m.Metrics["request_latency"]["header"] != "Request Latency" || m.Metrics["request_count"]["avg"] != 5.0 {
		t.Errorf("/api/metrics after Finish = %+v", m)
	}
	_, text := get(t, s.URL()+"/metrics")
	fams := parseProm(t, text)
	if f := fams["aiperf_request_count_avg_requests"]; f == nil || f.Metric[0].Value != 5 {
		t.Errorf("/metrics final request count = %+v\n%s", f, text)
	}
	resp, err := http.Post(s.URL()+"/api/shutdown", "application/json", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST /api/shutdown after the run = %v %v", resp, err)
	}
	select {
	case <-s.ShutdownRequested():
	case <-time.After(5 * time.Second):
		t.Fatal("ShutdownRequested not closed")
	}
}

func TestWebSocketProtocol(t *testing.T) {
	t.Parallel()
	s := startTest(t, t.TempDir())
	ws := "ws" + strings.TrimPrefix(s.URL(), "http") + "/ws"
	c, err := apitest.Dial(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reply := func() map[string]any {
		t.Helper()
		text, err := c.ReadText(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%v: %s", err, text)
		}
		return m
	}
	c.WriteText(`{"type":"ping"}`)
	if m := reply(); m["type"] != "pong" {
		t.Errorf("ping reply %v", m)
	}
	c.WriteText(`not json`)
	if m := reply(); m["type"] != "error" {
		t.Errorf("bad JSON reply %v", m)
	}
	// A fragmented subscribe: two frames.
	c.WriteFrame(false, 0x1, []byte(`{"type":"subscribe","message_types":`))
	c.WriteFrame(true, 0x0, []byte(`["credit_phase_progress","realtime_metrics"]}`))
	if m := reply(); m["type"] != "subscribed" || len(m["message_types"].([]any)) != 2 {
		t.Errorf("subscribe reply %v", m)
	}
	c.Ping("hi")
	s.Observe(snapshot(1, false))
	seen := map[string]map[string]any{}
	for len(seen) < 2 {
		m := reply()
		seen[m["message_type"].(string)] = m
	}
	prog := seen["credit_phase_progress"]
	stats := prog["stats"].(map[string]any)
	if stats["requests_sent"] != 10.0 || stats["phase"] != "profiling" || prog["service_id"] != "timing_manager" {
		t.Errorf("credit_phase_progress = %v", prog)
	}
	if ms := seen["realtime_metrics"]["metrics"].([]any); len(ms) != 2 || ms[0].(map[string]any)["tag"] != "request_latency" {
		t.Errorf("realtime_metrics = %v", seen["realtime_metrics"])
	}
	c.WriteText(`{"type":"unsubscribe","message_types":["realtime_metrics"]}`)
	if m := reply(); m["type"] != "unsubscribed" {
		t.Errorf("unsubscribe reply %v", m)
	}
	s.Observe(snapshot(2, true))
	s.Finish(StatusFailed, "boom")
	for {
		m := reply()
		if m["message_type"] == "realtime_metrics" || m["message_type"] == "benchmark_complete" {
			t.Fatalf("got %v after unsubscribing from it / without subscribing", m["message_type"])
		}
		if st, _ := m["stats"].(map[string]any); st["is_requests_complete"] == true {
			break // the final snapshot's progress
		}
	}
	if c.Pongs != 1 {
		t.Errorf("pongs = %d; want 1", c.Pongs)
	}
	s.Close()
	var ce *apitest.CloseError
	for {
		_, err := c.ReadText(5 * time.Second)
		if errors.As(err, &ce) {
			break
		}
		if err != nil {
			t.Fatalf("after Close: %v; want a close frame", err)
		}
	}
	if ce.Code != closeGoingAway {
		t.Errorf("close code %d; want %d", ce.Code, closeGoingAway)
	}
}

func TestWebSocketRejects(t *testing.T) {
	t.Parallel()
	s := startTest(t, t.TempDir())
	host := strings.TrimPrefix(s.URL(), "http://")
	for _, tc := range []struct {
		name, req string
		want      int
	}{
		{"no upgrade", "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"version 8", "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n", 426},
		{"short key", "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\n\r\n", 400},
	} {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, tc.req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != tc.want {
			t.Errorf("%s: %v %v; want %d", tc.name, resp, err, tc.want)
		}
		c.Close()
	}
	// RFC 6455's sample key has a known accept value.
	if got := wsAccept("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Errorf("wsAccept = %q", got)
	}
	// An unmasked client frame is a protocol error: close 1002.
	c, err := apitest.Dial("ws://" + host + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	c.Raw().Write([]byte{0x81, 0x02, 'h', 'i'})
	_, err = c.ReadText(5 * time.Second)
	var ce *apitest.CloseError
	if !errors.As(err, &ce) || ce.Code != closeProtocolError {
		t.Errorf("unmasked frame: %v; want close %d", err, closeProtocolError)
	}
}

// TestProgressCancelledAndSessions: /api/progress counts cancelled
// requests apart from the completed and failed ones, as AIPerf's
// CombinedPhaseStats does, with the session counts and the phase flags.
func TestProgressCancelledAndSessions(t *testing.T) {
	t.Parallel()
	s := startTest(t, t.TempDir())
	snap := snapshot(1, true)
	snap.Phase = live.Progress{Phase: "profiling", Elapsed: 2 * time.Second, Sent: 12, Done: 12, Errors: 4, Cancelled: 3,
		Duration: 2 * time.Second, Sessions: live.Sessions{Sent: 4, Completed: 1, Cancelled: 3, Turns: 12, Expected: 4},
		TimedOut: true, GraceTimedOut: true}
	s.Observe(snap)
	var prog struct {
		Phases map[string]map[string]any `json:"phases"`
	}
	getJSON(t, s.URL()+"/api/progress", &prog)
	p := prog.Phases["profiling"]
	for k, want := range map[string]any{
		"requests_sent": 12.0, "requests_completed": 9.0, "requests_cancelled": 3.0, "request_errors": 1.0,
		"in_flight_requests": 0.0, "sent_sessions": 4.0, "completed_sessions": 1.0, "cancelled_sessions": 3.0,
		"total_session_turns": 12.0, "expected_num_sessions": 4.0, "timeout_triggered": true, "grace_period_timeout_triggered": true,
		"was_cancelled": false, "requests_error_percent": 100.0 / 9, "error_records": 4.0, "success_records": 8.0,
	} {
		if p[k] != want {
			t.Errorf("%s = %v; want %v", k, p[k], want)
		}
	}
}
