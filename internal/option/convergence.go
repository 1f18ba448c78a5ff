package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// varySeedPerTrialOptions lists the options from --vary-seed-per-trial on, in help order.
func varySeedPerTrialOptions() []Option {
	return []Option{
		{Name: "vary-seed-per-trial",
			Group:   GroupMultiRun,
			Default: "false",
			Usage:   "Give each trial of a variation its own seed (SHA-256 of the base seed, the variation and the trial) instead of the variation's, so the runs also sample different prompts: the spread then includes the workload's, not only the server's.",
			Bind:    func(c *config.Config) any { return &c.Experiment.VarySeedPerTrial },
			NoForm:  true,
			Keys:    []Key{{Path: "multi_run.vary_seed_per_trial", Doc: "Give each trial its own seed (SHA-256 of random_seed, variation label and trial)."}}},
		{Name: "convergence-metric",
			Group: GroupMultiRun,
			Meta:  "<metric>",
			Usage: "Stop repeating a variation once its runs agree on this metric (time_to_first_token, request_latency, output_token_throughput, ...), by --convergence-mode; --num-profile-runs becomes the most runs. The per-request values of every run are also pooled into aggregate/profile_export_aiperf_collated.json.",
			Bind:  func(c *config.Config) any { return &c.Experiment.ConvergenceMetric },
			Keys:  []Key{{Path: "multi_run.convergence.metric", Doc: "Stop repeating a variation once its runs agree on this metric; num_runs is then the most runs."}}},
		{Name: "convergence-stat",
			Group:   GroupMultiRun,
			Meta:    "<stat>",
			Default: "avg",
			Choices: config.ConvergenceStats(),
			Usage:   "Statistic of --convergence-metric compared across runs (ci_width and cv modes).",
			Bind:    func(c *config.Config) any { return &c.Experiment.ConvergenceStat },
			Keys:    []Key{{Path: "multi_run.convergence.stat"}}},
		{Name: "convergence-threshold",
			Group:   GroupMultiRun,
			Meta:    "<fraction>",
			Default: "0.10 for ci_width, 0.05 otherwise",
			Usage:   "ci_width: the widest confidence interval accepted, as a fraction of the mean; cv: the largest coefficient of variation; distribution: the smallest KS p-value taken as \"the same distribution\". Between 0 and 1.",
			Bind:    func(c *config.Config) any { return &c.Experiment.ConvergenceThreshold },
			Keys:    []Key{{Path: "multi_run.convergence.threshold"}}},
		{Name: "convergence-min-runs",
			Group: GroupMultiRun,
			Meta:  "<n>",
			Usage: "Runs of a variation before the first convergence check: at least 2, the default. Raise it when the first runs of a cold server are not representative. Not an AIPerf option (its config file's convergence.min_runs).",
			Bind:  func(c *config.Config) any { return &c.Experiment.ConvergenceMinRuns },
			Keys: []Key{{Path: "multi_run.convergence.min_runs",
				Doc: "Runs before the first convergence check (at least 2, the default)."}}},
		{Name: "convergence-mode",
			Group:   GroupMultiRun,
			Meta:    "<mode>",
			Default: string(config.ConvergeCIWidth),
			Choices: strs(config.ConvergenceModes()),
			Usage:   "ci_width: stop when the Student-t interval of the statistic is narrower than the threshold times the mean; cv: when std/mean across runs is below it; distribution: when a two-sample Kolmogorov-Smirnov test of the last run's per-request values against the earlier runs' gives a p-value above it (needs --export-level records or raw).",
			Bind:    func(c *config.Config) any { return &c.Experiment.ConvergenceMode },
			Keys:    []Key{{Path: "multi_run.convergence.mode", Conv: ConvChoice, Doc: "ci_width (default), cv or distribution."}}},
	}
}
