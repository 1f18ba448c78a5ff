package metrics

import (
	"math"
	"testing"
)

// TestAccumulatorSweepMetrics checks the time-weighted sweep metrics on the
// hand-computable e2eRecords over the phase window [0, 71 ms] (the phase
// starts at 0; r3 ends last at 71 ms): every integral is a sum of request
// intervals or tokens, divided by the window.
//
//	in flight  r1 [0,31) r2 [5,46) r3 [10,71) r4 [20,25) (failed)  138 ms
//	prefill    r1 [0,10) r2 [5,25) r3 [10,40)                       60 ms
//	decode     r1 [10,31) r2 [25,46) r3 [40,71)                     73 ms
//	tokens     decode (osl-1): 5+3+7 = 15; prefill (isl): 10+10+10 = 30
func TestAccumulatorSweepMetrics(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true})
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	acc := NewAccumulator(reg, sel, nil)
	for _, r := range e2eRecords() {
		p := proc.Process(r)
		acc.Add(&p)
	}
	acc.SetPhaseStart(0)
	s := acc.Summarize()
	const window = 71.0 // ms
	for tag, want := range map[string]float64{
		"effective_concurrency":         138 / window,
		"effective_prefill_concurrency": 60 / window,
		"effective_decode_concurrency":  73 / window,
		"effective_decode_throughput":   15 / (window / 1000),
		"effective_prefill_throughput":  30 / (window / 1000),
		"effective_total_throughput":    45 / (window / 1000),
	} {
		r, ok := s.Get(tag)
		if !ok || r.Stats == nil {
			t.Fatalf("%s missing", tag)
		}
		if !approx(r.Stats.Avg, want) {
			t.Errorf("%s avg = %v, want %v", tag, r.Stats.Avg, want)
		}
		if !r.Stats.TimeWeighted || !math.IsNaN(r.Stats.Sum) || !math.IsNaN(r.Stats.P1) || r.Stats.Count != 0 {
			t.Errorf("%s stats %+v: want time-weighted, no sum, no p1, no count", tag, r.Stats)
		}
	}
	// Active decode throughput divides the same 15 tokens by the time at
	// least one request was decoding: [10, 71) less the gap none was.
	busy := 71.0 - 10 // r1 decodes 10-31, r2 25-46, r3 40-71: no gap
	if r, _ := s.Get("active_decode_throughput"); r.Stats == nil || !approx(r.Stats.Avg, 15/(busy/1000)) {
		t.Errorf("active_decode_throughput = %+v, want avg %v", r.Stats, 15/(busy/1000))
	}
	if r, _ := s.Get(tagCreditToStart); r.Stats == nil || r.Stats.Count != 4 || r.Stats.Max != 2 {
		t.Errorf("credit_to_start_latency = %+v, want 4 records, max 2 ms (r2 and r4 sent 2 ms late)", r.Stats)
	}
	// The console tables: the nine effective metrics, then effective_latency.
	var effective []string
	for _, r := range s.Results {
		if r.Metric.Group == GroupEffective {
			effective = append(effective, r.Metric.Tag)
		}
	}
	if len(effective) != 10 || effective[0] != "effective_concurrency" || effective[9] != tagEffectiveLatency {
		t.Errorf("Effective table order %v", effective)
	}
}
