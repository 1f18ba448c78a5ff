package metrics

import (
	"math"

	"github.com/aiperf-go/aiperf/internal/metrics/sweep"
)

// sweepCols are the per-record columns the sweep metrics need: every
// phase record's start, first token and end (run offsets in ns), token
// counts, and its chunk gaps while they fit the list limit (past it the
// sweeps fall back to request-level timing, as AIPerf's do with its
// t-digest list backend).
type sweepCols struct {
	on     bool
	recs   []sweepRec
	icl    []float64 // chunk gaps in ns, record after record
	iclOff bool      // the gaps passed the limit and were dropped
	// curves caches the step functions built from recs (builtN of them),
	// so accumulators sharing them (ShareSweeps) build them once.
	curves *sweep.Curves
	builtN int
}

// sweepRec is one record's row; its gaps are icl[off:off+n].
type sweepRec struct {
	start, gen, end, isl, osl float64
	off, n                    int32
}

// addSweep records p's row. Failed records count too: they were in flight
// (their token counts are unknown).
func (a *Accumulator) addSweep(p *Processed) {
	r := p.Record
	row := sweepRec{start: float64(r.Sent), gen: math.NaN(), end: float64(r.End), isl: math.NaN(), osl: math.NaN()}
	var gaps []float64
	for i := range p.Values {
		v := &p.Values[i]
		switch v.Metric.Tag {
		case tagTTFT: // streaming: the first token is the first content chunk
			row.gen = float64(p.firstContent)
		case tagISL:
			row.isl = v.Scalar
		case tagOSL:
			row.osl = v.Scalar
		case tagICL:
			gaps = v.List
		}
	}
	if len(gaps) > 0 && !a.sweep.iclOff {
		if l := a.list.limit(); l >= 0 && len(a.sweep.icl)+len(gaps) > l {
			a.sweep.iclOff, a.sweep.icl = true, nil
		} else {
			row.off, row.n = int32(len(a.sweep.icl)), int32(len(gaps))
			for _, g := range gaps {
				a.sweep.icl = append(a.sweep.icl, g*msToNS)
			}
		}
	}
	a.sweep.recs = append(a.sweep.recs, row)
}

// sweepWindow is the window the sweep statistics cover: the explicit one,
// else the phase window, else (AIPerf's fallback) the first start to the
// last end.
func (a *Accumulator) sweepWindow() (w0, w1 float64) {
	switch {
	case a.window > 0:
		return float64(a.windowStart), float64(a.windowStart + a.window)
	case a.hasPhaseStart:
		return float64(a.phaseStart), float64(a.maxEnd)
	}
	w0, w1 = math.Inf(1), math.Inf(-1)
	for _, r := range a.sweep.recs {
		w0, w1 = math.Min(w0, r.start), math.Max(w1, r.end)
	}
	return w0, w1
}

// ShareSweeps makes a's sweep metrics (the effective/active family) the
// step functions of src's records clipped to a's window, instead of
// functions of a's own records. A time slice's accumulator holds only the
// requests sent in the slice, but the requests in flight during it include
// earlier ones: AIPerf 0.13 windows its run-wide sweeps per timeslice, and
// so does this. Call it before the first Add; src must outlive a's
// Summarize.
func (a *Accumulator) ShareSweeps(src *Accumulator) { a.sweepSrc = src }

// built returns the step functions of the columns' records, building them
// again only when records were added since.
func (c *sweepCols) built() *sweep.Curves {
	if c.curves != nil && c.builtN == len(c.recs) {
		return c.curves
	}
	recs := make([]sweep.Record, len(c.recs))
	for i, r := range c.recs {
		recs[i] = sweep.Record{Start: r.start, Gen: r.gen, End: r.end, ISL: r.isl, OSL: r.osl}
		if !c.iclOff && r.n > 0 {
			recs[i].ICL = c.icl[r.off : r.off+r.n]
		}
	}
	curves := sweep.Build(recs, !c.iclOff)
	c.curves, c.builtN = &curves, len(c.recs)
	return c.curves
}

// sweepResults computes every selected sweep metric, in display units,
// keyed by its index in sweep.Metrics(); nil without records.
func (a *Accumulator) sweepResults() map[int]*Stats {
	col := &a.sweep
	if a.sweepSrc != nil {
		col = &a.sweepSrc.sweep
	}
	if !a.sweep.on || len(col.recs) == 0 {
		return nil
	}
	w0, w1 := a.sweepWindow()
	all := col.built().Compute(w0, w1)
	out := make(map[int]*Stats, len(all))
	nan := math.NaN()
	for i, s := range all {
		// The statistics of a step function have no count, sum or low
		// percentiles (AIPerf leaves them out).
		out[i] = &Stats{Avg: s.Avg, Min: s.Min, Max: s.Max, P50: s.P50, P90: s.P90, P95: s.P95, P99: s.P99, Std: s.Std,
			Sum: nan, P1: nan, P5: nan, P10: nan, P25: nan, P75: nan, TimeWeighted: true}
	}
	return out
}
