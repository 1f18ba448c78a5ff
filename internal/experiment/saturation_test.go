package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/results"
	"github.com/aiperf-go/aiperf/internal/search"
)

// rateStep is one step of a hand-built request-rate sweep.
type rateStep struct {
	rate, seconds float64
}

// kneeSweep builds a request-rate sweep against url, a step per rate,
// with --over-saturation mode judging from 3 s with a 1 s TTFT floor (as
// the single-run test in package benchmark).
func kneeSweep(t *testing.T, url, mode string, steps []rateStep) []config.Variation {
	t.Helper()
	base := *baseConfig(t, url)
	base.Input.OutputTokens.Mean = ptr(32)
	base.Load.RequestCount = nil
	base.Load.BenchmarkGracePeriod = ptr(config.Seconds(0))
	base.Fidelity.OverSaturation = mode
	base.Fidelity.OverSaturationMinSeconds = ptr(3.0)
	base.Fidelity.OverSaturationMinTTFT = ptr(1.0)
	var vars []config.Variation
	for _, s := range steps {
		cfg := base
		cfg.Load.RequestRate = ptr(s.rate)
		cfg.Load.BenchmarkDuration = ptr(s.seconds)
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		vars = append(vars, config.Variation{Index: len(vars), Label: fmt.Sprintf("request_rate=%v", s.rate),
			Params: []config.Param{{Path: "phases.profiling.rate", Value: s.rate}}, Config: cfg})
	}
	return vars
}

// TestSweepOverSaturation is over-saturation as a sweep's stop rule, on
// the knee mock (4 batch slots, 32-token answers: it serves at most ~4
// requests/s, each taking ~1 s with the slots full; see
// TestOverSaturation in package benchmark for the arithmetic). At 1
// request/s, a quarter of the capacity, nothing queues and the step is
// never flagged (its TTFTs stay tens of ms, far under the 1 s floor); at
// 16/s the queue grows by ~12 requests a second and each TTFT by ~3/4 s
// per second: flagged. In enforce mode the 16/s step is stopped and the
// sweep does not go on to 32/s (no run directory); in monitor mode both
// steps run to the end and the 16/s one is flagged.
func TestSweepOverSaturation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		mode  string
		steps []rateStep
		ran   []string // variation directories with a summary
	}{
		{"enforce", config.OverSaturationEnforce, []rateStep{{1, 8}, {16, 40}, {32, 40}}, []string{"rate_1.0", "rate_16.0"}},
		{"monitor", config.OverSaturationMonitor, []rateStep{{1, 8}, {16, 12}}, []string{"rate_1.0", "rate_16.0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url, _ := mock(t, func(m *mockserver.Config) {
				m.Fast = false
				m.Batch = mockserver.BatchConfig{Slots: 4, StepMs: 16, StepPerSeqMs: 4}
			})
			vars := kneeSweep(t, url, c.mode, c.steps)
			var stdout, stderr bytes.Buffer
			err := RunExperiment(context.Background(), vars, benchmark.IO{Stdout: &stdout, Stderr: &stderr, Version: "test", CLICommand: "aiperf profile (test)"})
			if err != nil {
				t.Fatalf("RunExperiment: %v\n%s", err, stderr.String())
			}
			dir := vars[0].Config.Output.ArtifactDir
			var ran []string
			for _, v := range vars {
				if _, err := os.Stat(filepath.Join(dir, VariationDirName(&v), "profile_export_aiperf.json")); err == nil {
					ran = append(ran, VariationDirName(&v))
				}
			}
			if fmt.Sprint(ran) != fmt.Sprint(c.ran) {
				t.Fatalf("variations run %v, want %v\n%s", ran, c.ran, stderr.String())
			}
			for _, v := range vars[:2] {
				s, err := results.ReadSummary(filepath.Join(dir, VariationDirName(&v), "profile_export_aiperf.json"))
				if err != nil {
					t.Fatal(err)
				}
				o := s.OverSaturation
				if o == nil || o.Mode != c.mode {
					t.Fatalf("%s: over_saturation %+v, want mode %s", v.Label, o, c.mode)
				}
				past := *v.Config.Load.RequestRate > 4
				if o.OverSaturated != past {
					t.Errorf("%s: is_over_saturated %v, want %v (%+v)", v.Label, o.OverSaturated, past, o)
				}
				if past && !(o.ConcurrentSlope > 0 && o.TTFTSlope > 0 && o.ConcurrentMOE < 2 && o.TTFTMOE < 2) {
					t.Errorf("%s: flagged with slopes and margins %+v", v.Label, o)
				}
				if want := past && c.mode == config.OverSaturationEnforce; o.Stopped != want {
					t.Errorf("%s: stopped %v, want %v", v.Label, o.Stopped, want)
				}
			}
			flagged := "request_rate=16 (run_0001) is over-saturated (--over-saturation " + c.mode + ") at "
			if !strings.Contains(stderr.String(), flagged) || strings.Contains(stderr.String(), "request_rate=1 (run_0001) is over-saturated") {
				t.Errorf("stderr does not flag exactly the 16/s step:\n%s", stderr.String())
			}
			stopped := strings.Contains(stderr.String(), "the sweep stops escalating at request_rate=16: 1 later variation(s) not run")
			if stopped != (c.mode == config.OverSaturationEnforce) {
				t.Errorf("stop reported %v in %s mode:\n%s", stopped, c.mode, stderr.String())
			}
			if !strings.Contains(stdout.String(), "  request_rate=16: over-saturated at ") {
				t.Errorf("stdout lacks the over-saturation block:\n%s", stdout.String())
			}
		})
	}
}

// TestSearchOverSaturation: a search point over-saturated in enforce mode
// is infeasible, whatever its SLA filters say (none here: every
// successful point would pass), and its breach says why with the slopes;
// flagged in monitor mode it stays feasible.
func TestSearchOverSaturation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mode     string
		flagged  bool
		feasible bool
	}{
		{config.OverSaturationEnforce, true, false},
		{config.OverSaturationEnforce, false, true},
		{config.OverSaturationMonitor, true, true},
	} {
		x := &experiment{plan: &search.Plan{Objective: search.Objective{Metric: "request_throughput", Stat: "avg"}}}
		sum := &results.Summary{
			Metrics:        []results.Metric{{Tag: "request_throughput", Unit: "requests/sec", Stats: map[string]float64{"avg": 3.9}}},
			OverSaturation: &results.OverSaturation{Mode: c.mode, OverSaturated: c.flagged, ConcurrentSlope: 14.7, ConcurrentMOE: 0.26, TTFTSlope: 0.77, TTFTMOE: 0.13, Seconds: 5.1},
		}
		x.results = [][]runResult{{{Label: "run_0001", Summary: sum}}}
		o := x.observe(0)
		if o.Feasible != c.feasible || o.Objective != 3.9 {
			t.Errorf("%s, flagged %v: observation %+v, want feasible %v with objective 3.9", c.mode, c.flagged, o, c.feasible)
		}
		want := "over-saturated (--over-saturation enforce) at 5.1 s: in flight rising 14.7/s (margin of error 0.26), TTFT rising 0.77 s/s (margin of error 0.13)"
		if got := x.firstBreachText(0); (got == want) != !c.feasible {
			t.Errorf("%s, flagged %v: breach %q", c.mode, c.flagged, got)
		}
	}
}
