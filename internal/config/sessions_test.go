package config

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestValidateSessionsAndReplay covers the --num-sessions/--session-* and
// --fixed-schedule* rules: each case must yield exactly the listed flags
// (none = valid), and the first message must contain text.
func TestValidateSessionsAndReplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		edit  func(c *Config)
		flags []string
		text  string
	}{
		{"defaults", func(c *Config) {}, nil, ""},
		{"sessions", func(c *Config) { c.Conversation.NumSessions = ptr(5) }, nil, ""},
		// Both bounds apply, as in AIPerf (TestSessionsWithRequestCount).
		{"sessions and request count", func(c *Config) { c.Conversation.NumSessions, c.Load.RequestCount = ptr(5), ptr(10) }, nil, ""},
		{"zero sessions", func(c *Config) { c.Conversation.NumSessions = ptr(0) }, []string{"--num-sessions"}, ">= 1"},
		{"zero turns", func(c *Config) { c.Conversation.TurnsMean = 0 }, []string{"--session-turns-mean"}, ">= 1"},
		{"negative turn stddev", func(c *Config) { c.Conversation.TurnsStddev = -1 }, []string{"--session-turns-stddev"}, ">= 0"},
		{"negative delays and ratio", func(c *Config) {
			c.Conversation.TurnDelayMean, c.Conversation.TurnDelayStddev, c.Conversation.DelayRatio = -1, math.NaN(), math.Inf(1)
		}, []string{"--session-turn-delay-mean", "--session-turn-delay-stddev", "--session-delay-ratio"}, ">= 0"},
		{"delay cap", func(c *Config) { c.Conversation.InterTurnDelayCapSeconds = ptr(0.0) }, nil, ""},
		{"negative delay cap", func(c *Config) { c.Conversation.InterTurnDelayCapSeconds = ptr(-1.0) }, []string{"--inter-turn-delay-cap-seconds"}, ">= 0"},
		{"huge delay cap", func(c *Config) { c.Conversation.InterTurnDelayCapSeconds = ptr(1e300) }, []string{"--inter-turn-delay-cap-seconds"}, "at most"},
		{"session header", func(c *Config) { c.Conversation.SessionHeader = "X-Session-ID" }, nil, ""},
		{"bad session header", func(c *Config) { c.Conversation.SessionHeader = "X Session" }, []string{"--session-header"}, "header name"},
		{"warmup sessions", func(c *Config) { c.Conversation.NumWarmupSessions = ptr(2) }, nil, ""},
		{"warmup sessions and requests", func(c *Config) { c.Conversation.NumWarmupSessions, c.Warmup.RequestCount = ptr(2), ptr(3) }, nil, ""},
		{"fixed schedule window", func(c *Config) {
			c.Replay.FixedSchedule, c.Replay.StartOffset, c.Replay.EndOffset = true, ptr(10), ptr(20)
		}, nil, ""},
		{"window on an input file", func(c *Config) { c.Dataset.InputFile, c.Replay.AutoOffset = "trace.jsonl", true }, nil, ""},
		{"window without a fixed schedule", func(c *Config) { c.Replay.EndOffset = ptr(20) }, []string{"--fixed-schedule-end-offset"}, "requires a fixed schedule"},
		{"start after end", func(c *Config) {
			c.Replay.FixedSchedule, c.Replay.StartOffset, c.Replay.EndOffset = true, ptr(30), ptr(20)
		}, []string{"--fixed-schedule-start-offset"}, "<="},
		{"negative offsets", func(c *Config) {
			c.Replay.FixedSchedule, c.Replay.StartOffset, c.Replay.EndOffset = true, ptr(-1), ptr(-2)
		}, []string{"--fixed-schedule-start-offset", "--fixed-schedule-end-offset", "--fixed-schedule-start-offset"}, ">= 0"},
		{"auto offset and start offset", func(c *Config) {
			c.Replay.FixedSchedule, c.Replay.AutoOffset, c.Replay.StartOffset = true, true, ptr(1)
		}, []string{"--fixed-schedule-auto-offset"}, "cannot be combined"},
		{"fixed and no fixed", func(c *Config) { c.Replay.FixedSchedule, c.Replay.NoFixedSchedule = true, true }, []string{"--no-fixed-schedule"}, "--fixed-schedule"},
		{"window with no fixed schedule", func(c *Config) {
			c.Dataset.InputFile, c.Replay.NoFixedSchedule, c.Replay.AutoOffset = "t.jsonl", true, true
		}, []string{"--fixed-schedule-auto-offset"}, "no effect"},
		{"sampling with fixed schedule", func(c *Config) {
			c.Replay.FixedSchedule, c.Dataset.SamplingStrategy = true, SamplingRandom
		}, []string{"--dataset-sampling-strategy"}, "timestamp order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.edit(&c)
			err := c.Validate()
			got := flagsOf(err)
			if !slices.Equal(got, tc.flags) {
				t.Fatalf("problems %v (%v), want %v", got, err, tc.flags)
			}
			if tc.text != "" && !strings.Contains(err.Error(), tc.text) {
				t.Errorf("%q lacks %q", err, tc.text)
			}
		})
	}
}

func TestSessionsResolve(t *testing.T) {
	t.Parallel()
	c := valid()
	if c.RequestCount() != 10 || c.WarmupEnabled() {
		t.Fatalf("defaults: count %d, warmup %v", c.RequestCount(), c.WarmupEnabled())
	}
	c.Conversation.NumSessions = ptr(3)
	if c.RequestCount() != 0 {
		t.Errorf("with --num-sessions the request count is %d, want 0 (sessions stop the run)", c.RequestCount())
	}
	c.Conversation.NumWarmupSessions = ptr(1)
	if !c.WarmupEnabled() {
		t.Error("--num-warmup-sessions does not enable warmup")
	}
	if _, ok := c.InterTurnDelayCap(); ok {
		t.Error("a cap without --inter-turn-delay-cap-seconds")
	}
	c.Conversation.InterTurnDelayCapSeconds = ptr(1.5)
	if n, ok := c.InterTurnDelayCap(); !ok || n != 1_500_000_000 {
		t.Errorf("cap = %d, %v", n, ok)
	}
	if !c.FixedScheduleWanted(true) || c.FixedScheduleWanted(false) {
		t.Error("timestamps alone must switch to fixed schedule, their absence must not")
	}
	c.Replay.NoFixedSchedule = true
	if c.FixedScheduleWanted(true) {
		t.Error("--no-fixed-schedule did not keep the load mode")
	}
}
