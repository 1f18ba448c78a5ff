package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/aiperf-go/aiperf/internal/api/apitest"
	"github.com/aiperf-go/aiperf/internal/cli/clitest"
	"github.com/aiperf-go/aiperf/internal/environ"
)

// freePort returns a loopback port nothing listens on (for flags that
// take a fixed port).
func freePort(t *testing.T) int { return clitest.FreePort(t) }

// TestAPIAgainstLiveRun runs a real benchmark against the embedded mock
// with --api-port and exercises every route while it runs and after it
// ends (AIPERF_API_SERVER_LINGER_SECONDS keeps the API up), including
// WebSocket progress; the API key never appears in any response.
func TestAPIAgainstLiveRun(t *testing.T) {
	t.Parallel()
	const key = "sk-e2e-secret-98765"
	dir := t.TempDir()
	port := freePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	var stderr bytes.Buffer
	env := Env{
		Stderr: &stderr, Runner: RunBenchmark, Snapshot: environ.Read(),
		Getenv: func(k string) string {
			if k == "AIPERF_API_SERVER_LINGER_SECONDS" {
				return "60"
			}
			return ""
		},
	}
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"profile", "--mock-server", "-m", "mock-model", "--streaming",
			"--request-rate", "25", "--benchmark-duration", "2", "--api-key", key, "--ui-type", "none",
			"--output-artifact-dir", dir, "--api-port", strconv.Itoa(port)}, env)
	}()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	fetch := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, stderr.String())
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if strings.Contains(string(b), key) {
			t.Errorf("GET %s leaks the API key: %s", path, b)
		}
		return resp.StatusCode, string(b)
	}
	fetchJSON := func(path string, v any) {
		t.Helper()
		code, body := fetch(path)
		if code != 200 || json.Unmarshal([]byte(body), v) != nil {
			t.Fatalf("GET %s = %d %s", path, code, body)
		}
	}

	// Wait for the server, then for the profiling phase to send.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never answered 200: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	ws, err := apitest.Dial("ws://127.0.0.1:" + strconv.Itoa(port) + "/ws")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.WriteText(`{"type":"subscribe","message_types":["*"]}`)

	var prog struct {
		Phases map[string]struct {
			Sent      int `json:"requests_sent"`
			Completed int `json:"requests_completed"`
		} `json:"phases"`
		State string `json:"system_state"`
	}
	for {
		fetchJSON("/api/progress", &prog)
		if prog.Phases["profiling"].Completed > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no profiling progress: %+v", prog)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if prog.State != "profiling" {
		t.Errorf("system_state while running = %q", prog.State)
	}
	var res map[string]any
	fetchJSON("/api/results", &res)
	if res["status"] != "running" {
		t.Errorf("/api/results while running = %v", res)
	}
	var run struct {
		BenchmarkID string `json:"benchmark_id"`
		CLICommand  string `json:"cli_command"`
	}
	fetchJSON("/api/run", &run)
	if len(run.BenchmarkID) != 12 || !strings.Contains(run.CLICommand, "--api-port") {
		t.Errorf("/api/run = %+v", run)
	}
	var conf map[string]any
	fetchJSON("/api/config", &conf)
	if conf["endpoint"].(map[string]any)["api_key"] != "<redacted>" {
		t.Errorf("/api/config endpoint = %v", conf["endpoint"])
	}
	var workers struct {
		Workers map[string]any `json:"workers"`
	}
	fetchJSON("/api/workers", &workers)
	var metrics struct {
		Final   bool                      `json:"final"`
		Model   string                    `json:"model"`
		Metrics map[string]map[string]any `json:"metrics"`
	}
	fetchJSON("/api/metrics", &metrics)
	if metrics.Final || metrics.Model != "mock-model" {
		t.Errorf("/api/metrics while running: final %v model %q", metrics.Final, metrics.Model)
	}
	_, text := fetch("/metrics")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	if _, err := parser.TextToMetricFamilies(strings.NewReader(text)); err != nil {
		t.Errorf("/metrics while running does not parse: %v\n%s", err, text)
	}

	// WebSocket: progress messages arrive while the run goes.
	types := map[string]int{}
	var lastSent float64
	for types["credit_phase_progress"] < 3 || types["realtime_metrics"] < 1 {
		msg, err := ws.ReadText(10 * time.Second)
		if err != nil {
			t.Fatalf("websocket: %v (seen %v)", err, types)
		}
		var m struct {
			Type  string         `json:"message_type"`
			Stats map[string]any `json:"stats"`
		}
		json.Unmarshal([]byte(msg), &m)
		types[m.Type]++
		if m.Type == "credit_phase_progress" && m.Stats["phase"] == "profiling" {
			sent := m.Stats["requests_sent"].(float64)
			if sent < lastSent {
				t.Errorf("requests_sent went back: %v after %v", sent, lastSent)
			}
			lastSent = sent
		}
	}

	// After the run: results, files, final metrics.
	for {
		fetchJSON("/api/results", &res)
		if res["status"] != "running" {
			break
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("the run never finished:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res["status"] != "complete" {
		t.Fatalf("/api/results = %v\n%s", res["status"], stderr.String())
	}
	results := res["results"].(map[string]any)
	if results["benchmark_id"] != run.BenchmarkID {
		t.Errorf("results benchmark_id %v; /api/run said %s", results["benchmark_id"], run.BenchmarkID)
	}
	var list struct {
		Files []struct{ Name string } `json:"files"`
		Ready bool                    `json:"ready"`
	}
	fetchJSON("/api/results/list", &list)
	names := map[string]bool{}
	for _, f := range list.Files {
		names[f.Name] = true
	}
	if !list.Ready || !names["profile_export_aiperf.json"] || !names["profile_export.jsonl"] {
		t.Errorf("/api/results/list = %+v", list)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if code, body := fetch("/api/results/files/profile_export_aiperf.json"); code != 200 || body != string(want) {
		t.Errorf("downloaded summary (%d) differs from the file", code)
	}
	req, _ := http.NewRequest("GET", base+"/api/results/files/profile_export.jsonl", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := client.Do(req)
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip download: %v %v", err, resp.Header)
	}
	zr, _ := gzip.NewReader(resp.Body)
	got, _ := io.ReadAll(zr)
	resp.Body.Close()
	if wantJSONL, _ := os.ReadFile(filepath.Join(dir, "profile_export.jsonl")); !bytes.Equal(got, wantJSONL) {
		t.Errorf("gzip download differs from profile_export.jsonl")
	}
	fetchJSON("/api/metrics", &metrics)
	if !metrics.Final || metrics.Metrics["request_latency"]["p99"] == nil {
		t.Errorf("/api/metrics after the run: final %v, request_latency %v", metrics.Final, metrics.Metrics["request_latency"])
	}
	if _, text := fetch("/metrics"); !strings.Contains(text, `aiperf_request_latency_ms{`) || !strings.Contains(text, `quantile="0.99"`) {
		t.Errorf("/metrics after the run lacks the latency summary:\n%s", text)
	}
	for {
		msg, err := ws.ReadText(10 * time.Second)
		if err != nil {
			t.Fatalf("websocket after the run: %v", err)
		}
		if strings.Contains(msg, `"message_type":"benchmark_complete"`) {
			break
		}
	}
	fetchJSON("/api/progress", &prog)
	if prog.State != "shutdown" {
		t.Errorf("system_state after the run = %q", prog.State)
	}

	if resp, err := client.Post(base+"/api/shutdown", "application/json", nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST /api/shutdown: %v %v", resp, err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d\n%s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("aiperf did not exit after /api/shutdown")
	}
	if _, err := client.Get(base + "/healthz"); err == nil {
		t.Error("the API still answers after the command exited")
	}
}
