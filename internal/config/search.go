package config

// SearchDim is one dimension of --search-space: a dot path into the
// benchmark and its inclusive bounds.
type SearchDim struct {
	Path string  `json:"path"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	// Int rounds to whole numbers (kind int); Log samples log-uniformly
	// (prior log-uniform, YAML only).
	Int bool `json:"int,omitempty"`
	Log bool `json:"log,omitempty"`
}

// Search holds AIPerf's adaptive-search options (the rest of its
// "Multi-Run" group): a search over --search-space, a named
// --search-recipe, their SLA filters and shorthands, the recipe ramps,
// and --variant scenarios. Nil pointers and empty strings are "not
// given"; the search plan resolves the defaults.
type Search struct {
	Space     []SearchDim `json:"search_space,omitempty"`
	Metric    string      `json:"search_metric,omitempty"`
	Stat      string      `json:"search_stat,omitempty"`
	Direction string      `json:"search_direction,omitempty"`
	// MaxIterations is 2-200; InitialPoints >= 1 and below it.
	MaxIterations *int   `json:"search_max_iterations,omitempty"`
	InitialPoints *int   `json:"search_initial_points,omitempty"`
	RandomSeed    *int64 `json:"search_random_seed,omitempty"`
	Planner       string `json:"search_planner,omitempty"`
	// Optuna knobs AIPerf exposes; this implementation has one Bayesian
	// planner (TPE), so only the values that name it are accepted.
	OptunaSampler     string `json:"optuna_sampler,omitempty"`
	OptunaAcquisition string `json:"optuna_acquisition,omitempty"`
	OptunaTerminator  string `json:"optuna_terminator,omitempty"`
	PercentilePooling string `json:"search_percentile_pooling,omitempty"`
	// BOConstraintMode is deprecated in AIPerf and ignored.
	BOConstraintMode string `json:"bo_constraint_mode,omitempty"`
	// Early stop of the sampling planners and the monotonic planner's
	// stability window (YAML only, as in AIPerf): nil = AIPerf's defaults
	// (patience 10, plateau of 8 within 0.01, 2 agreeing verdicts).
	ImprovementPatience *int     `json:"improvement_patience,omitempty"`
	PlateauWindow       *int     `json:"plateau_window,omitempty"`
	PlateauThreshold    *float64 `json:"plateau_threshold,omitempty"`
	MonotonicStability  *int     `json:"monotonic_stability_trials,omitempty"`

	// SLA are --search-sla filters, "metric:stat:op:threshold";
	// SLATiers are --search-sla-tier groups.
	SLA      []string `json:"search_sla,omitempty"`
	SLATiers []string `json:"search_sla_tier,omitempty"`

	Recipe string `json:"search_recipe,omitempty"`
	Style  string `json:"search_style,omitempty"`
	// RecipeName labels a YAML adaptive_search with the recipe it came
	// from (sweep.recipe_name); it does not expand anything.
	RecipeName string `json:"recipe_name,omitempty"`

	// SLA shorthands of the recipes (milliseconds; the error rate a
	// fraction).
	TTFTSLAms     *float64 `json:"ttft_sla_ms,omitempty"`
	ITLSLAms      *float64 `json:"itl_sla_ms,omitempty"`
	TPOTSLAms     *float64 `json:"tpot_sla_ms,omitempty"`
	E2ESLAms      *float64 `json:"e2e_sla_ms,omitempty"`
	ErrorRateSLA  *float64 `json:"error_rate_sla,omitempty"`
	SLOAttainment *float64 `json:"slo_attainment_fraction,omitempty"`

	DegradationThreshold *float64 `json:"degradation_threshold,omitempty"`
	DegradationMetric    string   `json:"degradation_metric_tag,omitempty"`
	DegradationStat      string   `json:"degradation_stat,omitempty"`

	ISLMin           *int   `json:"isl_min,omitempty"`
	ISLMax           *int   `json:"isl_max,omitempty"`
	ISLSteps         *int   `json:"isl_steps,omitempty"`
	ConcurrencyMin   *int   `json:"concurrency_min,omitempty"`
	ConcurrencyMax   *int   `json:"concurrency_max,omitempty"`
	ConcurrencySteps *int   `json:"concurrency_steps,omitempty"`
	OSLMin           *int   `json:"osl_min,omitempty"`
	OSLMax           *int   `json:"osl_max,omitempty"`
	OSLSteps         *int   `json:"osl_steps,omitempty"`
	ISLOSLPairs      string `json:"isl_osl_pairs,omitempty"`

	// Variants are --variant scenarios, "[name:] key=value, ...".
	Variants []string `json:"sweep_variants,omitempty"`
}

// Searches reports whether the run is a search (a space or a recipe).
func (c *Config) Searches() bool { return len(c.Search.Space) > 0 || c.Search.Recipe != "" }

// SearchStats are the --search-stat choices, AIPerf's.
func SearchStats() []string { return []string{"avg", "p50", "p90", "p95", "p99"} }

// validateSearch checks what can be checked without the search package:
// ranges, choices and AIPerf's combinations. The filters, tiers and
// recipes are checked when the plan is built.
func (c *Config) validateSearch(p *problems) {
	s := &c.Search
	s.validateBudget(p)
	s.validateChoices(p)
	s.validateRanges(p)
	s.validateOptuna(p)
	c.validateSearchCombinations(p)
}

// validateBudget checks the iteration budget and the seed.
func (s *Search) validateBudget(p *problems) {
	if s.MaxIterations != nil && (*s.MaxIterations < 2 || *s.MaxIterations > 200) {
		p.add("--search-max-iterations", "must be between 2 and 200, got %d", *s.MaxIterations)
	}
	if s.InitialPoints != nil {
		if *s.InitialPoints < 1 {
			p.add("--search-initial-points", "must be at least 1, got %d", *s.InitialPoints)
		} else if s.MaxIterations != nil && *s.InitialPoints >= *s.MaxIterations {
			p.add("--search-initial-points", "(%d) must be below --search-max-iterations (%d)", *s.InitialPoints, *s.MaxIterations)
		}
	}
	if s.RandomSeed != nil && *s.RandomSeed < 0 {
		p.add("--search-random-seed", "must be >= 0, got %d", *s.RandomSeed)
	}
}

// validateChoices checks the enumerated flags and the degradation threshold.
func (s *Search) validateChoices(p *problems) {
	if s.Stat != "" && !contains(SearchStats(), s.Stat) {
		p.add("--search-stat", "invalid choice %q (choose from avg, p50, p90, p95, p99)", s.Stat)
	}
	if s.Direction != "" && s.Direction != "maximize" && s.Direction != "minimize" {
		p.add("--search-direction", "invalid choice %q (choose from maximize, minimize)", s.Direction)
	}
	if s.DegradationStat != "" && !contains(SearchStats(), s.DegradationStat) {
		p.add("--degradation-stat", "invalid choice %q (choose from avg, p50, p90, p95, p99)", s.DegradationStat)
	}
	if t := s.DegradationThreshold; t != nil && !(*t > 0 && *t < 1) {
		p.add("--degradation-threshold", "must be between 0 and 1 exclusive (0.20 = 20 %%), got %v", *t)
	}
}

// validateRanges checks the recipes' numeric bounds and the percentile
// pooling, which only a percentile statistic has.
func (s *Search) validateRanges(p *problems) {
	for _, f := range []struct {
		flag string
		v    *int
		min  int
	}{
		{"--isl-min", s.ISLMin, 1}, {"--isl-max", s.ISLMax, 1}, {"--isl-steps", s.ISLSteps, 2},
		{"--concurrency-min", s.ConcurrencyMin, 1}, {"--concurrency-max", s.ConcurrencyMax, 1}, {"--concurrency-steps", s.ConcurrencySteps, 2},
		{"--osl-min", s.OSLMin, 1}, {"--osl-max", s.OSLMax, 1}, {"--osl-steps", s.OSLSteps, 2},
	} {
		if f.v != nil && *f.v < f.min {
			p.add(f.flag, "must be at least %d, got %d", f.min, *f.v)
		}
	}
	if a := s.SLOAttainment; a != nil && !(*a > 0 && *a <= 1) {
		p.add("--slo-attainment-fraction", "must be in (0, 1], got %v", *a)
	}
	if s.PercentilePooling != "" && s.PercentilePooling != "mean" && s.PercentilePooling != "pooled" {
		p.add("--search-percentile-pooling", "invalid choice %q (choose from mean, pooled)", s.PercentilePooling)
	}
	if s.PercentilePooling != "" && (s.Stat == "" || s.Stat == "avg") {
		p.add("--search-percentile-pooling", "applies to a percentile --search-stat (p50, p90, p95, p99), not avg")
	}
}

// validateOptuna checks the Optuna and BO options this implementation
// accepts only in the forms its TPE planner honours.
func (s *Search) validateOptuna(p *problems) {
	if s.OptunaSampler != "" && s.OptunaSampler != "tpe" {
		p.add("--optuna-sampler", "%q is not available: this implementation's Bayesian planner is TPE (use tpe or leave it out)", s.OptunaSampler)
	}
	if s.OptunaAcquisition != "" {
		p.add("--optuna-acquisition", "needs the BoTorch sampler, which this implementation does not have (its Bayesian planner is TPE)")
	}
	if s.OptunaTerminator != "" && s.OptunaTerminator != "none" {
		p.add("--optuna-terminator", "%q is not available (only none): the search stops at --search-max-iterations", s.OptunaTerminator)
	}
	if s.BOConstraintMode != "" && s.BOConstraintMode != "penalty" && s.BOConstraintMode != "eic" {
		p.add("--bo-constraint-mode", "invalid choice %q (choose from penalty, eic; it is deprecated and has no effect)", s.BOConstraintMode)
	}
}

// validateSearchCombinations checks AIPerf's combinations of a search with
// its required flags, with convergence and with variants.
func (c *Config) validateSearchCombinations(p *problems) {
	s := &c.Search
	if len(s.Space) > 0 {
		for _, r := range []struct {
			flag    string
			missing bool
		}{{"--search-metric", s.Metric == ""}, {"--search-direction", s.Direction == ""}, {"--search-max-iterations", s.MaxIterations == nil}} {
			if r.missing {
				p.add(r.flag, "is required with --search-space")
			}
		}
		if s.Recipe != "" {
			p.add("--search-recipe", "cannot be combined with --search-space: a recipe defines its own search")
		}
	}
	if c.Searches() && c.Converges() {
		p.add("--convergence-metric", "cannot be combined with a search (--search-space, --search-recipe): the two stop at different levels and their composition is undefined, as in AIPerf")
	}
	if len(s.Variants) == 1 {
		p.add("--variant", "needs at least two variants (one variant is a plain run: use the flags directly)")
	}
	if len(s.Variants) > 0 && c.Searches() {
		p.add("--variant", "cannot be combined with --search-space or --search-recipe")
	}
}
