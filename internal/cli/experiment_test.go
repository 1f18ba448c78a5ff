package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func TestExperimentFlags(t *testing.T) {
	t.Parallel()
	cfg := profile(t, "-m", "x",
		"--num-profile-runs", "3", "--profile-run-cooldown-seconds", "1.5", "--confidence-level", "0.9",
		"--no-profile-run-disable-warmup-after-first", "--no-set-consistent-seed",
		"--parameter-sweep-cooldown-seconds", "2", "--parameter-sweep-same-seed",
		"--parameter-sweep-mode", "Independent", "--sweep-type", "zip", "--no-sweep-table")
	e := cfg.Experiment
	if e.NumProfileRuns != 3 || cfg.ProfileRunCooldown() != 1.5 || e.ConfidenceLevel != 0.9 ||
		cfg.DisableWarmupAfterFirst() || cfg.SetConsistentSeed() || e.ParameterSweepCooldownSeconds != 2 ||
		!e.ParameterSweepSameSeed || cfg.SweepOrder() != config.SweepIndependent || cfg.SweepKind() != config.SweepZip || !e.NoSweepTable {
		t.Errorf("experiment = %+v", e)
	}

	cfg = profile(t, "-m", "x", "--num_profile_runs", "2", "--set-consistent-seed", "--profile-run-disable-warmup-after-first",
		"--parameter-sweep-same-seed", "--no-parameter-sweep-same-seed")
	if cfg.Experiment.SetConsistentSeed == nil || !*cfg.Experiment.SetConsistentSeed ||
		cfg.Experiment.DisableWarmupAfterFirst == nil || !*cfg.Experiment.DisableWarmupAfterFirst ||
		cfg.Experiment.ParameterSweepSameSeed {
		t.Errorf("positive forms: %+v", cfg.Experiment)
	}

	cfg = profile(t, "-m", "x")
	if cfg.Experiment.NumProfileRuns != 1 || cfg.Experiment.ConfidenceLevel != 0.95 {
		t.Errorf("defaults = %+v", cfg.Experiment)
	}
}

// TestExperimentFlagProblems: every problem is listed, exit 2.
func TestExperimentFlagProblems(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "-m", "x",
		"--num-profile-runs", "11", "--confidence-level", "1", "--sweep-type", "cube", "--set-consistent-seed=maybe")
	if r.code != 2 || r.cfg != nil {
		t.Fatalf("exit %d, ran %v", r.code, r.cfg != nil)
	}
	for _, want := range []string{"--num-profile-runs", "between 1 and 10", "--confidence-level", "--sweep-type", "invalid choice", "--set-consistent-seed"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	r = runMain(t, context.Background(), nil, "profile", "-m", "x", "--profile-run-cooldown-seconds", "5")
	if r.code != 2 || !strings.Contains(r.stderr, "--num-profile-runs > 1") {
		t.Errorf("cooldown with one run: exit %d\n%s", r.code, r.stderr)
	}
}

// TestVariationsReachRunner: the runner gets the experiment's variations.
func TestVariationsReachRunner(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "-m", "x", "--num-profile-runs", "2", "--concurrency", "3")
	if r.code != 0 || len(r.rio.Variations) != 1 {
		t.Fatalf("exit %d, variations %d", r.code, len(r.rio.Variations))
	}
	v := r.rio.Variations[0]
	if v.Config.Load.Concurrency == nil || *v.Config.Load.Concurrency != 3 || v.Config.Experiment.NumProfileRuns != 2 {
		t.Errorf("variation config = %+v", v.Config)
	}
}
