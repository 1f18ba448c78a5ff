package search

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/sla"
)

// Parameter paths the recipes search and sweep, AIPerf's.
const (
	ConcurrencyPath = "phases.profiling.concurrency"
	ISLPath         = "datasets.main.prompts.isl"
	OSLPath         = "datasets.main.prompts.osl"
)

// Planner names (--search-planner / --search-style).
const (
	PlannerBayesian       = "bayesian"
	PlannerOptuna         = "optuna"
	PlannerMonotonic      = "monotonic_sla"
	PlannerSmoothIsotonic = "smooth_isotonic"
	PlannerRandom         = "random"
	PlannerGrid           = "grid"
)

// Planners lists the --search-planner choices.
func Planners() []string {
	return []string{PlannerBayesian, PlannerOptuna, PlannerMonotonic, PlannerSmoothIsotonic, PlannerRandom, PlannerGrid}
}

// Styles lists the --search-style choices of max-concurrency-under-sla.
func Styles() []string { return []string{"smooth_isotonic", "monotonic", "bo", "optuna", "grid"} }

// Objective is what a search optimises: stat of metric in a direction.
type Objective struct {
	Metric    string    `json:"metric"`
	Stat      string    `json:"stat"`
	Direction Direction `json:"direction"`
}

// PostProcess names a handler that reads the finished sweep and writes
// one JSON artifact under sweep_aggregate/ (AIPerf's recipe post-process).
type PostProcess struct {
	Handler    string         `json:"handler"`
	Params     map[string]any `json:"params"`
	OutputFile string         `json:"output_filename"`
}

// Plan is what a search runs: either an adaptive search (Planner, Space,
// Objective, budget) or a fixed set of points (Points, over Space), with
// the SLA filters that decide feasibility and an optional post-process.
type Plan struct {
	Recipe     string    `json:"recipe,omitempty"`
	Planner    string    `json:"planner"`
	Space      []Dim     `json:"search_space"`
	Objective  Objective `json:"objective"`
	MaxIter    int       `json:"max_iterations"`
	InitPoints int       `json:"n_initial_points"`
	Seed       *uint64   `json:"random_seed,omitempty"`
	// Points are the explicit points of a grid plan, in run order.
	Points  []Point      `json:"-"`
	Filters []sla.Filter `json:"sla_filters"`
	// Tiers are --search-sla-tier groups: feasible per tier.
	Tiers []sla.Tier `json:"sla_tiers,omitempty"`
	// SLOs are per-request goodput thresholds the recipe sets (ms), as
	// --goodput metric:value pairs (max-goodput-under-slo).
	SLOs map[string]float64 `json:"slos,omitempty"`
	// Stopping is the early stop of the bayesian and random planners
	// (AIPerf's improvement_patience, plateau_window, plateau_threshold).
	Stopping Stopping `json:"-"`
	// Pooled computes a percentile objective over the per-request values
	// of all the point's runs instead of the mean of the runs'
	// percentiles (--search-percentile-pooling pooled).
	Pooled bool `json:"-"`
	// Stability is the monotonic planner's window: agreeing verdicts a
	// point needs (AIPerf's monotonic_stability_trials, default 2).
	Stability int `json:"-"`
	// Streaming says the recipe's metrics need a streaming endpoint.
	Streaming   bool         `json:"-"`
	PostProcess *PostProcess `json:"post_process,omitempty"`
}

// NewPlanner builds the plan's planner.
func (p *Plan) NewPlanner() (Planner, error) {
	seed := uint64(0)
	if p.Seed != nil {
		seed = *p.Seed
	}
	switch p.Planner {
	case PlannerGrid:
		return NewPoints(p.Space, p.Points)
	case PlannerMonotonic, PlannerSmoothIsotonic:
		if len(p.Space) != 1 {
			return nil, fmt.Errorf("the %s planner searches exactly one dimension, got %d", p.Planner, len(p.Space))
		}
		m, err := NewMonotonic(p.Space[0], p.MaxIter)
		if err == nil && p.Stability > 1 {
			m.Stability = p.Stability
		}
		return m, err
	case PlannerRandom:
		r := NewRandom(p.Space, p.MaxIter, p.Objective.Direction, seed)
		r.SetStopping(p.Stopping)
		return r, nil
	case PlannerBayesian, PlannerOptuna:
		t := NewTPE(p.Space, p.MaxIter, p.InitPoints, p.Objective.Direction, seed)
		t.SetStopping(p.Stopping)
		return t, nil
	}
	return nil, fmt.Errorf("unknown search planner %q (choose from %s)", p.Planner, strings.Join(Planners(), ", "))
}

// NewPoints is a grid planner over explicit points.
func NewPoints(space []Dim, points []Point) (*GridPlanner, error) {
	if len(points) == 0 {
		return nil, errors.New("a grid plan needs points")
	}
	for _, p := range points {
		if len(p) != len(space) {
			return nil, fmt.Errorf("point %v does not match the %d dimensions", p, len(space))
		}
	}
	return &GridPlanner{base: base{space: space}, points: points}, nil
}

// RecipeInput is everything a recipe reads from the command line.
type RecipeInput struct {
	Name string
	SLA  sla.Shorthands
	// Style is --search-style ("" = the recipe's default).
	Style string
	// Concurrency, ISL and OSL ramps (--concurrency-min/-max/-steps, ...);
	// nil = the recipe's default.
	ConcurrencyMin, ConcurrencyMax, ConcurrencySteps *int
	ISLMin, ISLMax, ISLSteps                         *int
	OSLMin, OSLMax, OSLSteps                         *int
	// Concurrencies is a --concurrency list (pareto-sweep).
	Concurrencies []int
	// Degradation knee settings (concurrency-ramp).
	DegradationThreshold *float64
	DegradationMetric    string
	DegradationStat      string
	// ISLOSLPairs is --isl-osl-pairs (pareto-sweep).
	ISLOSLPairs string
	// SLOAttainment is --slo-attainment-fraction (max-goodput-under-slo).
	SLOAttainment *float64
}

// RecipeInfo describes a recipe for help and `aiperf plugins`.
type RecipeInfo struct{ Name, Description string }

// Recipes lists AIPerf's search recipes, in its order.
func Recipes() []RecipeInfo {
	return []RecipeInfo{
		{"max-throughput-ttft-sla", "Maximize output_token_throughput at the highest concurrency where p95 TTFT stays under --ttft-sla-ms. Bayesian-optimized over concurrency."},
		{"max-throughput-itl-sla", "Maximize output_token_throughput at the highest concurrency where p95 ITL stays under --itl-sla-ms (alias --tpot-sla-ms). Bayesian-optimized over concurrency."},
		{"concurrency-ramp", "Ramp concurrency log-spaced over [1, 1000] and report the first concurrency where p99 request_latency degrades past baseline * (1 + --degradation-threshold)."},
		{"prefill-ttft-curve", "Sweep ISL log-spaced at concurrency 1; fit TTFT vs ISL (linear, quadratic when r^2 < 0.85)."},
		{"decode-itl-curve", "Sweep concurrency x OSL; report the ITL surface."},
		{"max-concurrency-under-sla", "Find the highest concurrency where all SLA filters pass (--ttft-sla-ms, --tpot-sla-ms/--itl-sla-ms, --e2e-sla-ms, --error-rate-sla); --search-style smooth_isotonic|monotonic|bo|optuna|grid."},
		{"pareto-sweep", "Sweep paired ISL/OSL shapes (--isl-osl-pairs) across --concurrency; report the TTFT p95 vs output throughput Pareto frontier."},
		{"max-goodput-under-slo", "Maximize goodput at the highest concurrency where at least --slo-attainment-fraction of requests meet the TTFT, TPOT and E2E SLOs (DistServe's goodput)."},
	}
}

// RecipeNames lists the recipe names.
func RecipeNames() []string {
	var out []string
	for _, r := range Recipes() {
		out = append(out, r.Name)
	}
	return out
}

func or(p *int, def int) int {
	if p != nil {
		return *p
	}
	return def
}

// bounds resolves the concurrency range of a recipe.
func (in *RecipeInput) bounds(lo, hi int) (int, int, error) {
	lo, hi = or(in.ConcurrencyMin, lo), or(in.ConcurrencyMax, hi)
	if lo >= hi {
		return 0, 0, fmt.Errorf("recipe %q: --concurrency-min (%d) must be < --concurrency-max (%d)", in.Name, lo, hi)
	}
	return lo, hi, nil
}

// maxThroughput is the objective of the throughput recipes.
var maxThroughput = Objective{Metric: "output_token_throughput", Stat: "avg", Direction: Maximize}

// concurrencyDim is the recipes' search dimension.
func concurrencyDim(lo, hi int, log bool) Dim {
	return Dim{Path: ConcurrencyPath, Lo: float64(lo), Hi: float64(hi), Int: true, Log: log}
}

func points1(vals []int) []Point {
	out := make([]Point, len(vals))
	for i, v := range vals {
		out[i] = Point{float64(v)}
	}
	return out
}

// ExpandRecipe compiles a named recipe into a plan, as AIPerf's recipes
// expand into an adaptive search or a grid sweep. Every problem is
// reported with the flag to fix.
func ExpandRecipe(in RecipeInput) (*Plan, error) {
	if err := in.SLA.Validate(); err != nil {
		return nil, err
	}
	expand, ok := recipeExpanders[in.Name]
	if !ok {
		return nil, fmt.Errorf("unknown search recipe %q (choose from %s)", in.Name, strings.Join(RecipeNames(), ", "))
	}
	return expand(in)
}

// recipeExpanders maps each recipe of Recipes to the function that
// compiles it; in.SLA is already validated when one runs.
var recipeExpanders = map[string]func(RecipeInput) (*Plan, error){
	"max-throughput-ttft-sla":   expandMaxThroughput,
	"max-throughput-itl-sla":    expandMaxThroughput,
	"concurrency-ramp":          expandConcurrencyRamp,
	"prefill-ttft-curve":        expandPrefillCurve,
	"decode-itl-curve":          expandDecodeSurface,
	"max-concurrency-under-sla": expandMaxConcurrency,
	"pareto-sweep":              expandParetoSweep,
	"max-goodput-under-slo":     expandMaxGoodput,
}

// expandMaxThroughput compiles the two throughput-under-latency-SLA
// recipes, which differ only in the latency they bound.
func expandMaxThroughput(in RecipeInput) (*Plan, error) {
	var f sla.Filter
	if in.Name == "max-throughput-ttft-sla" {
		if in.SLA.TTFTms == nil {
			return nil, fmt.Errorf("recipe %q requires --ttft-sla-ms (the TTFT SLA in ms)", in.Name)
		}
		f = sla.Filter{Metric: "time_to_first_token", Stat: "p95", Op: sla.LT, Threshold: *in.SLA.TTFTms}
	} else {
		v, ok := in.SLA.InterToken()
		if !ok {
			return nil, fmt.Errorf("recipe %q requires --itl-sla-ms (or its alias --tpot-sla-ms)", in.Name)
		}
		f = sla.Filter{Metric: "inter_token_latency", Stat: "p95", Op: sla.LT, Threshold: v}
	}
	lo, hi, err := in.bounds(1, 1000)
	if err != nil {
		return nil, err
	}
	return &Plan{Recipe: in.Name, Planner: PlannerBayesian, Space: []Dim{concurrencyDim(lo, hi, true)},
		Objective: maxThroughput, MaxIter: 30, InitPoints: 5, Filters: []sla.Filter{f}, Streaming: true, Stopping: DefaultStopping}, nil
}

// expandConcurrencyRamp compiles concurrency-ramp: a log-spaced grid with
// knee detection on the degradation metric.
func expandConcurrencyRamp(in RecipeInput) (*Plan, error) {
	lo, hi, err := in.bounds(1, 1000)
	if err != nil {
		return nil, err
	}
	vals, err := LogSteps(float64(lo), float64(hi), or(in.ConcurrencySteps, 8))
	if err != nil {
		return nil, fmt.Errorf("recipe %q: --concurrency-steps: %w", in.Name, err)
	}
	th := 0.20
	if in.DegradationThreshold != nil {
		th = *in.DegradationThreshold
	}
	metric, stat := cmp.Or(in.DegradationMetric, "request_latency"), cmp.Or(in.DegradationStat, "p99")
	return &Plan{Recipe: in.Name, Planner: PlannerGrid, Space: []Dim{concurrencyDim(lo, hi, false)}, Points: points1(vals),
		Objective: maxThroughput, MaxIter: len(vals), Streaming: sla.StreamingOnly(metric),
		PostProcess: &PostProcess{Handler: "degradation_knee_detect", OutputFile: "degradation_knee.json",
			Params: map[string]any{"threshold_pct": th, "metric_tag": metric, "stat": stat, "swept_param": ConcurrencyPath}}}, nil
}

// expandPrefillCurve compiles prefill-ttft-curve: an ISL sweep at
// concurrency 1 fitted as TTFT against ISL.
func expandPrefillCurve(in RecipeInput) (*Plan, error) {
	vals, err := LogSteps(float64(or(in.ISLMin, 256)), float64(or(in.ISLMax, 32768)), or(in.ISLSteps, 8))
	if err != nil {
		return nil, fmt.Errorf("recipe %q: --isl-min/--isl-max/--isl-steps: %w", in.Name, err)
	}
	pts := make([]Point, len(vals))
	for i, v := range vals {
		pts[i] = Point{float64(v), 1}
	}
	return &Plan{Recipe: in.Name, Planner: PlannerGrid,
		Space:  []Dim{{Path: ISLPath, Lo: float64(vals[0]), Hi: float64(vals[len(vals)-1]), Int: true}, {Path: ConcurrencyPath, Lo: 1, Hi: 1, Int: true}},
		Points: pts, Objective: Objective{Metric: "time_to_first_token", Stat: "avg", Direction: Minimize}, MaxIter: len(pts), Streaming: true,
		PostProcess: &PostProcess{Handler: "ttft_curve_fit", OutputFile: "prefill_curve.json",
			Params: map[string]any{"metric_tag": "time_to_first_token", "stat": "avg", "swept_param": ISLPath}}}, nil
}

// expandDecodeSurface compiles decode-itl-curve: the concurrency x OSL
// grid whose ITL makes a surface.
func expandDecodeSurface(in RecipeInput) (*Plan, error) {
	lo, hi, err := in.bounds(1, 200)
	if err != nil {
		return nil, err
	}
	cs, err := LogSteps(float64(lo), float64(hi), or(in.ConcurrencySteps, 6))
	if err != nil {
		return nil, fmt.Errorf("recipe %q: --concurrency-steps: %w", in.Name, err)
	}
	os, err := LogSteps(float64(or(in.OSLMin, 64)), float64(or(in.OSLMax, 1024)), or(in.OSLSteps, 4))
	if err != nil {
		return nil, fmt.Errorf("recipe %q: --osl-min/--osl-max/--osl-steps: %w", in.Name, err)
	}
	var pts []Point
	for _, c := range cs {
		for _, o := range os {
			pts = append(pts, Point{float64(c), float64(o)})
		}
	}
	return &Plan{Recipe: in.Name, Planner: PlannerGrid,
		Space:  []Dim{concurrencyDim(lo, hi, false), {Path: OSLPath, Lo: float64(os[0]), Hi: float64(os[len(os)-1]), Int: true}},
		Points: pts, Objective: Objective{Metric: "inter_token_latency", Stat: "avg", Direction: Minimize}, MaxIter: len(pts), Streaming: true,
		PostProcess: &PostProcess{Handler: "itl_surface_fit", OutputFile: "decode_itl_surface.json",
			Params: map[string]any{"metric_tag": "inter_token_latency", "stat": "avg", "concurrency_param": ConcurrencyPath, "osl_param": OSLPath}}}, nil
}

// expandMaxConcurrency compiles max-concurrency-under-sla; --search-style
// picks the planner.
func expandMaxConcurrency(in RecipeInput) (*Plan, error) {
	filters, err := in.SLA.Filters()
	if err != nil {
		return nil, err
	}
	if len(filters) == 0 {
		return nil, fmt.Errorf("recipe %q requires at least one of --ttft-sla-ms, --tpot-sla-ms/--itl-sla-ms, --e2e-sla-ms, --error-rate-sla", in.Name)
	}
	streaming := slices.ContainsFunc(filters, func(f sla.Filter) bool { return sla.StreamingOnly(f.Metric) })
	lo, hi, err := in.bounds(1, 1000)
	if err != nil {
		return nil, err
	}
	p := &Plan{Recipe: in.Name, Objective: maxThroughput, Filters: filters, Streaming: streaming, Stopping: DefaultStopping, Stability: DefaultStability}
	if err := applySearchStyle(p, in, lo, hi); err != nil {
		return nil, err
	}
	return p, nil
}

// applySearchStyle sets the planner, space and budget of a
// max-concurrency-under-sla plan from --search-style; the grid style also
// gets the breach-knee post-processing of p.Filters.
func applySearchStyle(p *Plan, in RecipeInput, lo, hi int) error {
	switch style := in.Style; style {
	case "", "smooth_isotonic", "monotonic":
		p.Planner, p.Space, p.MaxIter, p.InitPoints = PlannerMonotonic, []Dim{concurrencyDim(lo, hi, false)}, 20, 1
		if style != "monotonic" {
			p.Planner, p.MaxIter = PlannerSmoothIsotonic, 30
		}
	case "bo", "optuna":
		p.Planner, p.Space, p.MaxIter, p.InitPoints = PlannerBayesian, []Dim{concurrencyDim(lo, hi, true)}, 30, 5
		if style == "optuna" {
			p.Planner = PlannerOptuna
		}
	case "grid":
		vals, err := LogSteps(float64(lo), float64(hi), 8)
		if err != nil {
			return err
		}
		p.Planner, p.Space, p.Points, p.MaxIter = PlannerGrid, []Dim{concurrencyDim(lo, hi, false)}, points1(vals), len(vals)
		dumps := make([]any, len(p.Filters))
		for i, f := range p.Filters {
			dumps[i] = map[string]any{"metric_tag": f.Metric, "stat": f.Stat, "op": string(f.Op), "threshold": f.Threshold}
		}
		p.PostProcess = &PostProcess{Handler: "sla_breach_knee", OutputFile: "sla_breach.json",
			Params: map[string]any{"sla_filters": dumps, "swept_param": ConcurrencyPath}}
	default:
		return fmt.Errorf("recipe %q: unknown --search-style %q (choose from %s)", in.Name, style, strings.Join(Styles(), ", "))
	}
	return nil
}

// expandParetoSweep compiles pareto-sweep: every ISL/OSL pair at every
// concurrency.
func expandParetoSweep(in RecipeInput) (*Plan, error) {
	if in.ISLOSLPairs == "" {
		return nil, fmt.Errorf("recipe %q requires --isl-osl-pairs (e.g. 128/128,512/256)", in.Name)
	}
	pairs, err := ParseISLOSLPairs(in.ISLOSLPairs)
	if err != nil {
		return nil, err
	}
	cs := in.Concurrencies
	if len(cs) == 0 {
		cs = []int{1, 4, 16, 64, 256}
	}
	if len(pairs)*len(cs) < 2 {
		return nil, fmt.Errorf("recipe %q: a Pareto sweep of one point says nothing; give at least two pairs or two --concurrency values", in.Name)
	}
	var pts []Point
	for _, pr := range pairs {
		for _, c := range cs {
			pts = append(pts, Point{float64(pr[0]), float64(pr[1]), float64(c)})
		}
	}
	return &Plan{Recipe: in.Name, Planner: PlannerGrid,
		Space:  []Dim{{Path: ISLPath, Lo: 1, Hi: 1e9, Int: true}, {Path: OSLPath, Lo: 1, Hi: 1e9, Int: true}, {Path: ConcurrencyPath, Lo: 1, Hi: 1e9, Int: true}},
		Points: pts, Objective: maxThroughput, MaxIter: len(pts), Streaming: true,
		PostProcess: &PostProcess{Handler: "pareto_sweep_export", OutputFile: "pareto_sweep.json",
			Params: map[string]any{"x_metric": "time_to_first_token", "x_stat": "p95", "y_metric": "output_token_throughput", "y_stat": "avg"}}}, nil
}

// expandMaxGoodput compiles max-goodput-under-slo, which needs all three
// SLOs to define a good request.
func expandMaxGoodput(in RecipeInput) (*Plan, error) {
	itl, hasITL := in.SLA.InterToken()
	var missing []string
	if in.SLA.TTFTms == nil {
		missing = append(missing, "--ttft-sla-ms")
	}
	if !hasITL {
		missing = append(missing, "--tpot-sla-ms")
	}
	if in.SLA.E2Ems == nil {
		missing = append(missing, "--e2e-sla-ms")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("recipe %q requires %s: all three define a good request", in.Name, strings.Join(missing, ", "))
	}
	att := 0.95
	if in.SLOAttainment != nil {
		att = *in.SLOAttainment
	}
	if !(att > 0 && att <= 1) {
		return nil, fmt.Errorf("--slo-attainment-fraction must be in (0, 1], got %v", att)
	}
	lo, hi, err := in.bounds(1, 1000)
	if err != nil {
		return nil, err
	}
	return &Plan{Recipe: in.Name, Planner: PlannerBayesian, Space: []Dim{concurrencyDim(lo, hi, true)},
		Objective: Objective{Metric: "goodput", Stat: "avg", Direction: Maximize}, MaxIter: 30, InitPoints: 5, Stopping: DefaultStopping,
		Filters:   []sla.Filter{{Metric: "good_request_fraction", Stat: "avg", Op: sla.GE, Threshold: att}},
		SLOs:      map[string]float64{"time_to_first_token": *in.SLA.TTFTms, "inter_token_latency": itl, "request_latency": *in.SLA.E2Ems},
		Streaming: true}, nil
}

// ParseISLOSLPairs reads --isl-osl-pairs, "isl/osl,isl/osl,...", positive
// integers, whitespace allowed.
func ParseISLOSLPairs(s string) ([][2]int, error) {
	var out [][2]int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		a, b, ok := strings.Cut(part, "/")
		isl, err1 := strconv.Atoi(strings.TrimSpace(a))
		osl, err2 := strconv.Atoi(strings.TrimSpace(b))
		if !ok || err1 != nil || err2 != nil || isl < 1 || osl < 1 {
			return nil, fmt.Errorf("--isl-osl-pairs: %q is not isl/osl with positive integers (e.g. 128/128)", part)
		}
		out = append(out, [2]int{isl, osl})
	}
	if len(out) == 0 {
		return nil, errors.New("--isl-osl-pairs: no pairs given")
	}
	return out, nil
}
