package builtin

import (
	"github.com/aiperf-go/aiperf/internal/plugin"
	"github.com/aiperf-go/aiperf/internal/search"
)

// Search categories.
var (
	categorySearchPlanner = plugin.Category{Name: "search_planner", Description: "Search planners choose the next " +
		"configuration of a search."}
	categorySearchRecipe = plugin.Category{Name: "search_recipe", Description: "Search recipes: a goal, the parameters " +
		"to vary and the SLAs to respect."}
	categoryConvergence = plugin.Category{Name: "convergence_criterion", Description: "Convergence criteria stop " +
		"repeated runs once their results agree."}
	categoryPostProcess = plugin.Category{Name: "search_recipe_post_process", Description: "Post-process steps of the " +
		"grid recipes: one JSON artifact under sweep_aggregate/."}
)

func searchPlannerEntries() []plugin.Entry {
	return []plugin.Entry{
		entry(search.PlannerBayesian, "Tree-structured Parzen Estimator (TPE) after a Halton design, feasibility first: the points meeting every SLA filter rank above the others. AIPerf drives Optuna; this is its TPE, written in Go over gonum."),
		entry(search.PlannerMonotonic, "The highest value of one int dimension meeting the SLA: double from lo until a point fails, then bisect to adjacent values or 5 %."),
		entry(search.PlannerOptuna, "AIPerf's expert mode; here the same TPE planner as bayesian (--optuna-sampler tpe)."),
		entry(search.PlannerSmoothIsotonic, "AIPerf's default for max-concurrency-under-sla; here the monotonic_sla search (doubling, then bisection)."),
	}
}

func searchRecipeEntries() []plugin.Entry {
	var out []plugin.Entry
	for _, r := range search.Recipes() {
		out = append(out, entry(r.Name, r.Description))
	}
	return out
}

func convergenceEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("ci_width", "Stop when the Student-t confidence interval of the statistic across runs is narrower than the threshold (0.10) times its mean."),
		entry("cv", "Stop when the coefficient of variation of the statistic across runs is below the threshold (0.05)."),
		entry("distribution", "Stop when a two-sample Kolmogorov-Smirnov test finds the last run's per-request values like the earlier runs' (p-value above 0.05)."),
	}
}

func postProcessEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("degradation_knee_detect", "concurrency-ramp: the first concurrency whose latency exceeds the lowest concurrency's by more than --degradation-threshold (degradation_knee.json)."),
		entry("itl_surface_fit", "decode-itl-curve: the ITL measured on the concurrency x output-length grid (decode_itl_surface.json)."),
		entry("pareto_sweep_export", "pareto-sweep: each ISL/OSL/concurrency cell, Pareto optimal when no cell has lower TTFT p95 and higher output throughput (pareto_sweep.json)."),
		entry("sla_breach_knee", "max-concurrency-under-sla --search-style grid: the highest passing and the first failing concurrency with the breached filter (sla_breach.json)."),
		entry("ttft_curve_fit", "prefill-ttft-curve: TTFT against ISL, a line or, below r^2 0.85, a quadratic (prefill_curve.json)."),
	}
}
