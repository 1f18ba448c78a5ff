package experiment

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// TestSLASearchFindsTheKnee is the acceptance test of the SLA search: the
// mock's batched scheduler with 4 slots (2 ms + 1 ms per sequence a step,
// 16-token outputs) keeps TTFT near two steps (about 12 ms) up to
// concurrency 4 and makes a queued request wait a whole service time
// (about 16 x 6 = 96 ms) from 5 on (docs/load-shapes.md derives it; with
// 2 x concurrency requests a point at 5 queues a fifth of them). A
// monotonic search of concurrency 1..16 for the highest passing "TTFT p90
// below 60 ms" (p90: one request stalled by this loaded machine does not
// fail a point; each point warms up first) finds 4, exactly, in 6 runs
// where the grid over the same range needs 16.
func TestSLASearchFindsTheKnee(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.Batch = mockserver.BatchConfig{Slots: 4, StepMs: 2, StepPerSeqMs: 1, PrefillPerTokenMs: 0.01}
	})
	cfg := *baseConfig(t, url)
	cfg.Load.RequestCount = nil // 2 x concurrency (at least 10): every point sees its steady state
	cfg.Input.InputTokens.Mean = 64
	cfg.Input.OutputTokens.Mean = ptr(16)
	cfg.Warmup.RequestCount = ptr(4)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	plan := &search.Plan{
		Recipe: "max-concurrency-under-sla", Planner: search.PlannerMonotonic, MaxIter: 20,
		Space:     []search.Dim{{Path: search.ConcurrencyPath, Lo: 1, Hi: 16, Int: true}},
		Objective: search.Objective{Metric: "output_token_throughput", Stat: "avg", Direction: search.Maximize},
		Filters:   []sla.Filter{{Metric: "time_to_first_token", Stat: "p90", Op: sla.LT, Threshold: 60}},
	}
	var out strings.Builder
	if err := RunSearch(context.Background(), cfg, plan, benchmark.IO{Stdout: &out, Stderr: &out, Version: "test"}); err != nil {
		t.Fatalf("RunSearch: %v\n%s", err, out.String())
	}
	dir := cfg.Output.ArtifactDir
	runs, _ := filepath.Glob(filepath.Join(dir, "search_iter_*", "profile_runs", "run_0001", "profile_export_aiperf.json"))
	b, err := os.ReadFile(filepath.Join(dir, searchHistoryName))
	if err != nil {
		t.Fatal(err)
	}
	var hist struct {
		Config struct {
			Planner    string `json:"planner"`
			SLAFilters []struct {
				Metric    string  `json:"metric_tag"`
				Threshold float64 `json:"threshold"`
			} `json:"sla_filters"`
		} `json:"config"`
		Iterations []struct {
			Values   map[string]int `json:"variation_values"`
			Feasible bool           `json:"feasible"`
		} `json:"iterations"`
		Boundary struct {
			FeasibleMax struct {
				Value int `json:"value"`
			} `json:"feasible_max"`
			InfeasibleMin struct {
				Value       int `json:"value"`
				FirstBreach struct {
					Metric   string  `json:"metric_tag"`
					Observed float64 `json:"observed"`
				} `json:"first_breach"`
			} `json:"infeasible_min"`
		} `json:"boundary_summary"`
		Recipe string `json:"recipe"`
		Reason string `json:"convergence_reason"`
	}
	if err := json.Unmarshal(b, &hist); err != nil {
		t.Fatalf("%s: %v", searchHistoryName, err)
	}
	var seq []int
	for _, it := range hist.Iterations {
		seq = append(seq, it.Values["phases.profiling.concurrency"])
	}
	t.Logf("probed concurrencies %v; boundary [%d, %d]; first breach %s = %.1f ms", seq,
		hist.Boundary.FeasibleMax.Value, hist.Boundary.InfeasibleMin.Value, hist.Boundary.InfeasibleMin.FirstBreach.Metric, hist.Boundary.InfeasibleMin.FirstBreach.Observed)
	const knee, grid = 4, 16
	if hist.Boundary.FeasibleMax.Value != knee || hist.Boundary.InfeasibleMin.Value != knee+1 {
		t.Errorf("boundary [%d, %d]; want the knee [%d, %d]\n%s", hist.Boundary.FeasibleMax.Value, hist.Boundary.InfeasibleMin.Value, knee, knee+1, out.String())
	}
	if len(hist.Iterations) >= grid || len(runs) != len(hist.Iterations) {
		t.Errorf("%d points (%d run dirs); want fewer than the %d of the grid", len(hist.Iterations), len(runs), grid)
	}
	if hist.Recipe != "max-concurrency-under-sla" || hist.Reason != "monotonic_precision_reached" || hist.Config.Planner != "monotonic_sla" ||
		len(hist.Config.SLAFilters) != 1 || hist.Config.SLAFilters[0].Threshold != 60 || hist.Boundary.InfeasibleMin.FirstBreach.Observed <= 60 {
		t.Errorf("history = %+v", hist)
	}
	// The sweep aggregate holds every point, with the SLA applied.
	var sweep struct {
		Metadata struct {
			SLA struct {
				Feasible   int `json:"feasible_count"`
				Infeasible int `json:"infeasible_count"`
			} `json:"sla_constraints"`
		} `json:"metadata"`
		Best map[string]struct {
			Parameters map[string]int `json:"parameters"`
		} `json:"best_configurations"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "sweep_aggregate", sweepJSONName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sweep); err != nil {
		t.Fatal(err)
	}
	if sweep.Metadata.SLA.Feasible+sweep.Metadata.SLA.Infeasible != len(hist.Iterations) || sweep.Best["best_throughput"].Parameters["concurrency"] > knee {
		t.Errorf("sweep aggregate: %+v", sweep)
	}
	if !strings.Contains(out.String(), "Highest passing concurrency: 4") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestPooledPercentile: with --search-percentile-pooling pooled the
// objective is the percentile of every request of the point's runs.
func TestPooledPercentile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var runs []runResult
	for i, vals := range [][]float64{{10, 20, 30}, {40, 50}} {
		var b strings.Builder
		for _, v := range vals {
			b.WriteString(`{"metadata":{"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":` + strconv.FormatFloat(v, 'f', -1, 64) + `,"unit":"ms"}}}` + "\n")
		}
		path := filepath.Join(dir, strconv.Itoa(i)+".jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, runResult{Records: path, Summary: summaryWith(t, "time_to_first_token", 1)})
	}
	x := &experiment{results: [][]runResult{runs}, plan: &search.Plan{Objective: search.Objective{Metric: "time_to_first_token", Stat: "p50"}, Pooled: true}}
	if got := x.observe(0).Objective; got != 30 {
		t.Errorf("pooled p50 = %v; want 30 (the median of 10..50)", got)
	}
	x.plan.Pooled = false
	if got := x.observe(0).Objective; !math.IsNaN(got) { // the summaries have no p50
		t.Errorf("mean of the runs' p50 = %v; want NaN (not in the summaries)", got)
	}
}
