package experiment

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/results"
)

func summaryWith(t *testing.T, metric string, v float64) *results.Summary {
	t.Helper()
	s, err := results.ParseSummary([]byte(fmt.Sprintf(`{%q:{"unit":"ms","avg":%v,"p99":%v}}`, metric, v, 2*v)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runsOf(t *testing.T, vals ...float64) []runResult {
	var rs []runResult
	for i, v := range vals {
		if math.IsNaN(v) {
			rs = append(rs, runResult{Label: runLabel(i), Err: fmt.Errorf("failed")})
			continue
		}
		rs = append(rs, runResult{Label: runLabel(i), Summary: summaryWith(t, "time_to_first_token", v)})
	}
	return rs
}

// TestConvergenceCriteria: ci_width of [100, 101] at 95 % is
// 2*12.706*0.5/100.5 = 0.1264 (not < 0.10); adding 100.5 gives
// 2*4.303*0.2887/100.5 = 0.0247 (converged). cv of [100, 110] is 7.07/105 = 0.0673.
func TestConvergenceCriteria(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	ci := &convergence{metric: "time_to_first_token", stat: "avg", mode: config.ConvergeCIWidth, threshold: 0.10, level: 0.95, minRuns: 2}
	cv := &convergence{metric: "time_to_first_token", stat: "avg", mode: config.ConvergeCV, threshold: 0.05, level: 0.95, minRuns: 2}
	tests := []struct {
		c     *convergence
		runs  []runResult
		want  bool
		inWhy string
	}{
		{ci, runsOf(t, 100), false, "1 of at least 2 runs"},
		{ci, runsOf(t, 100, 101), false, "= 0.1264"},
		{ci, runsOf(t, 100, 101, 100.5), true, "= 0.0247"},
		{ci, runsOf(t, 100, nan), false, "in 1 run(s), 2 needed"}, // a failed run counts toward min runs, not the values
		{ci, runsOf(t, 0, 0), false, "mean 0"},
		{cv, runsOf(t, 100, 110), false, "cv of time_to_first_token avg over 2 runs = 0.0673"},
		{cv, runsOf(t, 100, 102), true, "= 0.0140"},
		{&convergence{metric: "time_to_first_token", stat: "p99", mode: config.ConvergeCV, threshold: 0.05, minRuns: 3, level: 0.95}, runsOf(t, 100, 100), false, "2 of at least 3"},
		{&convergence{metric: "nope", stat: "avg", mode: config.ConvergeCIWidth, threshold: 0.1, minRuns: 2, level: 0.95}, runsOf(t, 1, 1), false, "nope avg in 0 run(s)"},
	}
	for i, tt := range tests {
		got, why := tt.c.check(tt.runs)
		if got != tt.want || !strings.Contains(why, tt.inWhy) {
			t.Errorf("case %d: check = %v, %q; want %v, containing %q", i, got, why, tt.want, tt.inWhy)
		}
	}
}

func TestConvergenceDistribution(t *testing.T) {
	t.Parallel()
	same := func(r *runResult, _ string) ([]float64, error) {
		out := make([]float64, 50)
		for i := range out {
			out[i] = float64((i*7 + r.Trial) % 50)
		}
		return out, nil
	}
	shifted := func(r *runResult, m string) ([]float64, error) {
		v, _ := same(r, m)
		if r.Trial == 2 {
			for i := range v {
				v[i] += 30
			}
		}
		return v, nil
	}
	c := &convergence{metric: "time_to_first_token", mode: config.ConvergeDistribution, threshold: 0.05, minRuns: 3, values: same}
	runs := runsOf(t, 1, 2, 3)
	for i := range runs {
		runs[i].Trial, runs[i].Records = i, "x.jsonl"
	}
	if ok, why := c.check(runs[:2]); ok {
		t.Errorf("two runs with min 3 converged: %s", why)
	}
	if ok, why := c.check(runs); !ok || !strings.Contains(why, "KS test of time_to_first_token, last run (50 values) vs the 2 before (100 values)") {
		t.Errorf("same distribution: %v %q; want converged", ok, why)
	}
	c.values = shifted
	if ok, why := c.check(runs); ok {
		t.Errorf("shifted last run converged: %s", why)
	}
}

// TestTrialSeed matches AIPerf 0.13's derive_variation_seed(42,
// "<label>:trial:<t>").
func TestTrialSeed(t *testing.T) {
	t.Parallel()
	if got := trialSeed(42, "base", 0); got != 6858774025263032934 {
		t.Errorf("trialSeed(42, base, 0) = %d", got)
	}
	if got := trialSeed(42, "phases.profiling.concurrency=8", 2); got != 3046399545751369350 {
		t.Errorf("trialSeed(42, concurrency=8, 2) = %d", got)
	}
}

// TestConvergenceStopsEarlyOnQuietMockAndRunsLongerOnNoisyOne is the
// acceptance test: the same experiment (up to 10 runs, AIPerf's most;
// stop when the 95 % interval of the mean across runs is narrower than
// 10 % of it, the default) converges on the successful requests per run.
// A quiet mock answers all 8 requests of every run: the runs agree at
// once and it stops after 2. A noisy one fails half its requests at
// random (seeded), so the count per run scatters binomially (mean 4,
// std 1.4) and it runs all 10. The noise is the server's and the test
// does not depend on the machine's timing.
func TestConvergenceStopsEarlyOnQuietMockAndRunsLongerOnNoisyOne(t *testing.T) {
	t.Parallel()
	runs := func(errorRate float64) (int, string) {
		url, _ := mock(t, func(c *mockserver.Config) {
			c.ErrorRate = errorRate
			c.RandomSeed, c.SeedSet = 11, true
		})
		cfg := *baseConfig(t, url)
		cfg.Load.Concurrency = ptr(4)
		cfg.Load.RequestCount = ptr(8)
		cfg.Input.OutputTokens.Mean = ptr(2)
		cfg.Experiment.NumProfileRuns = 10
		cfg.Experiment.ConvergenceMetric = "request_count"
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		err := RunExperiment(context.Background(), []config.Variation{{Config: cfg}}, benchmark.IO{Stdout: &out, Stderr: &out, Version: "test"})
		if err != nil {
			t.Fatalf("RunExperiment: %v\n%s", err, out.String())
		}
		dirs, _ := filepath.Glob(filepath.Join(cfg.Output.ArtifactDir, "profile_runs", "run_*"))
		agg, err := results.ReadAggregate(filepath.Join(cfg.Output.ArtifactDir, "aggregate", aggregateJSONName))
		if err != nil || agg.NumRuns != len(dirs) {
			t.Fatalf("aggregate: %v, %d runs for %d run dirs", err, agg.NumRuns, len(dirs))
		}
		if _, err := results.ReadAggregate(filepath.Join(cfg.Output.ArtifactDir, "aggregate", collatedJSONName)); err != nil {
			t.Errorf("collated aggregate: %v", err)
		}
		return len(dirs), out.String()
	}
	quiet, quietLog := runs(0)
	noisy, noisyLog := runs(50)
	if quiet != 2 || !strings.Contains(quietLog, "converged after 2 run(s)") {
		t.Errorf("quiet mock: %d runs; want a stop after 2\n%s", quiet, quietLog)
	}
	if noisy != 10 || !strings.Contains(noisyLog, "did not converge in 10 runs") {
		t.Errorf("noisy mock: %d runs; want all 10\n%s", noisy, noisyLog)
	}
	t.Logf("quiet mock converged after %d runs, noisy mock ran %d", quiet, noisy)
}

// TestConvergenceOnLatencyAgainstMock is the same on TTFT: a fixed 200 ms
// TTFT against one with lognormal jitter of CV 1. Timing-dependent, so it
// runs only with AIPERF_TIMING_TESTS=1 (a loaded machine makes the quiet
// mock look noisy).
func TestConvergenceOnLatencyAgainstMock(t *testing.T) {
	if os.Getenv("AIPERF_TIMING_TESTS") == "" {
		t.Skip("set AIPERF_TIMING_TESTS=1 to run the timing-dependent convergence test")
	}
	runs := func(ttft time.Duration, jitter float64, requests int) int {
		url, _ := mock(t, func(c *mockserver.Config) {
			c.Fast = false
			c.TTFT, c.ITL = ttft, 0
			c.TTFTJitterCV = jitter
			c.RandomSeed, c.SeedSet = 11, true
		})
		cfg := *baseConfig(t, url)
		cfg.Load.Concurrency = ptr(requests)
		cfg.Load.RequestCount = ptr(requests)
		cfg.Input.OutputTokens.Mean = ptr(2)
		cfg.Experiment.NumProfileRuns = 10
		cfg.Experiment.ConvergenceMetric = "time_to_first_token"
		cfg.Experiment.ConvergenceStat = "p50"
		cfg.Experiment.ConvergenceThreshold = ptr(0.2)
		if err := RunExperiment(context.Background(), []config.Variation{{Config: cfg}}, benchmark.IO{Version: "test"}); err != nil {
			t.Fatal(err)
		}
		dirs, _ := filepath.Glob(filepath.Join(cfg.Output.ArtifactDir, "profile_runs", "run_*"))
		return len(dirs)
	}
	quiet, noisy := runs(200*time.Millisecond, 0, 8), runs(50*time.Millisecond, 1, 4)
	if quiet >= 10 || noisy != 10 {
		t.Errorf("quiet %d runs, noisy %d; want an early stop and all 10", quiet, noisy)
	}
}

// TestVarySeedPerTrial: each trial gets AIPerf's derived seed; without
// the option the trials share the variation's.
func TestVarySeedPerTrial(t *testing.T) {
	t.Parallel()
	for _, vary := range []bool{false, true} {
		base := experimentBase(t)
		base.Experiment.NumProfileRuns = 3
		base.Experiment.VarySeedPerTrial = vary
		f := &fakeRun{}
		x, _, _ := fakeExperiment(t, []config.Variation{{Config: base}}, f)
		if err := x.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, c := range f.calls {
			want := int64(42)
			if vary {
				want = trialSeed(42, "base", i)
			}
			if c.seed != want {
				t.Errorf("vary %v, trial %d: seed %d; want %d", vary, i, c.seed, want)
			}
		}
	}
}

// TestConvergenceInRepeatedSweep: in a repeated-mode sweep a variation
// that has converged is skipped in later trials while the others go on.
func TestConvergenceInRepeatedSweep(t *testing.T) {
	t.Parallel()
	base := experimentBase(t)
	base.Experiment.NumProfileRuns = 5
	base.Experiment.ConvergenceMetric = "request_latency"
	vars := sweepVars(base, []int{1, 2}, []int{64})
	// concurrency 1 gives a constant latency (converges at 2 runs), 2 a
	// wildly varying one (never converges).
	f := &fakeRun{value: func(n int, cfg *config.Config) float64 {
		if *cfg.Load.Concurrency == 1 {
			return 100
		}
		return float64(10 * n * n)
	}}
	x, _, stderr := fakeExperiment(t, vars, f)
	if err := x.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(x.results[0]) != 2 || len(x.results[1]) != 5 || len(f.calls) != 7 {
		t.Errorf("runs per variation = %d, %d (%d calls); want 2 and 5", len(x.results[0]), len(x.results[1]), len(f.calls))
	}
	if !strings.Contains(stderr.String(), "converged after 2 run(s)") || !strings.Contains(stderr.String(), "did not converge in 5 runs") {
		t.Errorf("log:\n%s", stderr.String())
	}
}
