package cli

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/search"
)

// addSearchFlags registers the rest of AIPerf's Multi-Run group: the
// adaptive search, its recipes, SLA filters and shorthands, the recipe
// ramps and --variant, bound to cfg.Search.
func (b *flagBuilder) addSearchFlags(cfg *config.Config) {
	s := &cfg.Search
	b.group = groupMultiRun
	b.add(&searchSpaceValue{recorder: b.rec("search-space"), p: &s.Space}, spec{
		name: "search-space", meta: "<path:lo,hi[:kind]>",
		usage: "Search this parameter instead of sweeping it: a dot path into the benchmark (phases.profiling.concurrency, datasets.main.prompts.isl, ...), its bounds and int or real (default). Repeatable, one dimension each. Needs --search-metric, --search-direction and --search-max-iterations; writes search_history.json and sweep_aggregate/.",
	})
	b.add(&stringValue{recorder: b.rec("search-metric"), p: &s.Metric}, spec{
		name: "search-metric", meta: "<metric>",
		usage: "Metric tag the search optimises (output_token_throughput, request_throughput, time_to_first_token, ...).",
	})
	b.add(&stringValue{recorder: b.rec("search-stat"), p: &s.Stat}, spec{
		name: "search-stat", meta: "<stat>", def: "avg", choices: config.SearchStats(),
		usage: "Statistic of --search-metric optimised, averaged over a point's runs.",
	})
	b.add(&stringValue{recorder: b.rec("search-direction"), p: &s.Direction}, spec{
		name: "search-direction", meta: "<direction>", choices: []string{"maximize", "minimize"},
		usage: "Whether the search maximises or minimises the objective.",
	})
	b.add(&intPtrValue{recorder: b.rec("search-max-iterations"), p: &s.MaxIterations}, spec{
		name: "search-max-iterations", meta: "<n>",
		usage: "Most points the search runs (2-200); each point runs --num-profile-runs times.",
	})
	b.add(&intPtrValue{recorder: b.rec("search-initial-points"), p: &s.InitialPoints}, spec{
		name: "search-initial-points", meta: "<n>", def: "5",
		usage: "Points of the space-filling design the Bayesian planner runs before it models the objective; fewer than --search-max-iterations.",
	})
	b.add(&int64PtrValue{recorder: b.rec("search-random-seed"), p: &s.RandomSeed}, spec{
		name: "search-random-seed", meta: "<seed>",
		usage: "Seed of the planner (bayesian, random), for a reproducible trajectory; without it each search draws its own.",
	})
	b.add(&stringValue{recorder: b.rec("search-planner"), p: &s.Planner}, spec{
		name: "search-planner", meta: "<planner>", def: search.PlannerBayesian, choices: search.Planners(),
		usage: "bayesian (and its alias optuna): a Tree-structured Parzen Estimator, feasibility first, after a Halton design; monotonic_sla (and smooth_isotonic, which runs the same search here): the highest value of one int dimension that meets the SLA, by doubling then bisection; random: seeded uniform samples.",
	})
	b.add(&stringValue{recorder: b.rec("optuna-sampler"), p: &s.OptunaSampler}, spec{
		name: "optuna-sampler", meta: "<sampler>", choices: []string{"tpe"},
		usage: "AIPerf's Optuna sampler; here only tpe exists (the Bayesian planner), gp and botorch are rejected.",
	})
	b.add(&stringValue{recorder: b.rec("optuna-acquisition"), p: &s.OptunaAcquisition}, spec{
		name: "optuna-acquisition", meta: "<function>",
		usage: "AIPerf's BoTorch acquisition function; not available here (rejected).",
	})
	b.add(&stringValue{recorder: b.rec("optuna-terminator"), p: &s.OptunaTerminator}, spec{
		name: "optuna-terminator", meta: "<rule>", choices: []string{"none"},
		usage: "AIPerf's Optuna stopping rule; only none here: the search stops at --search-max-iterations or when its planner converges.",
	})
	b.add(&stringValue{recorder: b.rec("search-percentile-pooling"), p: &s.PercentilePooling}, spec{
		name: "search-percentile-pooling", meta: "<mode>", def: "mean", choices: []string{"mean", "pooled"},
		usage: "With a percentile --search-stat: mean (the runs' percentiles averaged) or pooled (the percentile of every request of the point's runs together, from their profile_export.jsonl; the mean when the records are missing).",
	})
	b.add(&stringValue{recorder: b.rec("bo-constraint-mode"), p: &s.BOConstraintMode}, spec{
		name: "bo-constraint-mode", meta: "<mode>", choices: []string{"penalty", "eic"},
		usage: "Deprecated in AIPerf and ignored: SLA filters are applied feasibility first.",
	})
	b.add(&repeatedValue{recorder: b.rec("variant"), p: &s.Variants}, spec{
		name: "variant", aliases: []string{"sweep-variant"}, meta: "<[name:] key=value, ...>",
		usage: "One scenario of a sweep, as flag=value pairs (isl=512, concurrency=8, request-rate=10, ...), optionally named (\"long: isl=4096, osl=128\"). Repeat for each scenario (at least two); the scenarios run like a sweep's variations.",
	})
	b.add(&repeatedValue{recorder: b.rec("search-sla"), p: &s.SLA}, spec{
		name: "search-sla", meta: "<metric:stat:op:threshold>",
		usage: "SLA filter of a search or a recipe, e.g. time_to_first_token:p95:lt:200 (stat avg, min, max or p1-p99; op lt, le, gt, ge; the threshold in the metric's unit, request_error_rate in percent). Repeatable; a point is feasible when one of its runs meets all of them.",
	})
	b.add(&repeatedValue{recorder: b.rec("search-sla-tier"), p: &s.SLATiers}, spec{
		name: "search-sla-tier", meta: "<[label:]filter,...>",
		usage: "A named group of SLA filters (a service level), e.g. fast:output_token_throughput:avg:gt:300,time_to_first_token:p95:lt:5000. Give 2-10 tiers; each tier's boundary is reported in search_history.json.",
	})
	b.add(&stringValue{recorder: b.rec("search-recipe"), p: &s.Recipe}, spec{
		name: "search-recipe", meta: "<recipe>", choices: search.RecipeNames(),
		usage: "A named search: max-concurrency-under-sla (the highest concurrency meeting the SLA shorthands), max-throughput-ttft-sla, max-throughput-itl-sla, max-goodput-under-slo, concurrency-ramp (degradation knee), prefill-ttft-curve, decode-itl-curve, pareto-sweep.",
	})
	addFloat := func(p **float64, name, meta, usage string) {
		b.add(&floatPtrValue{recorder: b.rec(name), p: p}, spec{name: name, meta: meta, usage: usage})
	}
	addFloat(&s.TTFTSLAms, "ttft-sla-ms", "<ms>", "TTFT SLA of the recipes: time_to_first_token p95 below this many ms.")
	b.add(&stringValue{recorder: b.rec("isl-osl-pairs"), p: &s.ISLOSLPairs}, spec{
		name: "isl-osl-pairs", meta: "<isl/osl,...>",
		usage: "Paired input/output lengths of the pareto-sweep recipe, e.g. 128/128,512/256,2048/512, each crossed with --concurrency.",
	})
	addFloat(&s.ITLSLAms, "itl-sla-ms", "<ms>", "Inter-token-latency SLA of the recipes: inter_token_latency p95 below this many ms (alias of --tpot-sla-ms).")
	addFloat(&s.TPOTSLAms, "tpot-sla-ms", "<ms>", "Time-per-output-token SLA of the recipes (the inter_token_latency metric; alias of --itl-sla-ms).")
	addFloat(&s.E2ESLAms, "e2e-sla-ms", "<ms>", "End-to-end latency SLA of the recipes: request_latency p99 below this many ms.")
	addFloat(&s.ErrorRateSLA, "error-rate-sla", "<fraction>", "Error-rate SLA of the recipes, a fraction in (0, 1): request_error_rate below it (0.05 = 5 %).")
	addFloat(&s.SLOAttainment, "slo-attainment-fraction", "<fraction>", "Fraction of requests that must meet every per-request SLO for max-goodput-under-slo (default 0.95, DistServe's).")
	b.add(&stringValue{recorder: b.rec("search-style"), p: &s.Style}, spec{
		name: "search-style", meta: "<style>", choices: search.Styles(),
		usage: "How max-concurrency-under-sla searches: smooth_isotonic (default) and monotonic double then bisect (here the same search), bo and optuna run the Bayesian planner, grid runs 8 log-spaced concurrencies and writes sla_breach.json.",
	})
	addFloat(&s.DegradationThreshold, "degradation-threshold", "<fraction>", "concurrency-ramp: the knee is the first concurrency whose latency exceeds the lowest concurrency's by more than this (0.20 = 20 %, the default).")
	b.add(&stringValue{recorder: b.rec("degradation-metric-tag"), p: &s.DegradationMetric}, spec{
		name: "degradation-metric-tag", meta: "<metric>", def: "request_latency",
		usage: "concurrency-ramp: the metric whose degradation marks the knee.",
	})
	b.add(&stringValue{recorder: b.rec("degradation-stat"), p: &s.DegradationStat}, spec{
		name: "degradation-stat", meta: "<stat>", def: "p99", choices: config.SearchStats(),
		usage: "concurrency-ramp: the statistic of --degradation-metric-tag.",
	})
	addInt := func(p **int, name, meta, usage string) {
		b.add(&intPtrValue{recorder: b.rec(name), p: p}, spec{name: name, meta: meta, usage: usage})
	}
	addInt(&s.ISLMin, "isl-min", "<tokens>", "prefill-ttft-curve: the smallest input length (default 256).")
	addInt(&s.ISLMax, "isl-max", "<tokens>", "prefill-ttft-curve: the largest input length (default 32768).")
	addInt(&s.ISLSteps, "isl-steps", "<n>", "prefill-ttft-curve: log-spaced input lengths (default 8, at least 2).")
	addInt(&s.ConcurrencyMin, "concurrency-min", "<n>", "Lowest concurrency of the recipes' range (default 1).")
	addInt(&s.ConcurrencyMax, "concurrency-max", "<n>", "Highest concurrency of the recipes' range (default 1000; 200 for decode-itl-curve).")
	addInt(&s.ConcurrencySteps, "concurrency-steps", "<n>", "Log-spaced concurrencies of concurrency-ramp (default 8) and decode-itl-curve (default 6).")
	addInt(&s.OSLMin, "osl-min", "<tokens>", "decode-itl-curve: the smallest output length (default 64).")
	addInt(&s.OSLMax, "osl-max", "<tokens>", "decode-itl-curve: the largest output length (default 1024).")
	addInt(&s.OSLSteps, "osl-steps", "<n>", "decode-itl-curve: log-spaced output lengths (default 4).")
}

// searchSpaceValue appends --search-space dimensions.
type searchSpaceValue struct {
	recorder
	p *[]config.SearchDim
}

func (v *searchSpaceValue) Set(s string) error {
	d, err := search.ParseDim(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = append(*v.p, config.SearchDim{Path: d.Path, Lo: d.Lo, Hi: d.Hi, Int: d.Int, Log: d.Log})
	return nil
}

func (v *searchSpaceValue) String() string {
	parts := make([]string, len(*v.p))
	for i, d := range *v.p {
		parts[i] = search.Dim{Path: d.Path, Lo: d.Lo, Hi: d.Hi, Int: d.Int}.String()
	}
	return strings.Join(parts, " ")
}
func (v *searchSpaceValue) Type() string { return "path:lo,hi[:kind]" }

// repeatedValue appends each value whole (commas included), for the
// repeatable flags whose values contain commas (--search-sla-tier,
// --variant).
type repeatedValue struct {
	recorder
	p *[]string
}

func (v *repeatedValue) Set(s string) error { *v.p = append(*v.p, s); return nil }
func (v *repeatedValue) String() string     { return strings.Join(*v.p, " ") }
func (v *repeatedValue) Type() string       { return "list" }
