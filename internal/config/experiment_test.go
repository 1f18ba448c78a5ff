package config

import (
	"math"
	"testing"
)

func TestValidateExperiment(t *testing.T) {
	t.Parallel()
	tests := []validateCase{
		{"defaults", func(c *Config) {}, nil, ""},
		{"ten runs", func(c *Config) { c.Experiment.NumProfileRuns = 10 }, nil, ""},
		{"zero runs", func(c *Config) { c.Experiment.NumProfileRuns = 0 }, []string{"--num-profile-runs"}, "between 1 and 10"},
		{"eleven runs", func(c *Config) { c.Experiment.NumProfileRuns = 11 }, []string{"--num-profile-runs"}, "got 11"},
		{"level 1", func(c *Config) { c.Experiment.ConfidenceLevel = 1 }, []string{"--confidence-level"}, "exclusive"},
		{"level 0", func(c *Config) { c.Experiment.ConfidenceLevel = 0 }, []string{"--confidence-level"}, ""},
		{"level NaN", func(c *Config) { c.Experiment.ConfidenceLevel = math.NaN() }, []string{"--confidence-level"}, ""},
		{"level 0.99", func(c *Config) { c.Experiment.ConfidenceLevel = 0.99 }, nil, ""},
		{"negative sweep cooldown", func(c *Config) { c.Experiment.ParameterSweepCooldownSeconds = -1 }, []string{"--parameter-sweep-cooldown-seconds"}, ">= 0"},
		{"bad sweep type", func(c *Config) { c.Experiment.SweepType = "cartesian" }, []string{"--sweep-type"}, "grid, zip"},
		{"zip", func(c *Config) { c.Experiment.SweepType = SweepZip }, nil, ""},
		{"bad sweep mode", func(c *Config) { c.Experiment.ParameterSweepMode = "serial" }, []string{"--parameter-sweep-mode"}, "independent, repeated"},
		{"cross-trial flags with one run", func(c *Config) {
			c.Experiment.SetConsistentSeed = ptr(false)
			c.Experiment.DisableWarmupAfterFirst = ptr(true)
			c.Experiment.ProfileRunCooldownSeconds = ptr(1.0)
		}, []string{"--set-consistent-seed", "--profile-run-disable-warmup-after-first", "--profile-run-cooldown-seconds"}, "--num-profile-runs > 1"},
		{"cross-trial flags with runs", func(c *Config) {
			c.Experiment.NumProfileRuns = 3
			c.Experiment.SetConsistentSeed = ptr(false)
			c.Experiment.DisableWarmupAfterFirst = ptr(false)
			c.Experiment.ProfileRunCooldownSeconds = ptr(1.0)
		}, nil, ""},
		{"convergence", func(c *Config) {
			c.Experiment.NumProfileRuns = 5
			c.Experiment.ConvergenceMetric = "time_to_first_token"
			c.Experiment.ConvergenceMode = ConvergeDistribution
			c.Experiment.ConvergenceStat = "p99"
			c.Experiment.ConvergenceThreshold = ptr(0.01)
			c.Experiment.VarySeedPerTrial = true
		}, nil, ""},
		{"convergence with one run", func(c *Config) { c.Experiment.ConvergenceMetric = "time_to_first_token" }, []string{"--convergence-metric"}, "requires --num-profile-runs > 1"},
		{"bad convergence choices", func(c *Config) {
			c.Experiment.NumProfileRuns = 3
			c.Experiment.ConvergenceMetric = "x"
			c.Experiment.ConvergenceMode = "ks"
			c.Experiment.ConvergenceStat = "p42"
			c.Experiment.ConvergenceThreshold = ptr(1.0)
		}, []string{"--convergence-mode", "--convergence-stat", "--convergence-threshold"}, "ci_width, cv, distribution"},
		{"min runs above num runs", func(c *Config) {
			c.Experiment.NumProfileRuns = 3
			c.Experiment.ConvergenceMetric = "x"
			c.Experiment.ConvergenceMinRuns = 4
		}, []string{"multi_run.convergence.min_runs"}, "(4) must be <= --num-profile-runs (3)"},
		{"distribution without records", func(c *Config) {
			c.Experiment.NumProfileRuns = 3
			c.Experiment.ConvergenceMetric = "x"
			c.Experiment.ConvergenceMode = ConvergeDistribution
			c.Output.ExportLevel = ExportSummary
		}, []string{"--convergence-mode"}, "per-request records"},
		{"negative run cooldown", func(c *Config) {
			c.Experiment.NumProfileRuns = 2
			c.Experiment.ProfileRunCooldownSeconds = ptr(math.Inf(1))
		}, []string{"--profile-run-cooldown-seconds"}, "finite"},
	}
	checkValidate(t, tests)
}

func TestExperimentResolvedDefaults(t *testing.T) {
	t.Parallel()
	c := valid()
	if c.Experiment.NumProfileRuns != 1 || c.Experiment.ConfidenceLevel != 0.95 {
		t.Errorf("defaults = %+v", c.Experiment)
	}
	if c.ProfileRunCooldown() != 0 || !c.DisableWarmupAfterFirst() || !c.SetConsistentSeed() ||
		c.SweepKind() != SweepGrid || c.SweepOrder() != SweepRepeated {
		t.Errorf("resolved defaults wrong: cooldown %v warmup %v seed %v type %v mode %v",
			c.ProfileRunCooldown(), c.DisableWarmupAfterFirst(), c.SetConsistentSeed(), c.SweepKind(), c.SweepOrder())
	}
	c.Experiment.ProfileRunCooldownSeconds = ptr(2.5)
	c.Experiment.DisableWarmupAfterFirst = ptr(false)
	c.Experiment.SetConsistentSeed = ptr(false)
	c.Experiment.SweepType = SweepZip
	c.Experiment.ParameterSweepMode = SweepIndependent
	if c.ProfileRunCooldown() != 2.5 || c.DisableWarmupAfterFirst() || c.SetConsistentSeed() ||
		c.SweepKind() != SweepZip || c.SweepOrder() != SweepIndependent {
		t.Errorf("resolved values wrong")
	}
}
