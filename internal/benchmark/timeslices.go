package benchmark

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics"
)

// timeslicer folds the profiling records into fixed-width time slices by
// when each request was sent (--slice-duration), one Accumulator per slice,
// so every slice gets the same metrics, statistics and units as the whole
// run. The record consumer is its only user.
//
// Slices start at the earliest request start, as AIPerf 0.13's: the
// origin is the earliest Sent stamped so far (counters.firstSent, noted
// the moment each Sent is stamped, before its bytes go out), read when the
// first record arrives, a whole round trip after the first sends; so every
// record's Sent is at or after it and slice 0 holds the first requests,
// connection set-up included. A slice covers [start, start+width); the last one ends at the
// last response when that comes first, so its throughputs divide by the
// time that had traffic. Slices without records are left out.
type timeslicer struct {
	width  time.Duration
	counts *counters // the profiling phase's, for firstSent
	newAcc func() *metrics.Accumulator

	origin    time.Duration
	hasOrigin bool
	accs      []*metrics.Accumulator // by slice index; nil = empty
	maxEnd    time.Duration
}

// newTimeslicer returns nil when the plan asks for no slices. Each slice's
// sweep metrics (effective concurrency, active throughputs) come from run,
// the whole phase's accumulator, clipped to the slice (see ShareSweeps).
func newTimeslicer(p *Plan, profiling *counters, run *metrics.Accumulator) *timeslicer {
	d, ok := p.Config.SliceDuration()
	if !ok {
		return nil
	}
	return &timeslicer{
		width:  d,
		counts: profiling,
		newAcc: func() *metrics.Accumulator {
			a := metrics.NewAccumulator(p.Registry, p.Metrics, p.SLOs)
			a.ShareSweeps(run)
			return a
		},
	}
}

// add folds one profiling record into its slice. A nil timeslicer does
// nothing.
func (t *timeslicer) add(p *metrics.Processed) {
	if t == nil {
		return
	}
	rec := p.Record
	if !t.hasOrigin {
		first := t.counts.firstSent.Load()
		t.origin, t.hasOrigin = time.Duration(first-1), first > 0
		if !t.hasOrigin {
			t.origin, t.hasOrigin = rec.Sent, true
		}
	}
	i := max(0, int((rec.Sent-t.origin)/t.width))
	for len(t.accs) <= i {
		t.accs = append(t.accs, nil)
	}
	if t.accs[i] == nil {
		t.accs[i] = t.newAcc()
	}
	t.accs[i].Add(p)
	t.maxEnd = max(t.maxEnd, rec.End, rec.Sent)
}

// slices summarises every non-empty slice, in time order, with wall-clock
// bounds from toWall. A nil timeslicer has none.
func (t *timeslicer) slices(toWall func(time.Duration) time.Time) []export.Timeslice {
	if t == nil {
		return nil
	}
	var out []export.Timeslice
	for i, acc := range t.accs {
		if acc == nil {
			continue
		}
		start := t.origin + time.Duration(i)*t.width
		end := start + t.width
		complete := end <= t.maxEnd
		if !complete {
			end = t.maxEnd
		}
		acc.SetWindow(start, end)
		out = append(out, export.Timeslice{
			Start: toWall(start), End: toWall(end), Complete: complete,
			Summary: acc.Summarize(),
		})
	}
	return out
}
