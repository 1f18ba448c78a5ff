package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/sla"
)

func TestSearchFlagsBuildThePlan(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "-m", "m", "--streaming",
		"--search-recipe", "max-concurrency-under-sla", "--ttft-sla-ms", "200", "--e2e-sla-ms", "900",
		"--search-sla", "request_error_rate:avg:lt:1", "--concurrency-max", "64")
	if r.code != 0 || r.rio.Search == nil {
		t.Fatalf("exit %d, plan %v\n%s", r.code, r.rio.Search, r.stderr)
	}
	p := r.rio.Search
	want := []sla.Filter{{Metric: "time_to_first_token", Stat: "p95", Op: sla.LT, Threshold: 200}, {Metric: "request_latency", Stat: "p99", Op: sla.LT, Threshold: 900}, {Metric: "request_error_rate", Stat: "avg", Op: sla.LT, Threshold: 1}}
	if p.Planner != search.PlannerSmoothIsotonic || p.Space[0].Hi != 64 || len(p.Filters) != 3 || p.Filters[0] != want[0] || p.Filters[1] != want[1] || p.Filters[2] != want[2] {
		t.Errorf("plan = %+v", p)
	}
	r = runMain(t, context.Background(), nil, "profile", "-m", "m", "--search-space", "concurrency:1,512:int",
		"--search-metric", "request_throughput", "--search-direction", "maximize", "--search-max-iterations", "12",
		"--search-random-seed", "3", "--search-sla-tier", "fast:time_to_first_token:p95:lt:100", "--search-sla-tier", "slow:time_to_first_token:p95:lt:1000")
	if r.code != 0 || r.rio.Search == nil {
		t.Fatalf("search space: exit %d\n%s", r.code, r.stderr)
	}
	p = r.rio.Search
	if p.Planner != search.PlannerBayesian || p.MaxIter != 12 || p.InitPoints != 5 || *p.Seed != 3 || len(p.Tiers) != 2 || p.Tiers[1].Label != "slow" || p.Space[0].Path != "concurrency" {
		t.Errorf("plan = %+v", p)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--search-space", "concurrency:1,8:int"}, "--search-metric: is required with --search-space"},
		{[]string{"--search-recipe", "max-throughput-ttft-sla", "--streaming"}, "requires --ttft-sla-ms"},
		{[]string{"--search-recipe", "max-throughput-ttft-sla", "--ttft-sla-ms", "10"}, "add --streaming"},
		{[]string{"--search-recipe", "concurrency-ramp", "--search-metric", "x"}, "--search-metric: cannot be combined with --search-recipe"},
		{[]string{"--search-recipe", "concurrency-ramp", "--isl", "128,256"}, "cannot be combined with --search-space or --search-recipe"},
		{[]string{"--search-recipe", "nope"}, `unknown search recipe "nope"`},
		{[]string{"--search-space", "concurrency:1,8:int", "--search-metric", "x", "--search-direction", "up", "--search-max-iterations", "1"}, "--search-max-iterations: must be between 2 and 200"},
		{[]string{"--search-space", "c:8,1"}, "hi (1) must be > lo (8)"},
		{[]string{"--search-recipe", "concurrency-ramp", "--search-sla", "ttft:p95:lt"}, "expected 4 colon-separated parts"},
		{[]string{"--search-recipe", "concurrency-ramp", "--search-sla-tier", "a:ttft:p95:lt:1"}, "between 2 and 10 tiers"},
		{[]string{"--search-recipe", "concurrency-ramp", "--convergence-metric", "x", "--num-profile-runs", "3"}, "cannot be combined with a search"},
		{[]string{"--variant", "isl=100"}, "--variant: needs at least two variants"},
		{[]string{"--variant", "isl=100", "--variant", "bogus=1"}, `unknown key "bogus"`},
		{[]string{"--optuna-sampler", "gp"}, "is not available"},
	} {
		r := runMain(t, context.Background(), nil, append([]string{"profile", "-m", "m"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d; want 2 with %q\n%s", c.args, r.code, c.want, r.stderr)
		}
	}
}

func TestVariants(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "-m", "m", "--variant", "short: isl=128, osl=32", "--variant", "isl=2048, concurrency=4, request_count=20")
	if r.code != 0 || len(r.rio.Variations) != 2 {
		t.Fatalf("exit %d, %d variations\n%s", r.code, len(r.rio.Variations), r.stderr)
	}
	a, b := r.rio.Variations[0], r.rio.Variations[1]
	if a.Label != "short" || a.Config.Input.InputTokens.Mean != 128 || *a.Config.Input.OutputTokens.Mean != 32 ||
		b.Label != "v1" || b.Config.Input.InputTokens.Mean != 2048 || *b.Config.Load.Concurrency != 4 || *b.Config.Load.RequestCount != 20 {
		t.Errorf("variations = %+v / %+v", a, b)
	}
	for in, want := range map[string]string{"": "empty", " : isl=1": "empty name", "isl": "not key=value", "isl=1, isl=2": "given twice"} {
		if _, _, _, err := parseVariant(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseVariant(%q) = %v; want %q", in, err, want)
		}
	}
}
