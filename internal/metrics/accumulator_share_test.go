package metrics

import (
	"testing"
	"time"
)

// TestShareSweeps: a slice accumulator that holds only the requests sent
// in [20, 40) ms still reports the requests in flight then (r1, r2 and r3
// of e2eRecords: every one sent before 20 ms), from the run's records
// clipped to its window, as AIPerf's timeslices window the run's sweeps.
func TestShareSweeps(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true})
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	run := NewAccumulator(reg, sel, nil)
	slice := NewAccumulator(reg, sel, nil)
	slice.ShareSweeps(run)
	for _, r := range e2eRecords() {
		p := proc.Process(r)
		run.Add(&p)
		if r.Sent >= 20*time.Millisecond {
			slice.Add(&p) // r4, sent at 20 ms
		}
	}
	run.Summarize() // builds the run's curves first, as the pipeline does
	slice.SetWindow(20*time.Millisecond, 40*time.Millisecond)
	sum := slice.Summarize()
	got, ok := sum.Get("effective_concurrency")
	// In flight over [20, 40): r1 20-31 (11 ms), r2 20-40 (20), r3 20-40
	// (20), r4 20-25 (5): 56 ms over 20 ms.
	if !ok || got.Stats == nil || !approx(got.Stats.Avg, 56.0/20) {
		t.Errorf("slice effective_concurrency = %+v; want avg 2.8 from every request in flight", got.Stats)
	}
	if r, ok := sum.Get("error_request_count"); !ok || r.Value != 1 {
		t.Errorf("slice error_request_count = %v; want 1 (only its own record, r4, failed)", r.Value)
	}
}
