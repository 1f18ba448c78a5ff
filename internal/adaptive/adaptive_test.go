package adaptive

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/sla"
)

func filter(t *testing.T, s string) sla.Filter {
	t.Helper()
	f, err := sla.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// ttftWindow is a window of successful requests with these TTFTs.
func ttftWindow(ttfts ...float64) Window {
	w := Window{Elapsed: 2}
	for _, v := range ttfts {
		w.Samples = append(w.Samples, Sample{LatencyMs: v + 50, TTFTMs: v, ITLMs: 5, OSL: 10})
	}
	return w
}

func config(t *testing.T) Config {
	return Config{
		Variable: "concurrency", Min: 1, Max: 20, Integer: true,
		StepPolicy: "sla_margin", BaseStep: 2, MaxStepMultiplier: 4, StepPercent: 25,
		MinCompleted: 2, Sustain: 3 * time.Second,
		Filters: []sla.Filter{filter(t, "time_to_first_token:p95:le:100")},
	}
}

func names(es []Event) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// TestControllerRampThenSustain walks one discovery: two passing windows
// step up by the margin policy, the first failing one sends it back to the
// last passing value, and passing windows complete the sustain.
func TestControllerRampThenSustain(t *testing.T) {
	t.Parallel()
	c, err := New(config(t))
	if err != nil {
		t.Fatal(err)
	}
	s := time.Second
	steps := []struct {
		w      Window
		now    time.Duration
		value  float64
		events []string
		stop   bool
	}{
		// margin (100-20)/100 = 0.8 -> multiplier int(0.8*4) = 3 -> +6
		{ttftWindow(20, 20, 20), 2 * s, 7, []string{"adaptive_window", "adaptive_decision"}, false},
		// one sample: below min_completed_requests, nothing changes
		{ttftWindow(10), 4 * s, 7, []string{"adaptive_window"}, false},
		// margin 0.05 -> multiplier 1 -> +2
		{ttftWindow(90, 95), 6 * s, 9, []string{"adaptive_window", "adaptive_decision"}, false},
		{ttftWindow(150, 160), 8 * s, 7, []string{"adaptive_window", "sustain_started", "boundary_discovered"}, false},
		{ttftWindow(30, 30), 10 * s, 7, []string{"adaptive_window", "adaptive_decision"}, false},
		{ttftWindow(30, 30), 11 * s, 7, []string{"adaptive_window", "adaptive_decision", "adaptive_complete"}, true},
	}
	for i, st := range steps {
		d := c.Assess(st.w, st.now, int64(st.now))
		if c.Value() != st.value || !slices.Equal(names(d.Events), st.events) || d.Stop != st.stop {
			t.Fatalf("window %d: value %v, events %v, stop %v; want %v, %v, %v", i, c.Value(), names(d.Events), d.Stop, st.value, st.events, st.stop)
		}
	}
	var sum map[string]any
	b, err := c.SummaryJSON(Context{PhaseName: "profiling", PhaseKind: "profiling", StrategyType: "ramp_until_fail"})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"status": "completed", "completed_reason": "sustain_duration_completed", "control_variable": "concurrency",
		"control_value": 7.0, "boundary_value": 7.0, "last_passing_value": 7.0, "first_failing_value": 9.0,
		"sustain_windows": 2.0, "sustain_passed_windows": 2.0, "sla_passed_during_sustain": true,
	} {
		if sum[k] != want {
			t.Errorf("summary %s = %v; want %v", k, sum[k], want)
		}
	}
	if n := len(sum["candidates"].([]any)); n != 6 {
		t.Errorf("%d candidates; want one per window, 6", n)
	}
}

func TestControllerEnds(t *testing.T) {
	t.Parallel()
	s := time.Second
	t.Run("no passing value", func(t *testing.T) {
		c, _ := New(config(t))
		d := c.Assess(ttftWindow(500, 500), s, 1)
		if !d.Stop || c.status != "failed" || c.reason != "no_sustainable_concurrency_found" {
			t.Errorf("a first failing window: stop %v, %s %s; want failed, no_sustainable_concurrency_found", d.Stop, c.status, c.reason)
		}
	})
	t.Run("all failed", func(t *testing.T) {
		c, _ := New(config(t))
		d := c.Assess(Window{Errors: 3, Elapsed: 1}, s, 1)
		if !d.Stop || c.reason != "no_sustainable_concurrency_found" || names(d.Events)[0] != "adaptive_window" {
			t.Errorf("errors only: %v %s", names(d.Events), c.reason)
		}
	})
	t.Run("max without saturation", func(t *testing.T) {
		cfg := config(t)
		cfg.Max = 3
		c, _ := New(cfg)
		c.Assess(ttftWindow(1, 1), s, 1) // 1 -> 3 (clamped)
		d := c.Assess(ttftWindow(1, 1), 2*s, 2)
		if !d.Stop || c.status != "incomplete" || c.Value() != 3 {
			t.Errorf("at max: stop %v status %s value %v; want incomplete at 3", d.Stop, c.status, c.Value())
		}
	})
	t.Run("sustain recovers once, then fails", func(t *testing.T) {
		cfg := config(t)
		cfg.StepPolicy = "fixed_percent_step"
		c, _ := New(cfg)
		c.Assess(ttftWindow(10, 10), s, 1)   // 1 -> 2 (25% of 1, at least 1)
		c.Assess(ttftWindow(10, 10), 2*s, 2) // 2 -> 3
		c.Assess(ttftWindow(500), 3*s, 3)    // inconclusive (1 sample)
		c.Assess(ttftWindow(500, 500), 4*s, 4)
		if c.Phase() != PhaseSustain || c.Value() != 2 {
			t.Fatalf("phase %s value %v; want sustain at 2", c.Phase(), c.Value())
		}
		d := c.Assess(ttftWindow(500, 500), 5*s, 5) // recovery: a step down from 2
		if c.Value() != 1 || d.Stop {
			t.Fatalf("recovery: value %v stop %v; want 1, running", c.Value(), d.Stop)
		}
		d = c.Assess(ttftWindow(500, 500), 6*s, 6)
		if !d.Stop || c.reason != "sustain_failed_after_recovery" {
			t.Errorf("second failure: %s", c.reason)
		}
	})
	t.Run("phase stopped", func(t *testing.T) {
		c, _ := New(config(t))
		es := c.Stop("phase_stopped", "adaptive_complete", 1)
		if len(es) != 1 || c.status != "completed" || c.Stop("again", "x", 2) != nil {
			t.Errorf("Stop: %v %s", names(es), c.status)
		}
	})
}

func TestWindowSource(t *testing.T) {
	t.Parallel()
	w := Window{Elapsed: 2, Errors: 1, Cancelled: 1, Samples: []Sample{
		{LatencyMs: 100, TTFTMs: 10, ITLMs: 2, OSL: 20},
		{LatencyMs: 200, TTFTMs: 30, ITLMs: math.NaN(), OSL: 40},
	}}
	src := windowSource{w: &w, filters: []sla.Filter{filter(t, "request_latency:p95:le:150")}}
	for _, tc := range []struct {
		metric, stat string
		want         float64
	}{
		{"request_latency", "avg", 150}, {"request_latency", "p50", 150}, {"request_latency", "p95", 195},
		{"time_to_first_token", "max", 30}, {"inter_token_latency", "avg", 2},
		{"request_throughput", "avg", 1}, {"output_token_throughput", "avg", 30},
		{"goodput", "avg", 0.5}, {"goodput_ratio", "avg", 0.25}, {"success_rate", "avg", 0.5},
		{"error_rate", "avg", 100.0 / 3}, {"cancellation_rate", "avg", 0.25},
	} {
		got, ok := src.Value(tc.metric, tc.stat)
		if !ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Value(%s, %s) = %v, %v; want %v", tc.metric, tc.stat, got, ok, tc.want)
		}
	}
	if v, _ := (windowSource{w: &Window{}}).Value("time_to_first_token", "p95"); !math.IsInf(v, 1) {
		t.Errorf("TTFT of an empty window = %v; want +Inf (fails)", v)
	}
}

func TestEventJSONKeys(t *testing.T) {
	t.Parallel()
	c, _ := New(config(t))
	d := c.Assess(ttftWindow(20, 20), time.Second, 1_700_000_000_000_000_000)
	b, err := c.EventJSON(d.Events[1], Context{RunID: "r", PhaseName: "profiling", PhaseKind: "profiling", StrategyType: "ramp_until_fail"})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"event": "adaptive_decision", "phase": "discover", "control_value_before": 1.0, "control_value_after": 7.0,
		"step_size": 6.0, "sla_metric": "time_to_first_token", "sla_bound": 100.0, "timestamp_utc": "2023-11-14T22:13:20.000000Z",
		"binding_sla": "time_to_first_token:p95:le:100", "schema_version": 2.0,
	} {
		if m[k] != want {
			t.Errorf("event %s = %v; want %v", k, m[k], want)
		}
	}
}
