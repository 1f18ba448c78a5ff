package cli

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// addConvergenceFlags registers AIPerf's adaptive multi-run flags
// (--vary-seed-per-trial, --convergence-*), in the Multi-Run group.
func (b *flagBuilder) addConvergenceFlags(cfg *config.Config) {
	e := &cfg.Experiment
	b.group = groupMultiRun
	b.addBoolPair(nil, "vary-seed-per-trial", "false",
		"Give each trial of a variation its own seed (SHA-256 of the base seed, the variation and the trial) instead of the variation's, so the runs also sample different prompts: the spread then includes the workload's, not only the server's.", &e.VarySeedPerTrial)
	b.add(&stringValue{recorder: b.rec("convergence-metric"), p: &e.ConvergenceMetric}, spec{
		name: "convergence-metric", meta: "<metric>",
		usage: "Stop repeating a variation once its runs agree on this metric (time_to_first_token, request_latency, output_token_throughput, ...), by --convergence-mode; --num-profile-runs becomes the most runs. The per-request values of every run are also pooled into aggregate/profile_export_aiperf_collated.json.",
	})
	b.add(&stringValue{recorder: b.rec("convergence-stat"), p: &e.ConvergenceStat}, spec{
		name: "convergence-stat", meta: "<stat>", def: "avg", choices: config.ConvergenceStats(),
		usage: "Statistic of --convergence-metric compared across runs (ci_width and cv modes).",
	})
	b.add(&floatPtrValue{recorder: b.rec("convergence-threshold"), p: &e.ConvergenceThreshold}, spec{
		name: "convergence-threshold", meta: "<fraction>", def: "0.10 for ci_width, 0.05 otherwise",
		usage: "ci_width: the widest confidence interval accepted, as a fraction of the mean; cv: the largest coefficient of variation; distribution: the smallest KS p-value taken as \"the same distribution\". Between 0 and 1.",
	})
	b.add(&choiceValue[config.ConvergenceMode]{recorder: b.rec("convergence-mode"), p: &e.ConvergenceMode, normalize: normalizeChoice[config.ConvergenceMode]}, spec{
		name: "convergence-mode", meta: "<mode>", def: string(config.ConvergeCIWidth), choices: strs(config.ConvergenceModes()),
		usage: "ci_width: stop when the Student-t interval of the statistic is narrower than the threshold times the mean; cv: when std/mean across runs is below it; distribution: when a two-sample Kolmogorov-Smirnov test of the last run's per-request values against the earlier runs' gives a p-value above it (needs --export-level records or raw).",
	})
}
