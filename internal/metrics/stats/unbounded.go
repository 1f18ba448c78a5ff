package stats

import (
	"math"
	"slices"
)

// SummarizeUnbounded describes values plus unbounded samples that never
// finished (+Inf each): AIPerf's error-adjusted distribution, in which
// every failed request counts as a latency without end. It sorts values in
// place.
//
// With unbounded > 0, Avg, Sum and Max are +Inf and Std is NaN (undefined
// over a sample holding +Inf; AIPerf leaves it out); Min is the smallest
// finite value (+Inf when values is empty). The percentiles use numpy's
// "nearest" method over the sorted finite values followed by the +Inf
// samples: index round-half-even((n-1) * q/100), +Inf when the index falls
// among the unbounded samples. Linear interpolation would give NaN at the
// boundary (Inf - Inf), which is why AIPerf picks the nearest sample.
// With unbounded == 0 it is Summarize with nearest percentiles.
func SummarizeUnbounded(values []float64, unbounded int) Summary {
	unbounded = max(unbounded, 0)
	n := len(values) + unbounded
	if n == 0 {
		return Summary{}
	}
	slices.Sort(values)
	s := Summary{Count: n}
	pct := func(q float64) float64 {
		i := int(math.RoundToEven(float64(n-1) * (q / 100)))
		if i >= len(values) {
			return math.Inf(1)
		}
		return values[i]
	}
	s.P1, s.P5, s.P10, s.P25, s.P50 = pct(Quantiles[0]), pct(Quantiles[1]), pct(Quantiles[2]), pct(Quantiles[3]), pct(Quantiles[4])
	s.P75, s.P90, s.P95, s.P99 = pct(Quantiles[5]), pct(Quantiles[6]), pct(Quantiles[7]), pct(Quantiles[8])
	if unbounded > 0 {
		inf := math.Inf(1)
		s.Avg, s.Sum, s.Max, s.Std, s.Min = inf, inf, inf, math.NaN(), inf
		if len(values) > 0 {
			s.Min = values[0]
		}
		return s
	}
	full := Summarize(values)
	s.Avg, s.Sum, s.Min, s.Max, s.Std = full.Avg, full.Sum, full.Min, full.Max, full.Std
	return s
}
