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
	for _, lock := range []string{"streaming", "ignore_eos", "require_loader", "default_benchmark_duration", "min_benchmark_duration", "random_seed"} {
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
