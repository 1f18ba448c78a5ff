package config

import "strings"

// Default values of the experiment options, as in AIPerf 0.13.
const (
	DefaultNumProfileRuns  = 1
	MaxNumProfileRuns      = 10
	DefaultConfidenceLevel = 0.95
	// DefaultConsistentSeed is the seed --set-consistent-seed gives a
	// multi-run or sweep experiment that has no --random-seed.
	DefaultConsistentSeed = 42
)

// SweepType is how several magic-list flags combine into variations
// (--sweep-type). The empty value means "not given" (grid).
type SweepType string

// Sweep types.
const (
	SweepGrid SweepType = "grid" // the Cartesian product of the lists
	SweepZip  SweepType = "zip"  // the lists paired element-wise
)

// SweepTypes lists the --sweep-type choices in help order.
func SweepTypes() []SweepType { return []SweepType{SweepGrid, SweepZip} }

// ConvergenceMode is how --convergence-metric decides that repeated runs
// agree (--convergence-mode). The empty value means "not given" (ci_width).
type ConvergenceMode string

// Convergence modes, AIPerf's criteria.
const (
	// ConvergeCIWidth stops when the Student-t confidence interval of the
	// statistic, relative to its mean, is narrower than the threshold
	// (default 0.10).
	ConvergeCIWidth ConvergenceMode = "ci_width"
	// ConvergeCV stops when the coefficient of variation across runs is
	// below the threshold (default 0.05).
	ConvergeCV ConvergenceMode = "cv"
	// ConvergeDistribution stops when a two-sample Kolmogorov-Smirnov test
	// finds the last run's per-request values indistinguishable from the
	// earlier runs' (p-value above the threshold, default 0.05).
	ConvergeDistribution ConvergenceMode = "distribution"
)

// ConvergenceModes lists the --convergence-mode choices in help order.
func ConvergenceModes() []ConvergenceMode {
	return []ConvergenceMode{ConvergeCIWidth, ConvergeCV, ConvergeDistribution}
}

// DefaultThreshold is the mode's threshold when none is given.
func (m ConvergenceMode) DefaultThreshold() float64 {
	if m == ConvergeCIWidth || m == "" {
		return 0.10
	}
	return 0.05
}

// ConvergenceStats lists the --convergence-stat choices, AIPerf's.
func ConvergenceStats() []string { return []string{"avg", "p50", "p90", "p95", "p99", "min", "max"} }

// DefaultConvergenceMinRuns is AIPerf's convergence.min_runs default: the
// criterion is first checked after this many runs.
const DefaultConvergenceMinRuns = 2

// SweepMode is the order in which a sweep's variations and its repeated
// runs execute (--parameter-sweep-mode). The empty value means "not given"
// (repeated).
type SweepMode string

// Sweep modes. Both run the same benchmarks; only their order and the
// artifact layout differ.
const (
	// SweepRepeated runs every variation once per trial: trials outer,
	// variations inner. Runs go to profile_runs/trial_NNNN/<variation>/.
	SweepRepeated SweepMode = "repeated"
	// SweepIndependent runs all trials of a variation before the next:
	// runs go to <variation>/profile_runs/trial_NNNN/.
	SweepIndependent SweepMode = "independent"
)

// SweepModes lists the --parameter-sweep-mode choices in help order.
func SweepModes() []SweepMode { return []SweepMode{SweepIndependent, SweepRepeated} }

// Experiment holds the options of --num-profile-runs,
// --profile-run-cooldown-seconds, --confidence-level,
// --profile-run-disable-warmup-after-first, --set-consistent-seed,
// --sweep-type, --parameter-sweep-cooldown-seconds,
// --parameter-sweep-same-seed, --parameter-sweep-mode and --no-sweep-table
// (AIPerf's "Multi-Run" group): how often each variation of a benchmark
// runs, what separates the runs, and how the results are combined.
//
// The options that only make sense across repeated runs are pointers (nil
// = not given) so that Validate can reject them with a single run, as
// AIPerf does; read them through the Config methods.
type Experiment struct {
	// NumProfileRuns is how many times each variation runs (1..10); more
	// than one adds confidence statistics across the runs.
	NumProfileRuns int `json:"num_profile_runs"`
	// ProfileRunCooldownSeconds is the pause between runs; nil = 0.
	ProfileRunCooldownSeconds *float64 `json:"profile_run_cooldown_seconds,omitempty"`
	// ConfidenceLevel is the level of the confidence intervals, in (0, 1).
	ConfidenceLevel float64 `json:"confidence_level"`
	// DisableWarmupAfterFirst runs the warmup only before the first run;
	// nil = true.
	DisableWarmupAfterFirst *bool `json:"profile_run_disable_warmup_after_first,omitempty"`
	// SetConsistentSeed seeds an experiment without --random-seed with
	// DefaultConsistentSeed; nil = true.
	SetConsistentSeed *bool `json:"set_consistent_seed,omitempty"`
	// SweepType combines several magic lists; "" = grid.
	SweepType SweepType `json:"sweep_type,omitempty"`
	// ParameterSweepCooldownSeconds is the pause between variations.
	ParameterSweepCooldownSeconds float64 `json:"parameter_sweep_cooldown_seconds"`
	// ParameterSweepSameSeed gives every variation the base seed instead
	// of base seed + variation index.
	ParameterSweepSameSeed bool `json:"parameter_sweep_same_seed"`
	// ParameterSweepMode orders trials and variations; "" = repeated.
	ParameterSweepMode SweepMode `json:"parameter_sweep_mode,omitempty"`
	// NoSweepTable suppresses the live sweep table.
	NoSweepTable bool `json:"no_sweep_table,omitempty"`

	// VarySeedPerTrial gives each trial of a variation its own seed
	// (SHA-256 of base seed, variation label and trial, as AIPerf) instead
	// of sharing the variation's, so the spread includes the workload's.
	VarySeedPerTrial bool `json:"vary_seed_per_trial,omitempty"`
	// ConvergenceMetric, when set, stops repeating a variation once the
	// runs agree on it (NumProfileRuns is then the most runs).
	ConvergenceMetric string `json:"convergence_metric,omitempty"`
	// ConvergenceStat is the statistic of the metric compared; "" = avg.
	ConvergenceStat string `json:"convergence_stat,omitempty"`
	// ConvergenceThreshold is the mode's threshold in (0, 1); nil = the
	// mode's default.
	ConvergenceThreshold *float64 `json:"convergence_threshold,omitempty"`
	// ConvergenceMode is the criterion; "" = ci_width.
	ConvergenceMode ConvergenceMode `json:"convergence_mode,omitempty"`
	// ConvergenceMinRuns is how many runs precede the first check (>= 2);
	// 0 = DefaultConvergenceMinRuns.
	ConvergenceMinRuns int `json:"convergence_min_runs,omitempty"`
}

// Converges reports whether repeated runs stop on convergence.
func (c *Config) Converges() bool { return c.Experiment.ConvergenceMetric != "" }

// ResolvedConvergence returns the convergence settings with their
// defaults: mode, statistic, threshold and minimum runs.
func (c *Config) ResolvedConvergence() (mode ConvergenceMode, stat string, threshold float64, minRuns int) {
	e := &c.Experiment
	mode, stat, minRuns = e.ConvergenceMode, e.ConvergenceStat, e.ConvergenceMinRuns
	if mode == "" {
		mode = ConvergeCIWidth
	}
	if stat == "" {
		stat = "avg"
	}
	threshold = mode.DefaultThreshold()
	if e.ConvergenceThreshold != nil {
		threshold = *e.ConvergenceThreshold
	}
	if minRuns == 0 {
		minRuns = DefaultConvergenceMinRuns
	}
	return mode, stat, threshold, minRuns
}

// defaultExperiment returns AIPerf's defaults: one run, 95 % intervals.
func defaultExperiment() Experiment {
	return Experiment{NumProfileRuns: DefaultNumProfileRuns, ConfidenceLevel: DefaultConfidenceLevel}
}

// ProfileRunCooldown returns the pause between runs in seconds.
func (c *Config) ProfileRunCooldown() float64 {
	if p := c.Experiment.ProfileRunCooldownSeconds; p != nil {
		return *p
	}
	return 0
}

// DisableWarmupAfterFirst reports whether runs after the first skip the
// warmup phase (default true).
func (c *Config) DisableWarmupAfterFirst() bool {
	if p := c.Experiment.DisableWarmupAfterFirst; p != nil {
		return *p
	}
	return true
}

// SetConsistentSeed reports whether an experiment without --random-seed
// is seeded with DefaultConsistentSeed (default true).
func (c *Config) SetConsistentSeed() bool {
	if p := c.Experiment.SetConsistentSeed; p != nil {
		return *p
	}
	return true
}

// SweepKind returns the resolved --sweep-type.
func (c *Config) SweepKind() SweepType {
	if c.Experiment.SweepType == "" {
		return SweepGrid
	}
	return c.Experiment.SweepType
}

// SweepOrder returns the resolved --parameter-sweep-mode.
func (c *Config) SweepOrder() SweepMode {
	if c.Experiment.ParameterSweepMode == "" {
		return SweepRepeated
	}
	return c.Experiment.ParameterSweepMode
}

// validateExperiment checks the experiment options. As AIPerf, the options
// that act across repeated runs are rejected when only one run is asked
// for, rather than silently ignored.
func (c *Config) validateExperiment(p *problems) {
	e := &c.Experiment
	if e.NumProfileRuns < 1 || e.NumProfileRuns > MaxNumProfileRuns {
		p.add("--num-profile-runs", "must be between 1 and %d, got %d", MaxNumProfileRuns, e.NumProfileRuns)
	}
	if !(e.ConfidenceLevel > 0 && e.ConfidenceLevel < 1) {
		p.add("--confidence-level", "must be between 0 and 1 (exclusive), e.g. 0.90, 0.95 or 0.99; got %v", e.ConfidenceLevel)
	}
	if e.ProfileRunCooldownSeconds != nil {
		nonNegative(p, "--profile-run-cooldown-seconds", *e.ProfileRunCooldownSeconds)
	}
	nonNegative(p, "--parameter-sweep-cooldown-seconds", e.ParameterSweepCooldownSeconds)
	if e.SweepType != "" && !contains(SweepTypes(), e.SweepType) {
		p.add("--sweep-type", "invalid choice %q (choose from %s)", e.SweepType, joinChoices(SweepTypes()))
	}
	if e.ParameterSweepMode != "" && !contains(SweepModes(), e.ParameterSweepMode) {
		p.add("--parameter-sweep-mode", "invalid choice %q (choose from %s)", e.ParameterSweepMode, joinChoices(SweepModes()))
	}
	c.validateConvergence(p)
	if e.NumProfileRuns <= 1 {
		for _, f := range []struct {
			flag  string
			given bool
		}{
			{"--set-consistent-seed", e.SetConsistentSeed != nil},
			{"--profile-run-disable-warmup-after-first", e.DisableWarmupAfterFirst != nil},
			{"--profile-run-cooldown-seconds", e.ProfileRunCooldownSeconds != nil},
		} {
			if f.given {
				p.add(f.flag, "only applies when running multiple trials (--num-profile-runs > 1); remove it or add --num-profile-runs 5 (or more)")
			}
		}
	}
}

// Variation is one point of a parameter sweep: the complete configuration
// to run and what distinguishes it from its siblings. A run without a sweep
// is a single Variation with no Params. Variations are produced from the
// YAML `sweep:` section or from "magic list" flags (helper Y1) and run,
// each Experiment.NumProfileRuns times, by the experiment runner (helper Y2).
type Variation struct {
	// Index is the variation's 0-based position in the sweep.
	Index int
	// Label names the variation in directories and tables, e.g.
	// "concurrency_8" or "concurrency_8-isl_512"; unique within a sweep.
	Label string
	// Params are the varied parameters in sweep order, as dot paths into
	// the YAML `benchmark:` body (e.g. "phases.profiling.concurrency").
	Params []Param
	// Config is the complete, validated configuration of this variation.
	Config Config
}

// Param is one varied parameter and its value in a Variation.
type Param struct {
	Path  string
	Value any // int, float64, string or bool as written
}

// validateConvergence checks the convergence options as AIPerf does: they
// need repeated runs, distribution mode needs the per-request records.
func (c *Config) validateConvergence(p *problems) {
	e := &c.Experiment
	if e.ConvergenceMode != "" && !contains(ConvergenceModes(), e.ConvergenceMode) {
		p.add("--convergence-mode", "invalid choice %q (choose from %s)", e.ConvergenceMode, joinChoices(ConvergenceModes()))
	}
	if e.ConvergenceStat != "" && !contains(ConvergenceStats(), e.ConvergenceStat) {
		p.add("--convergence-stat", "invalid choice %q (choose from %s)", e.ConvergenceStat, strings.Join(ConvergenceStats(), ", "))
	}
	if t := e.ConvergenceThreshold; t != nil && !(*t > 0 && *t < 1) {
		p.add("--convergence-threshold", "must be between 0 and 1 (exclusive), got %v", *t)
	}
	if !c.Converges() {
		return
	}
	if e.NumProfileRuns <= 1 {
		p.add("--convergence-metric", "requires --num-profile-runs > 1 (it is the most runs per variation); set --num-profile-runs to at least 2")
	}
	if e.ConvergenceMinRuns != 0 && e.ConvergenceMinRuns < 2 {
		p.add("multi_run.convergence.min_runs", "must be at least 2, got %d", e.ConvergenceMinRuns)
	}
	if _, _, _, minRuns := c.ResolvedConvergence(); e.NumProfileRuns > 1 && minRuns > e.NumProfileRuns {
		p.add("multi_run.convergence.min_runs", "(%d) must be <= --num-profile-runs (%d): lower min_runs or raise num_runs", minRuns, e.NumProfileRuns)
	}
	if e.ConvergenceMode == ConvergeDistribution && c.Output.ExportLevel == ExportSummary {
		p.add("--convergence-mode", "distribution needs the per-request records, which --export-level summary does not write; use --export-level records or raw")
	}
}
