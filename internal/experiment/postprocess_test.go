package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/results"
	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// combo is a multi-trial sweep cell: concurrency c with the given means.
func combo(c int, means map[string]float64) sweepCombo {
	sc := sweepCombo{Params: []sweepParam{{Name: "concurrency", Value: c}}}
	for k, v := range means {
		sc.Metrics = append(sc.Metrics, cellMetric{Key: k, Mean: v, Obj: (&jobj{}).set("mean", v)})
	}
	return sc
}

func get(t *testing.T, o *jobj, k string) any {
	t.Helper()
	v, ok := o.get(k)
	if !ok {
		t.Fatalf("no %q in %s", k, marshalIndent(o))
	}
	return v
}

func TestDegradationKnee(t *testing.T) {
	t.Parallel()
	s := &sweepAggregate{Combos: []sweepCombo{
		combo(8, map[string]float64{"request_latency_p99": 11.9}),
		combo(1, map[string]float64{"request_latency_p99": 10}),
		combo(64, map[string]float64{"request_latency_p99": 40}),
		combo(16, map[string]float64{"request_latency_p99": 12.1}),
	}}
	doc, err := degradationKnee(s, "phases.profiling.concurrency", "request_latency", "p99", 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if get(t, doc, "baseline_concurrency") != 1 || get(t, doc, "knee_concurrency") != 16 || get(t, doc, "knee_p99") != 12.1 || len(get(t, doc, "all_points").([]any)) != 4 {
		t.Errorf("knee = %s", marshalIndent(doc))
	}
	if _, err := degradationKnee(&sweepAggregate{Combos: []sweepCombo{combo(1, map[string]float64{"request_latency_p99": 0})}}, "concurrency", "request_latency", "p99", 0.2); err == nil {
		t.Error("a zero baseline was accepted")
	}
	if _, err := degradationKnee(s, "concurrency", "time_to_first_token", "p99", 0.2); err == nil || !strings.Contains(err.Error(), "no point with parameter") {
		t.Errorf("missing metric: %v", err)
	}
}

func TestSLABreachKnee(t *testing.T) {
	t.Parallel()
	s := &sweepAggregate{Combos: []sweepCombo{
		combo(1, map[string]float64{"time_to_first_token_p95": 20}),
		combo(2, map[string]float64{"time_to_first_token_p95": 30}),
		combo(4, map[string]float64{"time_to_first_token_p95": 90}),
		combo(8, map[string]float64{"time_to_first_token_p95": 45}), // non-monotonic
	}}
	doc, err := slaBreachKnee(s, "phases.profiling.concurrency", []sla.Filter{{Metric: "time_to_first_token", Stat: "p95", Op: sla.LT, Threshold: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if get(t, doc, "max_passing_concurrency") != 8 || get(t, doc, "first_failing_concurrency") != 4 || get(t, doc, "monotonicity_check") != false {
		t.Errorf("breach = %s", marshalIndent(doc))
	}
	br := get(t, doc, "first_failing_breach").(*jobj)
	if get(t, br, "observed") != 90.0 {
		t.Errorf("first breach = %s", marshalIndent(br))
	}
}

// TestTTFTCurveFit: exact lines fit with r^2 = 1; a parabola falls back
// to the quadratic form (coefficients highest degree first, as polyfit).
func TestTTFTCurveFit(t *testing.T) {
	t.Parallel()
	mk := func(f func(x float64) float64) *sweepAggregate {
		s := &sweepAggregate{}
		for _, isl := range []int{256, 512, 1024, 2048, 4096, 8192, 16384, 32768} {
			c := combo(0, map[string]float64{"time_to_first_token_avg": f(float64(isl))})
			c.Params = []sweepParam{{Name: "isl", Value: isl}}
			s.Combos = append(s.Combos, c)
		}
		return s
	}
	doc, err := ttftCurveFit(mk(func(x float64) float64 { return 0.02*x + 5 }), "datasets.main.prompts.isl", "time_to_first_token", "avg")
	if err != nil {
		t.Fatal(err)
	}
	cs := get(t, doc, "coefficients").([]any)
	if get(t, doc, "fit_form") != "linear" || math.Abs(cs[0].(float64)-0.02) > 1e-9 || math.Abs(cs[1].(float64)-5) > 1e-6 || math.Abs(get(t, doc, "r_squared").(float64)-1) > 1e-9 {
		t.Errorf("linear fit = %s", marshalIndent(doc))
	}
	doc, _ = ttftCurveFit(mk(func(x float64) float64 { return 1e-6*(x-16000)*(x-16000) + 1 }), "isl", "time_to_first_token", "avg")
	cs = get(t, doc, "coefficients").([]any)
	if get(t, doc, "fit_form") != "quadratic" || math.Abs(cs[0].(float64)-1e-6) > 1e-12 || get(t, doc, "below_floor") != false {
		t.Errorf("quadratic fit = %s", marshalIndent(doc))
	}
}

func TestFeasibilityFiltersBestAndPareto(t *testing.T) {
	t.Parallel()
	mk := func(c int, tput, ttft float64) sweepCell {
		return sweepCell{Params: []sweepParam{{Name: "concurrency", Value: c}}, Results: []runResult{{Label: "run_0001", Summary: summaryOf(t, tput, ttft)}}}
	}
	cells := []sweepCell{mk(1, 10, 20), mk(2, 18, 30), mk(4, 30, 200)}
	f := sla.Filter{Metric: "time_to_first_token", Stat: "p99", Op: sla.LT, Threshold: 100}
	s := aggregateSweep(cells, 0.95, "repeated", f)
	best, _ := s.Best.get("best_throughput")
	if p, _ := best.(*jobj).get("parameters"); pyRepr(p) != "{'concurrency': 2}" || s.feasibleCount() != 2 || len(s.Pareto) != 2 {
		t.Errorf("best %s, feasible %d, pareto %v", marshalIndent(best), s.feasibleCount(), s.Pareto)
	}
	if !strings.Contains(string(s.sweepJSON()), `"sla_constraints"`) {
		t.Error("sweep JSON lacks sla_constraints")
	}
	// nothing feasible: best falls back to every point, pareto stays empty
	f.Threshold = 1
	s = aggregateSweep(cells, 0.95, "repeated", f)
	if _, ok := s.Best.get("best_throughput"); !ok || len(s.Pareto) != 0 {
		t.Errorf("no feasible point: best %s, pareto %v", marshalIndent(s.Best), s.Pareto)
	}
}

func summaryOf(t *testing.T, tput, ttft float64) *results.Summary {
	t.Helper()
	s, err := results.ParseSummary(fmt.Appendf(nil, `{"request_throughput":{"unit":"requests/sec","avg":%v},"time_to_first_token":{"unit":"ms","avg":%v,"p99":%v}}`, tput, ttft/2, ttft))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGridRecipeAgainstMock runs concurrency-ramp (three log-spaced
// points) against the mock with --use-case batch,capacity: the sweep
// layout, the sweep aggregate, degradation_knee.json and the sweep's
// verdicts.
func TestGridRecipeAgainstMock(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := *baseConfig(t, url)
	cfg.Load.RequestCount = ptr(6)
	cfg.Analysis.UseCases = []config.UseCase{config.UseCaseBatch, config.UseCaseCapacity}
	plan, err := search.ExpandRecipe(search.RecipeInput{Name: "concurrency-ramp", ConcurrencyMax: ptr(4), ConcurrencySteps: ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := RunSearch(context.Background(), cfg, plan, benchmark.IO{Stdout: &out, Stderr: &out, Version: "test"}); err != nil {
		t.Fatalf("RunSearch: %v\n%s", err, out.String())
	}
	dir := cfg.Output.ArtifactDir
	for _, p := range []string{"concurrency_1", "concurrency_2", "concurrency_4"} {
		if _, err := os.Stat(filepath.Join(dir, p, "profile_export_aiperf.json")); err != nil {
			t.Errorf("grid layout: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, searchHistoryName)); err == nil {
		t.Error("a grid plan wrote search_history.json")
	}
	var knee map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "sweep_aggregate", "degradation_knee.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &knee); err != nil || knee["baseline_concurrency"] != 1.0 || knee["swept_metric"] != "request_latency" {
		t.Errorf("degradation_knee.json: %v %v", err, knee)
	}
	var v struct {
		UseCases []struct {
			UseCase string `json:"use_case"`
			Status  string `json:"status"`
		} `json:"use_cases"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "sweep_aggregate", sweepVerdictsName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.UseCases) != 2 || v.UseCases[0].UseCase != "batch" || v.UseCases[0].Status == "unknown" {
		t.Errorf("verdicts.json: %v %s", err, b)
	}
	if !strings.Contains(out.String(), "Use-case verdicts across the sweep") {
		t.Errorf("console lacks the sweep verdicts:\n%s", out.String())
	}
}
