package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func scenarioConfig(edit func(c *Config)) Config {
	c := Defaults()
	c.Endpoint.ModelNames = []string{"m"}
	c.Compat.Scenario = "inferencex-agentx-mvp"
	if edit != nil {
		edit(&c)
	}
	return c
}

func TestApplyScenario(t *testing.T) {
	t.Parallel()
	trace := func(c *Config) { c.Dataset.InputFile, c.Dataset.CustomType = "t.jsonl", "mooncake_trace" }
	tests := []struct {
		name     string
		edit     func(c *Config)
		wantErr  []string // substrings of the lock error; nil = no error
		wantVios []string // violation flags under --unsafe-override
	}{
		{"synthetic cannot be overridden", func(c *Config) { c.Compat.UnsafeOverride = true },
			[]string{"--input-file (loader): got 'synthetic'", "cannot be bypassed with --unsafe-override"}, nil},
		{"trace without override", trace,
			[]string{"1 conflict)", "--input-file (loader): got 'mooncake_trace'", "Pass --unsafe-override"}, nil},
		{"trace with override", func(c *Config) { trace(c); c.Compat.UnsafeOverride = true },
			nil, []string{"--input-file (loader)"}},
		{"rate, short duration, false ignore_eos, delay cap", func(c *Config) {
			trace(c)
			c.Compat.UnsafeOverride = true
			r, d, capS := 5.0, 60.0, 1.0
			c.Load.RequestRate, c.Load.BenchmarkDuration, c.Conversation.InterTurnDelayCapSeconds = &r, &d, &capS
			c.Input.Extra = []ExtraInput{{Key: "ignore_eos", Value: []byte(`"false"`)}}
		}, nil, []string{"--request-rate / --user-centric-rate / --fixed-schedule", "extra_inputs.ignore_eos",
			"--input-file (loader)", "--benchmark-duration", "--inter-turn-delay-cap-seconds"}},
		{"agentic replay locks", func(c *Config) {
			trace(c)
			c.Compat.UnsafeOverride = true
			capS, isl, sys := 2.0, 4096, 5.0
			c.Dataset.IgnoreTraceDelays, c.Dataset.Synthesis.MaxISL, c.Prompt.CacheBust = true, &isl, "system_prefix"
			c.Shape.TraceIdleGapCapSeconds, c.Shape.SystemIdleGapCapSeconds = &capS, &sys
		}, nil, []string{"--ignore-trace-delays", "--synthesis-max-isl", "--input-file (loader)", "--cache-bust",
			"--trace-idle-gap-cap-seconds", "--system-idle-gap-cap-seconds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scenarioConfig(tt.edit)
			out, err := c.ApplyScenario()
			if tt.wantErr != nil {
				if !errors.Is(err, ErrScenarioLock) {
					t.Fatalf("ApplyScenario() error = %v, want a lock error", err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error lacks %q:\n%v", w, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var flags []string
			for _, v := range out.Violations {
				flags = append(flags, v.Flag)
			}
			if !slices.Equal(flags, tt.wantVios) {
				t.Errorf("violations %q, want %q", flags, tt.wantVios)
			}
			if out.SubmissionValid == nil || *out.SubmissionValid || !slices.Equal(out.SubmissionInvalidReasons, []string{"unsafe_override"}) {
				t.Errorf("outcome %+v, want submission_valid=false for unsafe_override", out)
			}
		})
	}
}

// TestApplyScenarioFills checks the defaults a scenario fills in, as
// AIPerf's: streaming, ignore_eos, a 1800 s duration and a random seed.
func TestApplyScenarioFills(t *testing.T) {
	t.Parallel()
	c := scenarioConfig(func(c *Config) {
		c.Dataset.Public = "weka_hf"
		c.Compat.UnsafeOverride = true
	})
	out, err := c.ApplyScenario()
	if err != nil {
		t.Fatal(err)
	}
	if !c.Endpoint.Streaming || c.Load.BenchmarkDuration == nil || *c.Load.BenchmarkDuration != 1800 || c.Input.RandomSeed == nil {
		t.Errorf("fills: streaming %v, duration %v, seed %v", c.Endpoint.Streaming, c.Load.BenchmarkDuration, c.Input.RandomSeed)
	}
	if i := slices.IndexFunc(c.Input.Extra, func(e ExtraInput) bool { return e.Key == "ignore_eos" }); i < 0 || string(c.Input.Extra[i].Value) != "true" {
		t.Errorf("extra inputs %+v, want ignore_eos=true injected", c.Input.Extra)
	}
	// weka_hf is an accepted loader and the default concurrency phase
	// becomes agentic_replay: nothing conflicts.
	if len(out.Violations) != 0 || out.SubmissionValid == nil || !*out.SubmissionValid {
		t.Errorf("violations %+v (submission valid %v), want none", out.Violations, out.SubmissionValid)
	}
	if !c.AgenticReplay() {
		t.Errorf("timing mode %q, want the scenario's agentic_replay", c.Shape.TimingMode)
	}
	// The agentic replay's locks fill in AIPerf's values.
	if lo, hi := c.TrajectoryStartRatios(); lo != 0 || hi != 1 || c.Prompt.CacheBust != "first_turn_prefix" ||
		c.Shape.SystemIdleGapCapSeconds == nil || *c.Shape.SystemIdleGapCapSeconds != 10 {
		t.Errorf("fills: ratios %v %v, cache bust %q, system idle cap %v", lo, hi, c.Prompt.CacheBust, c.Shape.SystemIdleGapCapSeconds)
	}
	if err := c.ValidateAgenticReplay(); err != nil {
		t.Errorf("the filled-in scenario fails agentic replay's rules: %v", err)
	}
	for _, lock := range []string{"streaming", "ignore_eos", "forbid_ignore_trace_delays", "forbid_input_truncation", "require_loader", "cache_bust",
		"default_benchmark_duration", "min_benchmark_duration", "trajectory_start_ratios", "system_idle_gap_cap", "random_seed"} {
		if !slices.Contains(out.AppliedLocks, lock) {
			t.Errorf("applied locks %v lack %s", out.AppliedLocks, lock)
		}
	}
	// Without a scenario nothing happens.
	plain := Defaults()
	if out, err := plain.ApplyScenario(); err != nil || out.ScenarioName != "" || plain.Input.RandomSeed != nil {
		t.Errorf("no scenario: %+v, %v", out, err)
	}
}
