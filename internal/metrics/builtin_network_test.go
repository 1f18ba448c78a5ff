package metrics

import (
	"testing"
	"time"
)

// The round trip shifts every request-start-anchored latency, each value
// clamped at 0, and is reported as network_rtt; the raw metrics are kept,
// and without a round trip none of the adjusted metrics appears.
func TestNetworkAdjustedMetrics(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	build := func(rtt time.Duration) Summary {
		acc := NewAccumulator(reg, sel, nil)
		// TTFT 10, 20 and 30 ms; request latency 40, 50 and 60 ms.
		for i, ttft := range []float64{10, 20, 30} {
			p := proc.Process(streamRec(100*float64(i), 1, 100*float64(i)+ttft, 100*float64(i)+ttft+30))
			acc.Add(&p)
		}
		acc.SetNetworkRTT(float64(rtt))
		return acc.Summarize()
	}
	plain := build(0)
	for _, tag := range []string{"network_adjusted_time_to_first_token", "network_adjusted_request_latency", tagNetworkRTT} {
		if _, ok := plain.Get(tag); ok {
			t.Errorf("%s present without a round trip", tag)
		}
	}
	s := build(15 * time.Millisecond)
	for _, c := range []struct {
		tag           string
		avg, min, p50 float64
		count         int
	}{
		{"network_adjusted_time_to_first_token", (0 + 5 + 15) / 3.0, 0, 5, 3}, // 10 ms is clamped to 0
		{"network_adjusted_time_to_first_output_token", (0 + 5 + 15) / 3.0, 0, 5, 3},
		{"network_adjusted_request_latency", (25 + 35 + 45) / 3.0, 25, 35, 3},
		{tagNetworkRTT, 15, 15, 15, 1},
		{tagTTFT, 20, 10, 20, 3}, // the raw metric is unchanged
	} {
		r, ok := s.Get(c.tag)
		if !ok || r.Stats == nil {
			t.Errorf("%s missing", c.tag)
			continue
		}
		if !approx(r.Stats.Avg, c.avg) || !approx(r.Stats.Min, c.min) || !approx(r.Stats.P50, c.p50) || r.Stats.Count != c.count {
			t.Errorf("%s: avg %v min %v p50 %v count %d; want %v %v %v %d", c.tag,
				r.Stats.Avg, r.Stats.Min, r.Stats.P50, r.Stats.Count, c.avg, c.min, c.p50, c.count)
		}
		if r.Metric.displayUnit() != UnitMS {
			t.Errorf("%s unit %s; want ms", c.tag, r.Metric.displayUnit())
		}
	}
}
