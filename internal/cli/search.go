package cli

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// shorthands are the SLA shorthand flags of cfg.
func shorthands(s *config.Search) sla.Shorthands {
	return sla.Shorthands{TTFTms: s.TTFTSLAms, ITLms: s.ITLSLAms, TPOTms: s.TPOTSLAms, E2Ems: s.E2ESLAms, ErrorRate: s.ErrorRateSLA}
}

// fieldErr names the flag of a problem.
func fieldErr(flag string, err error) error {
	return &config.FieldError{Flag: flag, Problem: err.Error()}
}

// searchPlan builds the search of a validated command line: a recipe's,
// or one over --search-space. The SLA filters are the recipe's, then
// --search-sla's, then (without a recipe) the shorthands'. cfg may be
// changed: a recipe's per-request SLOs become --goodput. It returns nil
// without a search, and every problem found.
func (p *profileCommand) searchPlan(cfg *config.Config) (*search.Plan, []error) {
	s := &cfg.Search
	extra, tiers, errs := parseSearchSLAs(s)
	if !cfg.Searches() {
		// --search-sla also filters a plain sweep's best configurations
		// (the experiment reads it); tiers need a search.
		if len(s.SLATiers) > 0 {
			errs = append(errs, fieldErr("--search-sla-tier", errors.New("needs a search (--search-space or --search-recipe)")))
		}
		return nil, errs
	}
	errs = append(errs, p.searchSweepConflicts(s)...)
	var plan *search.Plan
	var planErrs []error
	if s.Recipe != "" {
		plan, planErrs = p.recipePlan(s)
	} else {
		plan, planErrs = spacePlan(s)
	}
	errs = append(errs, planErrs...)
	if plan == nil {
		return nil, errs
	}
	plan.Filters = append(plan.Filters, extra...)
	plan.Tiers = tiers
	applySearchStopping(plan, s)
	errs = append(errs, searchPlanProblems(plan, cfg)...)
	if len(plan.SLOs) > 0 {
		if cfg.Input.Goodput == nil {
			cfg.Input.Goodput = map[string]float64{}
		}
		for k, v := range plan.SLOs {
			cfg.Input.Goodput[k] = v
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return plan, nil
}

// parseSearchSLAs reads --search-sla into filters and --search-sla-tier
// into tiers, validating the tiers together when each parsed.
func parseSearchSLAs(s *config.Search) ([]sla.Filter, []sla.Tier, []error) {
	var errs []error
	var extra []sla.Filter
	for _, v := range s.SLA {
		f, err := sla.Parse(v)
		if err != nil {
			errs = append(errs, fieldErr("--search-sla", err))
			continue
		}
		extra = append(extra, f)
	}
	var tiers []sla.Tier
	for i, v := range s.SLATiers {
		t, err := sla.ParseTier(v, i)
		if err != nil {
			errs = append(errs, fieldErr("--search-sla-tier", err))
			continue
		}
		tiers = append(tiers, t)
	}
	if len(s.SLATiers) > 0 && len(errs) == 0 {
		if err := sla.ValidateTiers(tiers); err != nil {
			errs = append(errs, fieldErr("--search-sla-tier", err))
		}
	}
	return extra, tiers, errs
}

// searchSweepConflicts reports the sweeps a search cannot be combined with:
// a flag's list of values (except pareto-sweep's --concurrency list) and
// a config file's list sweep.
func (p *profileCommand) searchSweepConflicts(s *config.Search) []error {
	var errs []error
	if len(p.valueProblems.sweeps) > 0 && !(s.Recipe == "pareto-sweep" && p.onlyConcurrencyList()) {
		errs = append(errs, fieldErr(p.valueProblems.sweeps[0].flag, errors.New("a list of values (a sweep) cannot be combined with --search-space or --search-recipe: the search chooses the values")))
	}
	if p.cf.file != nil && p.cf.file.SweepType() != "" && p.cf.file.SweepType() != configfile.SweepAdaptive {
		errs = append(errs, fieldErr("--config", fmt.Errorf("the config file's %s sweep cannot be combined with --search-space or --search-recipe", p.cf.file.SweepType())))
	}
	return errs
}

// recipePlan expands --search-recipe; the flags that define a search of
// one's own cannot be combined with it.
func (p *profileCommand) recipePlan(s *config.Search) (*search.Plan, []error) {
	var errs []error
	for _, f := range []struct {
		flag string
		set  bool
	}{{"--search-metric", s.Metric != ""}, {"--search-direction", s.Direction != ""}, {"--search-max-iterations", s.MaxIterations != nil}, {"--search-planner", s.Planner != ""}} {
		if f.set {
			errs = append(errs, fieldErr(f.flag, fmt.Errorf("cannot be combined with --search-recipe %s, which defines its own search", s.Recipe)))
		}
	}
	in := search.RecipeInput{
		Name: s.Recipe, SLA: shorthands(s), Style: s.Style,
		ConcurrencyMin: s.ConcurrencyMin, ConcurrencyMax: s.ConcurrencyMax, ConcurrencySteps: s.ConcurrencySteps,
		ISLMin: s.ISLMin, ISLMax: s.ISLMax, ISLSteps: s.ISLSteps, OSLMin: s.OSLMin, OSLMax: s.OSLMax, OSLSteps: s.OSLSteps,
		DegradationThreshold: s.DegradationThreshold, DegradationMetric: s.DegradationMetric, DegradationStat: s.DegradationStat,
		ISLOSLPairs: s.ISLOSLPairs, SLOAttainment: s.SLOAttainment, Concurrencies: p.concurrencyList(),
	}
	plan, err := search.ExpandRecipe(in)
	if err != nil {
		errs = append(errs, fieldErr("--search-recipe", err))
	}
	return plan, errs
}

// spacePlan builds the search over --search-space with the shorthands'
// filters, the Bayesian planner and avg by default, and at most
// max_iterations-1 initial points.
func spacePlan(s *config.Search) (*search.Plan, []error) {
	var errs []error
	filters, err := shorthands(s).Filters()
	if err != nil {
		errs = append(errs, err)
	}
	plan := &search.Plan{
		Recipe:    s.RecipeName,
		Planner:   cmp.Or(s.Planner, search.PlannerBayesian),
		Objective: search.Objective{Metric: s.Metric, Stat: cmp.Or(s.Stat, "avg"), Direction: search.Direction(s.Direction)},
		Filters:   filters,
	}
	if s.MaxIterations != nil {
		plan.MaxIter = *s.MaxIterations
	}
	plan.InitPoints = 5
	if s.InitialPoints != nil {
		plan.InitPoints = *s.InitialPoints
	}
	plan.InitPoints = min(plan.InitPoints, max(plan.MaxIter-1, 1))
	for _, d := range s.Space {
		plan.Space = append(plan.Space, search.Dim{Path: d.Path, Lo: d.Lo, Hi: d.Hi, Int: d.Int, Log: d.Log})
	}
	if plan.Planner == search.PlannerGrid {
		errs = append(errs, fieldErr("--search-planner", errors.New("grid is a recipe style; sweep with a list of values (--concurrency 1,2,4) instead")))
	}
	if _, err := plan.NewPlanner(); err != nil && plan.Planner != search.PlannerGrid {
		errs = append(errs, fieldErr("--search-planner", err))
	}
	return plan, errs
}

// applySearchStopping sets the stopping rule, stability window, pooling
// and seed: a space search starts from the defaults (a recipe from its
// own), and each flag given overrides.
func applySearchStopping(plan *search.Plan, s *config.Search) {
	if s.Recipe == "" {
		plan.Stopping, plan.Stability = search.DefaultStopping, search.DefaultStability
	}
	if s.ImprovementPatience != nil {
		plan.Stopping.Patience = *s.ImprovementPatience
	}
	if s.PlateauWindow != nil {
		plan.Stopping.Window = *s.PlateauWindow
	}
	if s.PlateauThreshold != nil {
		plan.Stopping.Threshold = *s.PlateauThreshold
	}
	plan.Pooled = s.PercentilePooling == "pooled"
	if s.MonotonicStability != nil {
		plan.Stability = *s.MonotonicStability
	}
	if s.RandomSeed != nil {
		seed := uint64(*s.RandomSeed)
		plan.Seed = &seed
	}
}

// searchPlanProblems reports a plan the run cannot carry out: streaming
// metrics without --streaming, or an SLA-edge planner without an SLA.
func searchPlanProblems(plan *search.Plan, cfg *config.Config) []error {
	var errs []error
	if plan.Streaming && !cfg.Endpoint.Streaming {
		errs = append(errs, fieldErr("--streaming", fmt.Errorf("the search's metrics (TTFT, ITL, output tokens/s per user) exist only for streaming runs: add --streaming")))
	}
	if plan.Planner == search.PlannerMonotonic || plan.Planner == search.PlannerSmoothIsotonic {
		if len(plan.Filters) == 0 && len(plan.Tiers) == 0 {
			errs = append(errs, fieldErr("--search-sla", fmt.Errorf("the %s planner finds where the SLA stops holding: give --search-sla (or a shorthand such as --ttft-sla-ms)", plan.Planner)))
		}
	}
	return errs
}

// onlyConcurrencyList reports whether the only sweep list is --concurrency
// (which pareto-sweep consumes).
func (p *profileCommand) onlyConcurrencyList() bool {
	ls := p.valueProblems.sweeps
	return len(ls) == 1 && ls[0].flag == "--concurrency"
}

// concurrencyList is the --concurrency list, nil without one.
func (p *profileCommand) concurrencyList() []int {
	for _, l := range p.valueProblems.sweeps {
		if l.flag != "--concurrency" {
			continue
		}
		var out []int
		for _, v := range l.values {
			if n, err := strconv.Atoi(v); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

// parseVariant reads one --variant, "[name:] key=value, ...", as AIPerf:
// a name before ':' when that part has no '='; keys are flag names
// (kebab- or snake-case), each given once.
func parseVariant(s string) (name string, keys, values []string, err error) {
	raw := strings.TrimSpace(s)
	if raw == "" {
		return "", nil, nil, errors.New("the variant is empty")
	}
	body := raw
	if head, tail, ok := strings.Cut(raw, ":"); ok && !strings.Contains(head, "=") {
		if name = strings.TrimSpace(head); name == "" {
			return "", nil, nil, fmt.Errorf("%q: empty name before ':'", s)
		}
		body = strings.TrimSpace(tail)
	}
	seen := map[string]bool{}
	for _, chunk := range strings.Split(body, ",") {
		chunk = strings.TrimSpace(chunk)
		if chunk == "" {
			continue
		}
		k, v, ok := strings.Cut(chunk, "=")
		k = strings.ReplaceAll(strings.TrimSpace(k), "_", "-")
		if !ok || k == "" {
			return "", nil, nil, fmt.Errorf("%q: %q is not key=value", s, chunk)
		}
		if seen[k] {
			return "", nil, nil, fmt.Errorf("%q: %s is given twice", s, k)
		}
		seen[k] = true
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		keys, values = append(keys, k), append(values, v)
	}
	if len(keys) == 0 {
		return "", nil, nil, fmt.Errorf("%q: no key=value pairs", s)
	}
	return name, keys, values, nil
}

// variantVariations turns the --variant scenarios into variations: base
// with each scenario's flags set again through the profile flags (so they
// parse and validate as on the command line). Scenarios are named by
// their name, else v<index>, as AIPerf.
func (p *profileCommand) variantVariations(base config.Config) ([]config.Variation, []error) {
	vs := base.Search.Variants
	if len(vs) == 0 {
		return nil, nil
	}
	var errs []error
	if len(p.valueProblems.sweeps) > 0 {
		errs = append(errs, fieldErr("--variant", fmt.Errorf("cannot be combined with a list of values on %s", p.valueProblems.sweeps[0].flag)))
	}
	if p.cf.file != nil && p.cf.file.SweepType() != "" {
		errs = append(errs, fieldErr("--variant", errors.New("cannot be combined with the config file's sweep")))
	}
	var out []config.Variation
	for i, raw := range vs {
		name, keys, values, err := parseVariant(raw)
		if err != nil {
			errs = append(errs, fieldErr("--variant", err))
			continue
		}
		if name == "" {
			name = fmt.Sprintf("v%d", i)
		}
		cfg := base
		cfg.Search.Variants = nil
		var probs problemList
		fs := pflag.NewFlagSet("variant", pflag.ContinueOnError)
		registerProfileFlags(fs, &cfg, &probs)
		for j, k := range keys {
			if fs.Lookup(k) == nil && fs.Lookup(normalizedName(fs, k)) == nil {
				probs.add("--variant", fmt.Errorf("%q: unknown key %q (use a profile flag's name without --)", raw, k))
				continue
			}
			if err := fs.Set(k, values[j]); err != nil {
				probs.add("--"+k, err)
			}
		}
		if len(probs.sweeps) > 0 {
			probs.add("--variant", fmt.Errorf("%q: a variant takes one value per key, not a list", raw))
		}
		if err := errors.Join(append(probs.errs, cfg.Validate())...); err != nil {
			errs = append(errs, fmt.Errorf("variant %s: %w", name, err))
			continue
		}
		out = append(out, config.Variation{Index: i, Label: name, Config: cfg})
	}
	return out, errs
}

// normalizedName applies fs's normaliser (aliases, snake case) to name.
func normalizedName(fs *pflag.FlagSet, name string) string {
	if n := fs.GetNormalizeFunc(); n != nil {
		return string(n(fs, name))
	}
	return name
}
