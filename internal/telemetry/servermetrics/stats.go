package servermetrics

import (
	"math"
	"slices"
	"sort"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Window is an inclusive time range in Unix nanoseconds. Cumulative
// metrics (counters, histograms) measure from a reference sample: the last
// one before Start, or the first inside the window when there is none.
type Window struct{ Start, End int64 }

// GaugeStats summarises a gauge's samples in a window: mean, extremes,
// sample standard deviation (ddof 1; 0 for one sample) and numpy-linear
// percentiles.
type GaugeStats struct {
	Avg, Min, Max, Std                        float64
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64
}

// CounterStats is a counter's increase over a window (clamped at 0 when it
// went down, i.e. was reset) and that increase per second of the time
// between the reference sample and the last sample.
type CounterStats struct {
	Total, Rate float64
}

// HistogramStats is a histogram's observations in a window. CountRate and
// SumRate are nil when the window spans no time; Estimates is nil when the
// buckets cannot support them (a reset, or no observations).
type HistogramStats struct {
	Count              int64
	Sum, Avg           float64
	CountRate, SumRate *float64
	Estimates          *Estimates
}

// first returns the index of the first timestamp >= t (len when none).
func first(ts []int64, t int64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] >= t })
}

// afterLast returns one past the index of the last timestamp <= t.
func afterLast(ts []int64, t int64) int {
	return sort.Search(len(ts), func(i int) bool { return ts[i] > t })
}

// gaugeStats summarises s over w; ok is false when no sample lies in w.
func gaugeStats(s *scalarSeries, w Window) (GaugeStats, bool) {
	lo, hi := first(s.ts, w.Start), afterLast(s.ts, w.End)
	if lo >= hi {
		return GaugeStats{}, false
	}
	vals := slices.Clone(s.vals[lo:hi])
	sum := stats.Summarize(vals)
	std := 0.0
	if n := len(vals); n > 1 {
		std = sum.Std * math.Sqrt(float64(n)/float64(n-1))
	}
	return GaugeStats{
		Avg: sum.Avg, Min: sum.Min, Max: sum.Max, Std: std,
		P1: sum.P1, P5: sum.P5, P10: sum.P10, P25: sum.P25, P50: sum.P50,
		P75: sum.P75, P90: sum.P90, P95: sum.P95, P99: sum.P99,
	}, true
}

// counterStats measures s over w; ok is false when no sample lies in w.
func counterStats(s *scalarSeries, w Window) (CounterStats, bool) {
	lo, hi := first(s.ts, w.Start), afterLast(s.ts, w.End)
	if lo >= hi {
		return CounterStats{}, false
	}
	ref := lo
	if lo > 0 {
		ref = lo - 1
	}
	total := max(s.vals[hi-1]-s.vals[ref], 0)
	var rate float64
	if d := s.ts[hi-1] - s.ts[ref]; d > 0 {
		rate = total / (float64(d) / 1e9)
	}
	return CounterStats{Total: total, Rate: rate}, true
}

// histStats measures h over w. It mirrors AIPerf: the reference is the last
// snapshot before w.Start (else the first snapshot), the final one the last
// at or before w.End; when there is no final snapshot ok is false.
// buckets are the per-bucket increases (cumulative, keyed by les), nil
// after a reset.
func histStats(h *histSeries, w Window) (st HistogramStats, buckets []float64, ok bool) {
	if len(h.ts) == 0 {
		return HistogramStats{}, nil, false
	}
	final := afterLast(h.ts, w.End) - 1
	if final < 0 {
		return HistogramStats{}, nil, false
	}
	ref := first(h.ts, w.Start) - 1
	start := max(ref, 0)
	sumDelta := max(h.sums[final]-h.sums[start], 0)
	countDelta := max(int64(h.counts[final]-h.counts[start]), 0)
	buckets = make([]float64, len(h.les))
	for k := range h.les {
		d := h.cum[final][k] - h.cum[start][k]
		if d < 0 {
			buckets = nil
			break
		}
		buckets[k] = math.Trunc(d)
	}
	if countDelta == 0 {
		return HistogramStats{Count: 0}, buckets, true
	}
	st = HistogramStats{Count: countDelta, Sum: sumDelta, Avg: sumDelta / float64(countDelta)}
	if d := h.ts[final] - h.ts[start]; d > 0 {
		secs := float64(d) / 1e9
		cr, sr := float64(countDelta)/secs, sumDelta/secs
		st.CountRate, st.SumRate = &cr, &sr
	}
	if len(buckets) > 0 {
		learned := learnBuckets(h, start)
		st.Estimates = estimatePercentiles(h.les, h.bounds, buckets, learned, sumDelta, countDelta)
	}
	return st, buckets, true
}
