package search

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/sla"
)

// TestExpandRecipe pins each recipe's plan shape (planner, budget, grid
// size, post-processing) and every error it reports.
func TestExpandRecipe(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	ttft := sla.Shorthands{TTFTms: f(200)}
	all := sla.Shorthands{TTFTms: f(200), TPOTms: f(20), E2Ems: f(900)}
	cases := []struct {
		name    string
		in      RecipeInput
		planner string
		iter    int
		points  int
		handler string
		err     string
	}{
		{name: "ttft", in: RecipeInput{Name: "max-throughput-ttft-sla", SLA: ttft}, planner: PlannerBayesian, iter: 30},
		{name: "ttft missing", in: RecipeInput{Name: "max-throughput-ttft-sla"}, err: "requires --ttft-sla-ms"},
		{name: "itl", in: RecipeInput{Name: "max-throughput-itl-sla", SLA: sla.Shorthands{ITLms: f(10)}}, planner: PlannerBayesian, iter: 30},
		{name: "itl missing", in: RecipeInput{Name: "max-throughput-itl-sla", SLA: ttft}, err: "requires --itl-sla-ms"},
		{name: "ttft bounds", in: RecipeInput{Name: "max-throughput-ttft-sla", SLA: ttft, ConcurrencyMin: i(8), ConcurrencyMax: i(8)}, err: "--concurrency-min (8) must be < --concurrency-max (8)"},
		{name: "ramp", in: RecipeInput{Name: "concurrency-ramp"}, planner: PlannerGrid, iter: 8, points: 8, handler: "degradation_knee_detect"},
		{name: "ramp steps", in: RecipeInput{Name: "concurrency-ramp", ConcurrencySteps: i(1)}, err: "--concurrency-steps"},
		{name: "prefill", in: RecipeInput{Name: "prefill-ttft-curve", ISLSteps: i(4)}, planner: PlannerGrid, iter: 4, points: 4, handler: "ttft_curve_fit"},
		{name: "prefill steps", in: RecipeInput{Name: "prefill-ttft-curve", ISLSteps: i(1)}, err: "--isl-min/--isl-max/--isl-steps"},
		{name: "decode", in: RecipeInput{Name: "decode-itl-curve", ConcurrencySteps: i(3), OSLSteps: i(2)}, planner: PlannerGrid, iter: 6, points: 6, handler: "itl_surface_fit"},
		{name: "decode osl", in: RecipeInput{Name: "decode-itl-curve", OSLSteps: i(1)}, err: "--osl-min/--osl-max/--osl-steps"},
		{name: "under sla", in: RecipeInput{Name: "max-concurrency-under-sla", SLA: ttft}, planner: PlannerSmoothIsotonic, iter: 30},
		{name: "under sla monotonic", in: RecipeInput{Name: "max-concurrency-under-sla", SLA: ttft, Style: "monotonic"}, planner: PlannerMonotonic, iter: 20},
		{name: "under sla bo", in: RecipeInput{Name: "max-concurrency-under-sla", SLA: ttft, Style: "bo"}, planner: PlannerBayesian, iter: 30},
		{name: "under sla optuna", in: RecipeInput{Name: "max-concurrency-under-sla", SLA: ttft, Style: "optuna"}, planner: PlannerOptuna, iter: 30},
		{name: "under sla grid", in: RecipeInput{Name: "max-concurrency-under-sla", SLA: ttft, Style: "grid"}, planner: PlannerGrid, iter: 8, points: 8, handler: "sla_breach_knee"},
		{name: "under sla style", in: RecipeInput{Name: "max-concurrency-under-sla", SLA: ttft, Style: "nope"}, err: `unknown --search-style "nope"`},
		{name: "under sla none", in: RecipeInput{Name: "max-concurrency-under-sla"}, err: "requires at least one of"},
		{name: "pareto", in: RecipeInput{Name: "pareto-sweep", ISLOSLPairs: "128/128,512/256", Concurrencies: []int{1, 4, 16}}, planner: PlannerGrid, iter: 6, points: 6, handler: "pareto_sweep_export"},
		{name: "pareto missing", in: RecipeInput{Name: "pareto-sweep"}, err: "requires --isl-osl-pairs"},
		{name: "pareto one point", in: RecipeInput{Name: "pareto-sweep", ISLOSLPairs: "128/128", Concurrencies: []int{4}}, err: "a Pareto sweep of one point"},
		{name: "goodput", in: RecipeInput{Name: "max-goodput-under-slo", SLA: all}, planner: PlannerBayesian, iter: 30},
		{name: "goodput missing", in: RecipeInput{Name: "max-goodput-under-slo", SLA: ttft}, err: "requires --tpot-sla-ms, --e2e-sla-ms: all three"},
		{name: "goodput attainment", in: RecipeInput{Name: "max-goodput-under-slo", SLA: all, SLOAttainment: f(1.5)}, err: "--slo-attainment-fraction must be in (0, 1], got 1.5"},
		{name: "unknown", in: RecipeInput{Name: "nope"}, err: `unknown search recipe "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ExpandRecipe(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			handler := ""
			if p.PostProcess != nil {
				handler = p.PostProcess.Handler
			}
			if string(p.Planner) != c.planner || p.MaxIter != c.iter || len(p.Points) != c.points || handler != c.handler || p.Recipe != c.in.Name {
				t.Errorf("plan %s/%d iterations/%d points/%q for %s, want %s/%d/%d/%q",
					p.Planner, p.MaxIter, len(p.Points), handler, p.Recipe, c.planner, c.iter, c.points, c.handler)
			}
		})
	}
}
