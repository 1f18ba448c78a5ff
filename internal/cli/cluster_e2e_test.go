package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/cluster"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// recordingMock is the embedded mock server behind its request recorder
// (the server-side ground truth of every request), in this process, so a
// test can read what the server saw while the run goes and after it.
type recordingMock struct {
	URL      string
	arrivals atomic.Int64
	rec      *mockserver.Recorder
	mu       sync.Mutex
	out      bytes.Buffer
	srv      *httptest.Server
}

func (m *recordingMock) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.out.Write(p)
}

func startRecordingMock(t *testing.T, ttft, itl time.Duration) *recordingMock {
	t.Helper()
	cfg := mockserver.DefaultConfig()
	cfg.TTFT, cfg.ITL = ttft, itl
	m := &recordingMock{}
	m.rec = mockserver.NewRecorder(m)
	h := m.rec.Wrap(mockserver.New(cfg))
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			m.arrivals.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	m.URL = m.srv.URL
	t.Cleanup(m.srv.Close)
	return m
}

// requests stops the server and returns every inference request it
// received, in arrival order.
func (m *recordingMock) requests(t *testing.T) []mockserver.RecordedRequest {
	t.Helper()
	m.srv.Close()
	if err := m.rec.Close(); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []mockserver.RecordedRequest
	for _, l := range bytes.Split(bytes.TrimSpace(m.out.Bytes()), []byte("\n")) {
		var r mockserver.RecordedRequest
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("mock request log: %v", err)
		}
		if strings.HasSuffix(r.Path, "/completions") {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b mockserver.RecordedRequest) int { return int(a.ReceivedNs - b.ReceivedNs) })
	return out
}

type clusterReport struct {
	Workers []cluster.WorkerInfo `json:"workers"`
}

func readClusterReport(t *testing.T, dir string) clusterReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, benchmark.ClusterReportFile))
	if err != nil {
		t.Fatal(err)
	}
	var r clusterReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("cluster.json: %v", err)
	}
	return r
}

// recordIDs checks every record line of profile_export.jsonl and returns
// the request ids, the worker of each, and the error type of each failed
// one (by request id).
func recordIDs(t *testing.T, dir string) (ids []string, workers map[string]string, errs map[string]string) {
	t.Helper()
	workers, errs = map[string]string{}, map[string]string{}
	for _, l := range jsonlLines(t, filepath.Join(dir, "profile_export.jsonl")) {
		var md struct {
			XRequestID string `json:"x_request_id"`
			WorkerID   string `json:"worker_id"`
		}
		if err := json.Unmarshal(l["metadata"], &md); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, md.XRequestID)
		workers[md.XRequestID] = md.WorkerID
		if e, ok := l["error"]; ok && string(e) != "null" {
			var ed struct {
				Type string `json:"type"`
			}
			json.Unmarshal(e, &ed)
			errs[md.XRequestID] = ed.Type
		}
	}
	return ids, workers, errs
}

func summaryKeys(doc map[string]json.RawMessage) []string {
	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func runWorkersProfile(t *testing.T, args ...string) {
	t.Helper()
	out, err := aiperfCmd(t, append([]string{"profile"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("aiperf profile %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestWorkersMatchAOneProcessRun: the same load from 4 load-worker
// processes gives the same requests, the same metric keys and, within
// noise, the same statistics as from one process; every record comes back
// once, and cluster.json reports the workers and their clock offsets.
func TestWorkersMatchAOneProcessRun(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startRecordingMock(t, 40*time.Millisecond, 2*time.Millisecond)
	dir := t.TempDir()
	common := []string{"-m", "mock-model", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
		"--concurrency", "4", "--request-count", "40", "--isl", "32", "--osl", "16", "--random-seed", "7", "--ui-type", "none"}
	one, four := filepath.Join(dir, "one"), filepath.Join(dir, "four")
	runWorkersProfile(t, append(common, "--output-artifact-dir", one)...)
	runWorkersProfile(t, append(common, "--workers", "4", "--output-artifact-dir", four)...)
	served := mock.requests(t)

	a, b := readSummary(t, filepath.Join(one, "profile_export_aiperf.json")), readSummary(t, filepath.Join(four, "profile_export_aiperf.json"))
	if ka, kb := summaryKeys(a), summaryKeys(b); !slices.Equal(ka, kb) {
		t.Errorf("summary keys differ:\none process: %v\n4 workers:   %v", ka, kb)
	}
	if ra, rb := metric(t, a, "request_count"), metric(t, b, "request_count"); ra.Avg != 40 || rb.Avg != 40 {
		t.Errorf("request_count %v (one process) and %v (4 workers); want 40 each", ra.Avg, rb.Avg)
	}
	for _, tag := range []string{"time_to_first_token", "request_latency", "output_sequence_length"} {
		sa, sb := metric(t, a, tag), metric(t, b, tag)
		if sa.Count != sb.Count || sb.P50 < sa.P50*0.7-5 || sb.P50 > sa.P50*1.3+5 {
			t.Errorf("%s: one process p50 %.2f (n=%d), 4 workers p50 %.2f (n=%d): not the same within noise", tag, sa.P50, sa.Count, sb.P50, sb.Count)
		}
	}

	ids, workers, errs := recordIDs(t, four)
	if len(ids) != 40 || len(errs) != 0 {
		t.Fatalf("%d records, %d failed; want 40 good ones", len(ids), len(errs))
	}
	seen := map[string]bool{}
	for _, r := range served {
		seen[r.RequestID] = true
	}
	used := map[string]int{}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("record %s was never received by the server", id)
		}
		w, _, _ := strings.Cut(workers[id], "/")
		used[w]++
	}
	if len(used) != 4 {
		t.Errorf("records by worker %v; want all 4 workers used", used)
	}
	rep := readClusterReport(t, four)
	if len(rep.Workers) != 4 {
		t.Fatalf("cluster.json has %d workers; want 4", len(rep.Workers))
	}
	total := 0
	for _, w := range rep.Workers {
		total += w.Records
		if w.State != "ready" || w.Requests != w.Records || w.PID <= 0 || w.ClockSamples == 0 || w.ClockRTTNs <= 0 {
			t.Errorf("cluster.json worker %+v", w)
		}
	}
	if total != 40 {
		t.Errorf("cluster.json: the workers returned %d records; want 40", total)
	}
}

// TestWorkersKeepTheGlobalRateSchedule: in rate mode the controller's
// one schedule drives every worker, so the server sees the requests at the
// global rate (not one rate per worker) and spread over the workers.
func TestWorkersKeepTheGlobalRateSchedule(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startRecordingMock(t, 5*time.Millisecond, time.Millisecond)
	dir := filepath.Join(t.TempDir(), "art")
	const n, rate = 40, 40.0
	runWorkersProfile(t, "-m", "mock-model", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
		"--request-rate", strconv.Itoa(int(rate)), "--arrival-pattern", "constant", "--request-count", strconv.Itoa(n),
		"--isl", "16", "--osl", "4", "--random-seed", "3", "--workers", "4", "--ui-type", "none", "--output-artifact-dir", dir)
	served := mock.requests(t)
	if len(served) != n {
		t.Fatalf("the server received %d requests; want %d", len(served), n)
	}
	// Constant arrivals at 40/s: request i is due at start + i*25ms. The
	// start is not known on the server (the first request may pay for a
	// connection), so each arrival's place in that schedule is compared
	// after removing the median offset of them all.
	interval := time.Duration(float64(time.Second) / rate)
	offsets := make([]time.Duration, n)
	for i, r := range served {
		offsets[i] = time.Duration(r.ReceivedNs-served[0].ReceivedNs) - time.Duration(i)*interval
	}
	sorted := slices.Clone(offsets)
	slices.Sort(sorted)
	start := sorted[n/2]
	var dev []time.Duration
	for _, o := range offsets {
		dev = append(dev, (o - start).Abs())
	}
	slices.Sort(dev)
	if med := dev[n/2]; med > interval/2 {
		t.Errorf("median deviation of the server-side arrivals from the global schedule is %v (interval %v); deviations %v", med, interval, dev)
	}
	span := time.Duration(served[n-1].ReceivedNs - served[0].ReceivedNs)
	if want := time.Duration(n-1) * interval; span < want*8/10 || span > want*15/10 {
		t.Errorf("arrivals span %v; the global schedule spans %v (4 independent schedules would span a quarter of it)", span, want)
	}
	_, workers, _ := recordIDs(t, dir)
	used := map[string]bool{}
	for _, w := range workers {
		p, _, _ := strings.Cut(w, "/")
		used[p] = true
	}
	if len(used) < 3 {
		t.Errorf("requests came from workers %v; want them spread over the 4", used)
	}
}

var workerPIDRE = regexp.MustCompile(`msg="load worker starting" pid=(\d+)`)

// TestKilledWorkerLosesOnlyItsRequestsInFlight: SIGKILL one of 4 load
// workers mid-run; the run completes with every credit accounted for, the
// victim's requests in flight recorded as WorkerLostError, no request
// recorded twice, and valid artifacts.
func TestKilledWorkerLosesOnlyItsRequestsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startRecordingMock(t, 300*time.Millisecond, 5*time.Millisecond)
	dir := filepath.Join(t.TempDir(), "art")
	const n = 48
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
		"--concurrency", "8", "--request-count", strconv.Itoa(n), "--isl", "16", "--osl", "40", "--random-seed", "5",
		"--workers", "4", "--ui-type", "none", "--output-artifact-dir", dir)
	victim, exited, out := killWorkerMidRun(t, cmd, mock, dir, "local-1", 12)
	if err := <-exited; err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		t.Fatalf("the run failed after losing one worker: %v\n%s", err, out.String())
	}

	ids, workers, errs := recordIDs(t, dir)
	if len(ids) != n {
		t.Errorf("%d records; want %d (every credit accounted for once)", len(ids), n)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Errorf("request %s recorded twice", id)
		}
		seen[id] = true
	}
	rep := readClusterReport(t, dir)
	var lostWorker cluster.WorkerInfo
	for _, w := range rep.Workers {
		if w.Name == "local-1" {
			lostWorker = w
		} else if w.State != "ready" {
			t.Errorf("worker %s is %s; only local-1 was killed", w.Name, w.State)
		}
	}
	if lostWorker.State != "lost" || lostWorker.PID != int64(victim) || lostWorker.LostInFlight == 0 {
		t.Fatalf("the killed worker in cluster.json: %+v (pid %d); want lost with requests in flight", lostWorker, victim)
	}
	lost := 0
	for id, typ := range errs {
		if typ != cluster.TypeWorkerLost {
			t.Errorf("request %s failed with %s; only the killed worker's requests should fail", id, typ)
			continue
		}
		lost++
		if w, _, _ := strings.Cut(workers[id], "/"); w != lostWorker.ID {
			t.Errorf("lost request %s was on %s, not on the killed worker %s", id, workers[id], lostWorker.ID)
		}
	}
	if lost != lostWorker.LostInFlight {
		t.Errorf("%d WorkerLostError records; cluster.json says %d were in flight", lost, lostWorker.LostInFlight)
	}
	sum := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if got := metric(t, sum, "error_request_count"); int(got.Avg) != lost {
		t.Errorf("error_request_count %v; want the %d lost requests", got.Avg, lost)
	}
	if got := metric(t, sum, "request_count"); int(got.Avg) != n-lost {
		t.Errorf("request_count %v; want %d", got.Avg, n-lost)
	}
}

// TestWorkersStartedElsewhereJoinAListeningController: with --worker-listen
// the controller starts no worker and waits for N that connect to it (as
// Kubernetes pods do), here two `aiperf cluster-worker` processes started
// before it is even listening.
func TestWorkersStartedElsewhereJoinAListeningController(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startRecordingMock(t, 10*time.Millisecond, time.Millisecond)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var workers []*exec.Cmd
	for _, name := range []string{"pod-a", "pod-b"} {
		w := aiperfCmd(t, benchmark.WorkerCommand, "--controller", addr, "--name", name)
		var out lockedBuffer
		w.Stdout, w.Stderr = &out, &out
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			w.Process.Kill()
			w.Wait()
		})
		workers = append(workers, w)
	}
	dir := filepath.Join(t.TempDir(), "art")
	runWorkersProfile(t, "-m", "mock-model", "-u", mock.URL, "--tokenizer", "builtin", "--concurrency", "4",
		"--request-count", "20", "--isl", "16", "--osl", "4", "--workers", "2", "--worker-listen", addr,
		"--ui-type", "none", "--output-artifact-dir", dir)
	for _, w := range workers {
		if err := w.Wait(); err != nil {
			t.Errorf("worker %v exited with %v after the controller's shutdown; want 0", w.Args, err)
		}
	}
	rep := readClusterReport(t, dir)
	names := map[string]int{}
	for _, w := range rep.Workers {
		names[w.Name] = w.Records
	}
	if len(names) != 2 || names["pod-a"]+names["pod-b"] != 20 {
		t.Errorf("cluster.json workers %v; want pod-a and pod-b with 20 records between them", names)
	}
	if _, err := os.Stat(filepath.Join(dir, "workers")); err == nil {
		t.Errorf("a controller with --worker-listen started local workers")
	}
}

// TestLosingEveryWorkerFailsTheRunWithPartialArtifacts: with its only
// load worker killed the run cannot go on; it exits 1 and still writes
// valid artifacts with the lost requests as WorkerLostError records.
func TestLosingEveryWorkerFailsTheRunWithPartialArtifacts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	mock := startRecordingMock(t, 300*time.Millisecond, 5*time.Millisecond)
	dir := filepath.Join(t.TempDir(), "art")
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
		"--concurrency", "4", "--request-count", "40", "--isl", "16", "--osl", "40",
		"--workers", "1", "--ui-type", "none", "--output-artifact-dir", dir)
	_, exited, out := killWorkerMidRun(t, cmd, mock, dir, "local-0", 4)
	err := <-exited
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v; want 1 (every load worker lost)\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), cluster.ErrNoWorkers.Error()) {
		t.Errorf("the error does not say why:\n%s", out.String())
	}
	ids, _, errs := recordIDs(t, dir)
	lost := 0
	for _, typ := range errs {
		if typ == cluster.TypeWorkerLost {
			lost++
		}
	}
	if lost == 0 || len(ids) >= 40 {
		t.Errorf("%d records, %d lost; want the partial run with its lost requests", len(ids), lost)
	}
	readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if rep := readClusterReport(t, dir); len(rep.Workers) != 1 || rep.Workers[0].State != "lost" {
		t.Errorf("cluster.json %+v", rep)
	}
}

// killWorkerMidRun starts the profile run cmd (artifacts in dir), waits
// until the load worker called name has logged its pid and the server
// has received minArrivals requests, and SIGKILLs that worker. It
// returns the pid, the run's exit and its output.
func killWorkerMidRun(t *testing.T, cmd *exec.Cmd, mock *recordingMock, dir, name string, minArrivals int64) (int, <-chan error, *lockedBuffer) {
	t.Helper()
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	victim := 0
	deadline := time.Now().Add(60 * time.Second)
	for victim == 0 || mock.arrivals.Load() < minArrivals {
		if b, err := os.ReadFile(filepath.Join(dir, "workers", name+".log")); err == nil && victim == 0 {
			if m := workerPIDRE.FindSubmatch(b); m != nil {
				victim, _ = strconv.Atoi(string(m[1]))
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("the run ended before worker %s could be killed: %v\n%s", name, err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid of %s or too few requests (%d) after 60 s\n%s", name, mock.arrivals.Load(), out.String())
		}
	}
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	return victim, exited, out
}
