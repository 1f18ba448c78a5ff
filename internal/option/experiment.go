package option

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/config"
)

// numProfileRunsOptions lists the options from --num-profile-runs on, in help order.
func numProfileRunsOptions() []Option {
	return []Option{
		{Name: "num-profile-runs",
			Group:   GroupMultiRun,
			Meta:    "<n>",
			Default: strconv.Itoa(config.DefaultNumProfileRuns),
			Usage:   "Run each benchmark this many times (1-10) and report, per metric statistic, the mean, sample standard deviation, coefficient of variation and a Student-t confidence interval across the runs, in aggregate/profile_export_aiperf_aggregate.json and .csv. Each run writes its own artifacts under profile_runs/.",
			Bind:    func(c *config.Config) any { return &c.Experiment.NumProfileRuns },
			Keys:    []Key{{Path: "multi_run.num_runs", Doc: "Profile runs per variation (1-10); more than one adds confidence intervals."}}},
		{Name: "profile-run-cooldown-seconds",
			Group:   GroupMultiRun,
			Meta:    "<seconds>",
			Default: "0",
			Usage:   "Pause between profile runs, to let the server settle (caches, GPU clocks). Requires --num-profile-runs > 1.",
			Bind:    func(c *config.Config) any { return &c.Experiment.ProfileRunCooldownSeconds },
			Keys:    []Key{{Path: "multi_run.cooldown_seconds", Conv: ConvDuration}}},
		{Name: "confidence-level",
			Group:   GroupMultiRun,
			Meta:    "<level>",
			Default: formatFloat(config.DefaultConfidenceLevel),
			Usage:   "Confidence level of the intervals across profile runs, between 0 and 1 (0.90, 0.95, 0.99); higher levels give wider intervals.",
			Bind:    func(c *config.Config) any { return &c.Experiment.ConfidenceLevel },
			Keys:    []Key{{Path: "multi_run.confidence_level"}}},
		{Name: "profile-run-disable-warmup-after-first",
			Group:   GroupMultiRun,
			Default: "true",
			Usage:   "Run the warmup only before the first profile run, so later runs measure the warmed-up server; the negative form warms up before every run (cold-start testing, long cooldowns). Requires --num-profile-runs > 1.",
			Bind:    func(c *config.Config) any { return &c.Experiment.DisableWarmupAfterFirst },
			NoForm:  true,
			Keys:    []Key{{Path: "multi_run.disable_warmup_after_first"}}},
		{Name: "set-consistent-seed",
			Group:   GroupMultiRun,
			Default: "true",
			Usage:   "Seed a multi-run or sweep experiment that has no --random-seed with 42, so every run sends the same workload and the spread across runs is the server's, not the prompts'. An explicit --random-seed always wins. Requires --num-profile-runs > 1.",
			Bind:    func(c *config.Config) any { return &c.Experiment.SetConsistentSeed },
			NoForm:  true,
			Keys:    []Key{{Path: "multi_run.set_consistent_seed"}}},
		{Name: "parameter-sweep-cooldown-seconds",
			Group:   GroupMultiRun,
			Meta:    "<seconds>",
			Default: "0",
			Usage:   "Pause between the variations of a parameter sweep (e.g. between --concurrency 8 and --concurrency 16).",
			Bind:    func(c *config.Config) any { return &c.Experiment.ParameterSweepCooldownSeconds },
			Keys:    []Key{{Path: "sweep.cooldown_seconds", Conv: ConvDuration}}},
		{Name: "parameter-sweep-same-seed",
			Group:   GroupMultiRun,
			Default: "false",
			Usage:   "Give every sweep variation the same random seed (correlated comparisons) instead of the base seed plus the variation's index.",
			Bind:    func(c *config.Config) any { return &c.Experiment.ParameterSweepSameSeed },
			NoForm:  true,
			Keys:    []Key{{Path: "sweep.same_seed", Doc: "Give every variation random_seed instead of random_seed + index."}}},
		{Name: "parameter-sweep-mode",
			Group:   GroupMultiRun,
			Meta:    "<mode>",
			Default: string(config.SweepRepeated),
			Choices: strs(config.SweepModes()),
			Usage:   "Order of a sweep with several profile runs: repeated runs every variation once per trial (trials outer, artifacts in profile_runs/trial_NNNN/<variation>/); independent runs all trials of a variation before the next (<variation>/profile_runs/trial_NNNN/).",
			Bind:    func(c *config.Config) any { return &c.Experiment.ParameterSweepMode },
			Keys:    []Key{{Path: "sweep.iteration_order", Conv: ConvChoice, Doc: "repeated (trials outer, the default) or independent."}}},
		{Name: "sweep-type",
			Group:   GroupMultiRun,
			Meta:    "<type>",
			Default: string(config.SweepGrid),
			Choices: strs(config.SweepTypes()),
			Usage:   "How several comma-separated sweep flags (--concurrency 8,16 --isl 128,512) combine: grid takes every combination, zip pairs them element by element (the lists must have the same length).",
			Bind:    func(c *config.Config) any { return &c.Experiment.SweepType }},
	}
}

// noSweepTableOptions lists the options from --no-sweep-table on, in help order.
func noSweepTableOptions() []Option {
	return []Option{
		{Name: "no-sweep-table",
			Group: GroupMultiRun,
			Usage: "Do not print the live sweep table (one row per finished variation). It is also left out when stdout is not a terminal, with the dashboard UI, and for a single variation.",
			Bind:  func(c *config.Config) any { return &c.Experiment.NoSweepTable },
			Keys:  []Key{{Path: "no_sweep_table"}}},
	}
}
