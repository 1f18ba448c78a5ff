package config

import (
	"slices"
	"testing"
)

func TestValidateLoadShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		modify func(*Config)
		want   []string // flags with problems, in order
	}{
		{"prefill ok", func(c *Config) {
			c.Endpoint.Streaming, c.Load.Concurrency, c.Shape.PrefillConcurrency = true, ptr(8), ptr(2)
		}, nil},
		{"prefill needs streaming and <= concurrency", func(c *Config) {
			c.Load.Concurrency, c.Shape.PrefillConcurrency = ptr(2), ptr(4)
		}, []string{"--prefill-concurrency", "--prefill-concurrency"}},
		{"ramps ok", func(c *Config) {
			c.Load.Concurrency, c.Load.RequestRate = ptr(8), ptr(5.0)
			c.Shape.ConcurrencyRamp, c.Shape.RateRamp = &Ramp{Duration: 3}, &Ramp{Duration: 2, Strategy: RampExponential}
		}, nil},
		{"ramps without targets", func(c *Config) {
			c.Shape.ConcurrencyRamp, c.Shape.PrefillRamp, c.Shape.RateRamp = &Ramp{Duration: 3}, &Ramp{Duration: 1}, &Ramp{Duration: -1, Strategy: "cubic"}
		}, []string{"--request-rate-ramp-duration", "--request-rate-ramp-duration", "--concurrency-ramp-duration", "--request-rate-ramp-duration"}},
		{"series ok", func(c *Config) { c.Shape.RateSeries = []RatePoint{{0, 1}, {10, 5}} }, nil},
		{"series excludes rate; points checked", func(c *Config) {
			c.Load.RequestRate = ptr(3.0)
			c.Shape.RateSeries = []RatePoint{{5, 1}, {5, 0}}
		}, []string{"--request-rate-series", "--request-rate-series", "--request-rate-series"}},
		{"user-centric ok", func(c *Config) {
			c.Conversation.TurnsMean, c.Shape.UserCentricRate, c.Shape.NumUsers = 3, ptr(10.0), ptr(4)
		}, nil},
		{"user-centric rules", func(c *Config) {
			c.Load.RequestRate, c.Load.RequestCount = ptr(1.0), ptr(2)
			c.Shape.UserCentricRate, c.Shape.NumUsers = ptr(10.0), ptr(4)
		}, []string{"--user-centric-rate", "--user-centric-rate", "--request-count"}},
		{"num-users alone", func(c *Config) { c.Shape.NumUsers = ptr(4) }, []string{"--num-users"}},
		{"warmup load ok", func(c *Config) {
			c.Warmup.Duration, c.Shape.Warmup.Concurrency, c.Shape.Warmup.GracePeriod = ptr(5.0), ptr(2), ptr(Seconds(3))
		}, nil},
		{"warmup load without a warmup", func(c *Config) {
			c.Shape.Warmup.Concurrency, c.Shape.Warmup.ArrivalPattern = ptr(2), ArrivalConcurrencyBurst
		}, []string{"--warmup-arrival-pattern", "--warmup-concurrency"}},
		{"agentic flags outside agentic replay (the run warns)", func(c *Config) { c.Shape.BurstPhaseStarts = true }, nil},
		{"cache warmup needs agentic replay", func(c *Config) { c.Shape.AgenticCacheWarmup = ptr(30.0) }, []string{"--agentic-cache-warmup-duration"}},
		{"agentic replay ok", func(c *Config) {
			c.Shape.TimingMode, c.Shape.AgenticCacheWarmup, c.Shape.BurstPhaseStarts = TimingAgenticReplay, ptr(30.0), true
			c.Shape.SystemIdleGapCapSeconds, c.Shape.TrajectoryStartMinRatio, c.Shape.TrajectoryStartMaxRatio = ptr(10.0), ptr(0.0), ptr(1.0)
		}, nil},
		{"agentic replay conflicts", func(c *Config) {
			c.Shape.TimingMode, c.Load.RequestRate, c.Prompt.CacheBust = TimingAgenticReplay, ptr(3.0), "warmup_isolation_first_turn"
			c.Cluster.Workers = 2
		}, []string{"--request-rate", "--workers", "--cache-bust", "--workers"}},
		{"unknown timing mode", func(c *Config) { c.Shape.TimingMode = "request_rate" }, []string{"timing_mode"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			tc.modify(&c)
			got := flagsOf(c.Validate())
			if !slices.Equal(got, tc.want) {
				t.Errorf("Validate() problems on %v; want %v (%v)", got, tc.want, c.Validate())
			}
		})
	}
}

func TestValidateAdaptiveScale(t *testing.T) {
	t.Parallel()
	base := func(c *Config) {
		c.Load.Concurrency, c.Load.BenchmarkDuration = ptr(16), ptr(60.0)
		a := NewAdaptiveScale()
		a.SustainDuration, a.AssessmentPeriod = 10, 2
		a.SLA = []string{"time_to_first_token:p95:le:300"}
		c.Shape.Adaptive = a
	}
	tests := []struct {
		name   string
		modify func(*Config)
		errs   int
	}{
		{"ok", func(*Config) {}, 0},
		{"max inferred from concurrency", func(c *Config) { c.Load.Concurrency = nil }, 1},
		{"needs sustain and sla", func(c *Config) { c.Shape.Adaptive.SustainDuration, c.Shape.Adaptive.SLA = 0, nil }, 2},
		{"phase sla stands in", func(c *Config) { c.Shape.SLA, c.Shape.Adaptive.SLA = c.Shape.Adaptive.SLA, nil }, 0},
		{"not with a concurrency ramp", func(c *Config) { c.Shape.ConcurrencyRamp = &Ramp{Duration: 5} }, 1},
		{"rate variable needs a rate", func(c *Config) { c.Shape.Adaptive.Variable = AdaptiveRequestRate }, 2},
		{"integer bounds", func(c *Config) { c.Shape.Adaptive.Min = 1.5 }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := valid()
			base(&c)
			tc.modify(&c)
			if got := flagsOf(c.Validate()); len(got) != tc.errs {
				t.Errorf("Validate() = %v; want %d problems", c.Validate(), tc.errs)
			}
		})
	}
}

func TestParseRateSeries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		doc  string
		want []RatePoint
		ok   bool
	}{
		{`[{"time_s": 0, "qps": 2}, {"time_s": 5, "qps": 4}]`, []RatePoint{{0, 2}, {5, 4}}, true},
		{`{"points": [{"time_s": 0, "qps": 2}]}`, []RatePoint{{0, 2}}, true},
		{`{"points": [], "extra": 1}`, nil, false},
		{`[{"time_s": 0, "rate": 2}]`, nil, false},
		{`[{"time_s": 0}]`, nil, false},
		{`nope`, nil, false},
	} {
		got, err := ParseRateSeries([]byte(tc.doc), "s.json")
		if (err == nil) != tc.ok || (tc.ok && !slices.Equal(got, tc.want)) {
			t.Errorf("ParseRateSeries(%s) = %v, %v; want %v, ok %v", tc.doc, got, err, tc.want, tc.ok)
		}
	}
}
