package experiment

import (
	"math"
	"strings"

	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// sweepFilters are the SLA filters the sweep aggregate applies: the
// search's, else a plain sweep's --search-sla (or sweep.sla_filters),
// which the command line has validated.
func (x *experiment) sweepFilters() []sla.Filter {
	if x.plan != nil {
		return x.plan.Filters
	}
	var out []sla.Filter
	for _, s := range x.base0.Search.SLA {
		if f, err := sla.Parse(s); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// finite returns v, or nil (JSON null) when v is not finite.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// pointValues is a point as {path: value}.
func (x *experiment) pointValues(p search.Point) *jobj {
	o := &jobj{}
	for _, pr := range pointParams(x.plan.Space, p) {
		o.set(pr.Path, jsonValue(pr.Value))
	}
	return o
}

// writeSearchHistory writes search_history.json, AIPerf's trajectory
// log: the search's configuration, every iteration, the best trial
// (feasibility first), the SLA boundary of a one-dimensional search, the
// per-tier boundaries of --search-sla-tier, the recipe and why the search
// ended (null while it runs).
func (x *experiment) writeSearchHistory(planner search.Planner) error {
	p := x.plan
	hist := planner.History()
	space := make([]any, len(p.Space))
	for i, d := range p.Space {
		space[i] = (&jobj{}).set("path", d.Path).set("lo", d.Lo).set("hi", d.Hi).set("kind", d.Kind())
	}
	filters := make([]any, len(p.Filters))
	for i, f := range p.Filters {
		filters[i] = slaFilterObj(f)
	}
	var seed any
	if p.Seed != nil {
		seed = int(*p.Seed)
	}
	cfg := (&jobj{}).
		set("planner", p.Planner).
		set("objectives", []any{(&jobj{}).set("metric", p.Objective.Metric).set("stat", p.Objective.Stat).
			set("direction", strings.ToUpper(string(p.Objective.Direction))).set("threshold", nil)}).
		set("outcome_constraints", []any{}).
		set("max_iterations", p.MaxIter).
		set("n_initial_points", p.InitPoints).
		set("random_seed", seed).
		set("improvement_patience", zeroNil(p.Stopping.Patience)).
		set("plateau_window", zeroNil(p.Stopping.Window)).
		set("plateau_threshold", zeroNilF(p.Stopping.Threshold)).
		set("search_space", space).
		set("sla_filters", filters)
	iters := make([]any, len(hist))
	for i, it := range hist {
		var objs any
		if v := finite(it.Observation.Objective); v != nil {
			objs = []any{v}
		}
		iters[i] = (&jobj{}).set("iteration_idx", it.Index).set("variation_values", x.pointValues(it.Point)).
			set("objective_values", objs).set("feasible", it.Observation.Feasible).set("non_monotonic_warning", it.NonMonotonic)
	}
	var best any
	if b, feasible, ok := search.Best(hist, p.Objective.Direction); ok {
		best = []any{(&jobj{}).set("iteration_idx", b.Index).set("objective_values", []any{b.Observation.Objective}).
			set("variation_values", x.pointValues(b.Point)).set("feasible", b.Observation.Feasible).
			set("feasible_count", feasible).set("pareto_rank", 0)}
	}
	doc := (&jobj{}).set("config", cfg).set("iterations", iters).set("best_trials", best).
		set("boundary_summary", x.boundaryObj(planner))
	if len(p.Tiers) > 0 {
		tiers := make([]any, len(p.Tiers))
		for i, t := range p.Tiers {
			fs := make([]any, len(t.Filters))
			for j, f := range t.Filters {
				fs[j] = slaFilterObj(f)
			}
			tiers[i] = (&jobj{}).set("label", t.Label).set("filters", fs)
		}
		cfg.set("tiers", tiers)
		doc.set("tier_results", x.tierResults(hist))
	}
	var recipe, reason any
	if p.Recipe != "" {
		recipe = p.Recipe
	}
	if r := planner.Reason(); r != "" {
		reason = r
	}
	doc.set("recipe", recipe).set("convergence_reason", reason)
	return x.writeSearchHistoryFile(marshalIndent(doc))
}

// boundaryObj is the boundary_summary block; null for several dimensions.
func (x *experiment) boundaryObj(planner search.Planner) any {
	bs := x.boundary(planner)
	if bs == nil || (bs.feasibleMax == nil && bs.infeasibleMin == nil) {
		return nil
	}
	o := (&jobj{}).set("swept_dim_path", bs.path)
	if fm := bs.feasibleMax; fm != nil {
		o.set("feasible_max", (&jobj{}).set("value", x.dimValue(fm.value)).set("iteration_idx", fm.iter).set("objective_value", finite(fm.objective)))
	} else {
		o.set("feasible_max", nil)
	}
	if im := bs.infeasibleMin; im != nil {
		o.set("infeasible_min", (&jobj{}).set("value", x.dimValue(im.value)).set("iteration_idx", im.iter).set("first_breach", x.breachObj(im.iter)))
	} else {
		o.set("infeasible_min", nil)
	}
	if m, ok := planner.(*search.MonotonicPlanner); ok {
		nonMono := false
		for _, it := range m.History() {
			nonMono = nonMono || it.NonMonotonic
		}
		var reason any
		if r := m.Reason(); r != "" {
			reason = r
		}
		o.set("non_monotonic_warning", nonMono).set("convergence_reason", reason)
	}
	return o
}

// dimValue is a value of the first dimension as JSON (whole for int).
func (x *experiment) dimValue(v float64) any {
	if x.plan.Space[0].Int {
		return int(math.Round(v))
	}
	return v
}

// breachObj is point v's first breached filter with the observed value.
func (x *experiment) breachObj(v int) any {
	f, obs, ok := x.firstBreach(v)
	if !ok {
		return nil
	}
	return slaFilterObj(f).set("observed", finite(obs))
}

// tierResults evaluates each --search-sla-tier over the points run: its
// boundary on a one-dimensional search (the highest value that met the
// tier below the lowest that did not), as AIPerf's TierResult.
func (x *experiment) tierResults(hist []search.Iteration) []any {
	out := make([]any, len(x.plan.Tiers))
	for ti, t := range x.plan.Tiers {
		lower, upper := -1.0, -1.0
		upperIter := -1
		for _, it := range hist {
			pass := false
			for i := range x.results[it.Index] {
				r := &x.results[it.Index][i]
				if r.ok() && sla.Evaluate(t.Filters, r.Summary).Pass {
					pass = true
				}
			}
			v := it.Point[0]
			if pass {
				lower = max(lower, v)
			} else if upper < 0 || v < upper {
				upper, upperIter = v, it.Index
			}
		}
		status := "converged"
		switch {
		case lower < 0:
			status = "no_pass_in_range"
		case upper < 0:
			status = "no_failure_in_range"
		case upper-lower > 1 && (upper-lower)/upper >= search.SLAPrecision:
			status = "partial"
		}
		o := (&jobj{}).set("label", t.Label)
		if lower >= 0 && len(x.plan.Space) == 1 {
			o.set("boundary_concurrency", int(lower))
		} else {
			o.set("boundary_concurrency", nil)
		}
		o.set("convergence_status", status)
		var binding any
		if upperIter >= 0 {
			for _, f := range t.Filters {
				met := false
				for i := range x.results[upperIter] {
					if r := &x.results[upperIter][i]; r.ok() && sla.Evaluate([]sla.Filter{f}, r.Summary).Pass {
						met = true
					}
				}
				if !met {
					binding = slaFilterObj(f)
					break
				}
			}
		}
		o.set("binding_constraint", binding)
		if lower >= 0 {
			o.set("bracket_lower", int(lower))
		} else {
			o.set("bracket_lower", nil)
		}
		if upper >= 0 {
			o.set("bracket_upper", int(upper))
		} else {
			o.set("bracket_upper", nil)
		}
		fs := make([]any, len(t.Filters))
		for j, f := range t.Filters {
			fs[j] = slaFilterObj(f)
		}
		o.set("probe_count", len(hist)).set("filters", fs)
		out[ti] = o
	}
	return out
}

// zeroNil is n, or null when 0 (the stop is off).
func zeroNil(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func zeroNilF(f float64) any {
	if f == 0 {
		return nil
	}
	return f
}
