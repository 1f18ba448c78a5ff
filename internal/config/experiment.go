package config

// Experiment holds the options of --num-profile-runs, --profile-run-cooldown-seconds, --confidence-level, --profile-run-disable-warmup-after-first, --set-consistent-seed, --sweep-type, --parameter-sweep-cooldown-seconds.
//
// Owned by helper Y2 (sweeps and multi-run): fields, defaults (in Defaults via a
// defaultExperiment function), validation (a validateExperiment method called from
// Validate) and JSON names (AIPerf's snake_case) are filled in there.
type Experiment struct{}

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
