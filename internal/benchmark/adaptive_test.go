package benchmark

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// kneeMock is the mock's batched scheduler with 4 slots, 16 ms steps plus
// 4 ms per sequence: with 32-token outputs a request is decoded in about
// T = 32 x 32 ms = 1 s. Up to 4 in flight nobody queues and TTFT stays
// under two steps (~64 ms). At 5 every new request finds the slots full:
// it waits for the next completion, T/4 = 256 ms when completions are
// spread out, T for one request in five when the batch runs in lockstep;
// either way TTFT avg > 200 ms once the queue has formed (a window opened
// right after a step up still holds requests sent at the old value, which
// is why the test's windows are 4 T long). The true knee of "TTFT avg <=
// 160 ms" is concurrency 4 (docs/load-shapes.md). Each side of the knee is
// about 100 ms from the SLA, several times the scheduling delays a loaded
// 2-core machine adds to a request (the 4 ms-step version of this mock,
// with sides 24 ms from a 40 ms SLA, failed at load 20).
func kneeMock(t *testing.T) (url string, posts func() []mockserver.RecordedRequest) {
	t.Helper()
	return recorderServer(t, mockserver.New(mockConfig(t, func(c *mockserver.Config) {
		c.Fast = false
		c.Batch = mockserver.BatchConfig{Slots: 4, StepMs: 16, StepPerSeqMs: 4}
	})))
}

// TestAdaptiveScaleFindsTheKnee: discovery from 3 in steps of 1 passes at
// 3 and 4, fails at 5, and sustains 4: within one step of the true knee
// (it lands on it). Both artifacts are written with AIPerf's keys, and the
// server never saw more than 5 requests in flight.
func TestAdaptiveScaleFindsTheKnee(t *testing.T) {
	t.Parallel()
	url, posts := kneeMock(t)
	cfg := baseConfig(t, url)
	cfg.Input.OutputTokens.Mean = ptr(32)
	cfg.Load.RequestCount = nil
	cfg.Load.Concurrency = ptr(12)
	cfg.Load.BenchmarkDuration = ptr(60.0)
	a := config.NewAdaptiveScale()
	a.Min, a.AssessmentPeriod, a.SustainDuration = 3, 4, 4
	a.BaseStep, a.MaxStepMultiplier = 1, 1
	a.SLA = []string{"time_to_first_token:avg:le:160"}
	cfg.Shape.Adaptive = a
	if out, err := run(t, t.Context(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	dir := filepath.Join(cfg.Output.ArtifactDir, "phases", "profiling")
	b, err := os.ReadFile(filepath.Join(dir, "adaptive_scale_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	boundary, _ := sum["boundary_value"].(float64)
	if boundary < 3 || boundary > 5 || sum["status"] != "completed" || sum["completed_reason"] != "sustain_duration_completed" || sum["control_variable"] != "concurrency" {
		t.Errorf("summary: boundary %v, status %v (%v); want the knee 4 +- 1, completed\n%s", boundary, sum["status"], sum["completed_reason"], b)
	}
	if boundary != 4 || sum["first_failing_value"] != 5.0 {
		t.Logf("boundary %v, first failing %v (the knee is 4)", boundary, sum["first_failing_value"])
	}
	f, err := os.Open(filepath.Join(dir, "adaptive_scale_events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event line %q: %v", sc.Text(), err)
		}
		seen[e["event"].(string)]++
		if e["control_variable"] != "concurrency" || e["sla_metric"] != "time_to_first_token" {
			t.Errorf("event %v: want control_variable concurrency, sla_metric time_to_first_token", e)
		}
	}
	for _, name := range []string{"adaptive_phase_started", "adaptive_window", "adaptive_decision", "sustain_started", "boundary_discovered", "adaptive_complete"} {
		if seen[name] == 0 {
			t.Errorf("no %s event; events seen %v", name, seen)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.Output.ArtifactDir, "adaptive_scale_manifest.json")); err != nil {
		t.Error(err)
	}
	var flight []interval
	for _, r := range posts() {
		flight = append(flight, interval{From: r.ReceivedNs, To: r.EndNs})
	}
	if got := maxOverlap(flight); got > 5 {
		t.Errorf("server saw %d in flight; the controller never went past 5", got)
	}
}

// TestAdaptiveScaleRequestRate: with an SLA every window passes, the
// controller doubles the request rate each window (fixed_percent_step
// 100%) from 5 to its ceiling, 20 req/s, and ends "incomplete" there; the
// server sees the rate rise.
func TestAdaptiveScaleRequestRate(t *testing.T) {
	t.Parallel()
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, nil)))
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.RequestRate = ptr(20.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.BenchmarkDuration = ptr(20.0)
	a := config.NewAdaptiveScale()
	a.Variable, a.Min, a.AssessmentPeriod, a.SustainDuration = config.AdaptiveRequestRate, 5, 1, 1
	a.StepPolicy, a.StepPercent = "fixed_percent_step", 100
	a.SLA = []string{"error_rate:avg:le:50"}
	cfg.Shape.Adaptive = a
	if out, err := run(t, t.Context(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "phases", "profiling", "adaptive_scale_summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum["status"] != "incomplete" || sum["control_value"] != 20.0 || sum["completed_reason"] != "max_control_value_reached_without_saturation" {
		t.Errorf("summary %s", b)
	}
	rs := posts()
	if len(rs) < 20 {
		t.Fatalf("server saw %d requests", len(rs))
	}
	start := rs[0].ReceivedNs
	for _, r := range rs {
		start = min(start, r.ReceivedNs)
	}
	perSecond := make([]int, 4)
	for _, r := range rs {
		if s := int((r.ReceivedNs - start) / 1e9); s < len(perSecond) {
			perSecond[s]++
		}
	}
	// 5, 10, 20 req/s in the first three windows (give or take the window
	// edges).
	if perSecond[0] > 8 || perSecond[2] < 14 {
		t.Errorf("requests per second %v; want the rate to rise from 5 to 20", perSecond)
	}
}
