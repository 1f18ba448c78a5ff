package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/cli/clitest"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// The end-to-end tests run the real program as separate processes: the test
// binary re-executes itself as `aiperf` when this variable is set, so no
// separate build step is needed and nothing is mocked.
const asAIPerfEnv = clitest.AsMainEnv

func TestMain(m *testing.M) {
	clitest.Main(m, func() int { return Main(context.Background(), os.Args[1:], OSEnv()) })
}

// aiperfCmd returns a command running `aiperf args...` as its own process.
func aiperfCmd(t *testing.T, args ...string) *exec.Cmd { return clitest.Cmd(t, args...) }

var listenRE = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// startMockServer runs `aiperf mock-server args...` as a separate process on
// a free port and returns its URL; the process is stopped when the test ends.
func startMockServer(t *testing.T, args ...string) string {
	t.Helper()
	url, _ := startMockServerStop(t, args...)
	return url
}

// startMockServerStop is startMockServer that also returns a function
// stopping the server (SIGTERM, then wait), for a test that reads what it
// wrote on the way out; the test's cleanup stops it otherwise.
func startMockServerStop(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	cmd := aiperfCmd(t, append([]string{"mock-server", "--host", "127.0.0.1", "--port", "0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	t.Cleanup(stop)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := listenRE.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, out)
			return m[1], stop
		}
	}
	t.Fatalf("mock server exited without printing its URL (scan error %v)", sc.Err())
	return "", stop
}

type stats struct {
	Unit               string
	Avg, Min, Max, P50 float64
	Count              int
}

func readSummary(t *testing.T, path string) map[string]json.RawMessage {
	return clitest.ReadSummary(t, path)
}

func metric(t *testing.T, doc map[string]json.RawMessage, tag string) stats {
	t.Helper()
	raw, ok := doc[tag]
	if !ok {
		t.Fatalf("summary has no %q", tag)
	}
	var s stats
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", tag, err)
	}
	return s
}

// jsonlLines checks that every line of path is one complete JSON object and
// returns them.
func jsonlLines(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]json.RawMessage
	for i, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("%s line %d is not valid JSON: %v", path, i+1, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestAcceptanceAgainstSeparateMockServer is the accuracy check: a mock
// server with a 40 ms TTFT and a 10 ms ITL running as its own process,
// and a streaming profile of 200 requests at concurrency 8 against it.
// The client is checked against what the server really did, from the
// server's own record of when it began writing each token
// (--record-requests, on the same wall clock): on a loaded machine the
// server itself is late against its configured latencies, and that
// lateness is the server's, which the client must report, not hide. The
// tolerances bound what the client adds to the server's latencies; they
// are not timings of our own code.
func TestAcceptanceAgainstSeparateMockServer(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	dir := t.TempDir()
	recordPath := filepath.Join(dir, "server_record.jsonl")
	url, stop := startMockServerStop(t, "--ttft", "40", "--itl", "10", "--record-requests", recordPath)
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "-u", url, "--streaming",
		"--concurrency", "8", "--request-count", "200", "--osl", "32",
		"--extra-inputs", "ignore_eos:true", "--random-seed", "42",
		"--output-artifact-dir", dir, "--ui", "none")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("profile failed: %v\n%s", err, out)
	}
	stop() // the record is complete once the server has shut down
	doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	osl := metric(t, doc, "output_sequence_length")
	if osl.Min != 32 || osl.Max != 32 {
		t.Errorf("output_sequence_length min/max = %v/%v; want exactly 32", osl.Min, osl.Max)
	}
	if n := metric(t, doc, "request_count").Avg; n != 200 {
		t.Errorf("request_count = %v; want 200", n)
	}
	lines := jsonlLines(t, filepath.Join(dir, "profile_export.jsonl"))
	if len(lines) != 200 {
		t.Errorf("profile_export.jsonl has %d lines; want 200", len(lines))
	}
	for _, f := range []string{"profile_export_aiperf.csv", "inputs.json", "logs/aiperf.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}

	gt := joinServerRecord(t, recordPath, lines)
	if gt.joined != 200 {
		t.Fatalf("%d of 200 client records matched a server record", gt.joined)
	}
	within := func(name string, errs []float64, tol float64) {
		t.Helper()
		p50 := median(errs)
		if math.Abs(p50) > tol {
			t.Errorf("%s: client minus server p50 = %.3f ms; want within ± %.1f ms", name, p50, tol)
		} else {
			t.Logf("%s: client minus server p50 = %.3f ms (± %.1f ms)", name, p50, tol)
		}
	}
	within("time_to_first_token", gt.ttft, 2)
	within("inter_token_latency", gt.itl, 0.5)
	within("request_latency", gt.latency, 3)
	t.Logf("server achieved TTFT p50 %.3f ms (configured 40), ITL p50 %.3f ms (configured 10)", median(gt.serverTTFT), median(gt.serverITL))
}

// groundTruth holds, per request the client and the server both recorded,
// the client's measurement minus the server's (ms), and what the server
// achieved.
type groundTruth struct {
	joined                int
	ttft, itl, latency    []float64
	serverTTFT, serverITL []float64
}

// joinServerRecord joins the mock's --record-requests file with the
// client's profile_export.jsonl lines on the request id. The server's
// times are when it began writing each token chunk, measured from the
// client's request start.
func joinServerRecord(t *testing.T, path string, lines []map[string]json.RawMessage) groundTruth {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string][]int64{}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r mockserver.RecordedRequest
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, c := range r.Chunks {
			if c.Kind == "token" {
				tokens[r.RequestID] = append(tokens[r.RequestID], c.WriteNs)
			}
		}
	}
	var gt groundTruth
	for _, l := range lines {
		var meta struct {
			ID    string `json:"x_request_id"`
			Start int64  `json:"request_start_ns"`
		}
		var ms map[string]struct {
			Value any    `json:"value"` // a number, or a list (inter_chunk_latency)
			Unit  string `json:"unit"`
		}
		if json.Unmarshal(l["metadata"], &meta) != nil || json.Unmarshal(l["metrics"], &ms) != nil {
			t.Fatalf("profile_export.jsonl line without metadata or scalar metrics: %s", l["metadata"])
		}
		tok := tokens[meta.ID]
		if len(tok) < 2 {
			continue
		}
		v := map[string]float64{}
		for _, tag := range []string{"time_to_first_token", "inter_token_latency", "request_latency"} {
			f, ok := ms[tag].Value.(float64)
			if !ok || ms[tag].Unit != "ms" {
				t.Fatalf("%s = %v %q; want a number in ms", tag, ms[tag].Value, ms[tag].Unit)
			}
			v[tag] = f
		}
		gt.joined++
		first := float64(tok[0]-meta.Start) / 1e6
		last := float64(tok[len(tok)-1]-meta.Start) / 1e6
		gap := (last - first) / float64(len(tok)-1)
		gt.ttft = append(gt.ttft, v["time_to_first_token"]-first)
		gt.latency = append(gt.latency, v["request_latency"]-last)
		gt.itl = append(gt.itl, v["inter_token_latency"]-gap)
		gt.serverTTFT = append(gt.serverTTFT, first)
		gt.serverITL = append(gt.serverITL, gap)
	}
	return gt
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2]
}

// readmeCommandOne is README.md's first command without the program name;
// keep the two identical.
var readmeCommandOne = []string{"profile", "-m", "mock-model", "--mock-server", "--streaming",
	"--concurrency", "8", "--request-count", "100", "--osl", "100"}

// TestReadmeCommandOne runs the README's first command (the embedded mock
// server, no other process) and checks it prints the table and writes the
// artifacts into AIPerf's default sub-directory.
func TestReadmeCommandOne(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	work := t.TempDir()
	cmd := aiperfCmd(t, readmeCommandOne...)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README command 1 failed: %v\n%s", err, out)
	}
	for _, want := range []string{"NVIDIA AIPerf | LLM Metrics", "Time to First Token (ms)", "Request Throughput (requests/sec)", "JSON Export:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// What the README says the user looks at: AIPerf's main table first,
	// and no invented GPU figures unless asked for.
	main, usage, effective := strings.Index(string(out), "NVIDIA AIPerf | LLM Metrics "), strings.Index(string(out), "LLM Metrics: Usage"), strings.Index(string(out), "LLM Metrics: Effective")
	if main < 0 || usage < main || effective < usage {
		t.Errorf("tables at %d (main), %d (usage), %d (effective); want the main table first:\n%s", main, usage, effective, out)
	}
	for _, fake := range []string{"NVIDIA H200", "GPU Power Efficiency", "Energy per"} {
		if strings.Contains(string(out), fake) {
			t.Errorf("command 1 prints %q from the mock's simulated GPUs without --gpu-telemetry:\n%s", fake, out)
		}
	}
	dir := filepath.Join(work, "artifacts", "mock-model-openai-chat-concurrency8")
	doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := metric(t, doc, "request_count").Avg; n != 100 {
		t.Errorf("request_count = %v; want 100", n)
	}
	if _, ok := doc["telemetry_data"]; ok {
		var td struct {
			Endpoints map[string]json.RawMessage `json:"endpoints"`
		}
		if json.Unmarshal(doc["telemetry_data"], &td) == nil && len(td.Endpoints) > 0 {
			t.Errorf("the summary holds GPU telemetry from the mock's simulated exporter without --gpu-telemetry")
		}
	}
}

// TestInterruptedRunLeavesValidArtifacts interrupts a long run with SIGINT
// once it is sending, and checks the exit code and that every artifact is
// complete, valid JSON marked as cancelled.
func TestInterruptedRunLeavesValidArtifacts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	url := startMockServer(t, "--ttft", "5", "--itl", "1")
	dir := t.TempDir()
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "-u", url, "--streaming",
		"--concurrency", "4", "--benchmark-duration", "600", "--osl", "8",
		"--output-artifact-dir", dir, "--ui", "none", "-v")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sc := bufio.NewScanner(stderr)
	started := false
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "phase started") {
			started = true
			break
		}
	}
	if !started {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the run never started:\n%s", log.String())
	}
	go io.Copy(&log, stderr)
	// Interrupt only once a record is on disk: a run interrupted before any
	// request completed writes no CSV, by design, and on a loaded machine
	// the first record can take longer than the signal. The JSONL is
	// flushed every 100 ms, so its first line shows a completed record.
	jsonl := filepath.Join(dir, "profile_export.jsonl")
	tick := time.NewTicker(20 * time.Millisecond)
	guard := time.After(time.Minute) // a hang guard, not a timing assertion
	for waiting := true; waiting; {
		select {
		case <-tick.C:
			if fi, err := os.Stat(jsonl); err == nil && fi.Size() > 0 {
				waiting = false
			}
		case <-guard:
			cmd.Process.Kill()
			t.Fatalf("no record reached %s", jsonl)
		}
	}
	tick.Stop()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute): // a hang guard, not a timing assertion
		cmd.Process.Kill()
		t.Fatalf("the interrupted run did not exit:\n%s", log.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit = %v; want code 130\n%s", err, log.String())
	}
	doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	var cancelled, complete bool
	json.Unmarshal(doc["was_cancelled"], &cancelled)
	json.Unmarshal(doc["is_complete"], &complete)
	if !cancelled || complete {
		t.Errorf("was_cancelled = %v, is_complete = %v; want true, false", cancelled, complete)
	}
	jsonlLines(t, filepath.Join(dir, "profile_export.jsonl"))
	if _, err := os.Stat(filepath.Join(dir, "profile_export_aiperf.csv")); err != nil {
		t.Error(err)
	}
}
