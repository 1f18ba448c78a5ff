package sweep

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Stats are time-weighted statistics of a step function over a window:
// the mean and standard deviation weighted by how long each value held,
// the smallest and largest value held, and duration-weighted percentiles
// (the smallest value held for at least that fraction of the time).
type Stats struct {
	Avg, Min, Max, P50, P90, P95, P99, Std float64
}

// segment is a value held for a duration.
type segment struct{ val, dur float64 }

// clip returns the segments of s inside [w0, w1] with positive duration
// (AIPerf's _build_clipped_segments).
func clip(s Step, w0, w1 float64) []segment {
	lo := max(0, sort.Search(len(s.TS), func(i int) bool { return s.TS[i] > w0 })-1)
	hi := min(len(s.TS), sort.SearchFloat64s(s.TS, w1)+1)
	ts, vals := s.TS[lo:hi], s.Val[lo:hi]
	starts := append([]float64{w0}, ts...)
	values := make([]float64, 0, len(ts)+1)
	if lo > 0 {
		values = append(values, s.Val[lo-1])
	} else {
		values = append(values, 0)
	}
	values = append(values, vals...)
	var out []segment
	for i := range starts {
		end := w1
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		d := math.Max(math.Min(end, w1)-math.Max(starts[i], w0), 0)
		if d > 0 {
			out = append(out, segment{values[i], d})
		}
	}
	return out
}

// TimeWeighted returns the time-weighted statistics of s over [w0, w1]
// (AIPerf's compute_time_weighted_stats); all zero when s is empty or the
// window is not positive. Time outside every event counts as value 0 in
// the mean over the whole window.
func TimeWeighted(s Step, w0, w1 float64) Stats {
	total := w1 - w0
	if s.Len() == 0 || !(total > 0) {
		return Stats{}
	}
	return weighted(clip(s, w0, w1), total)
}

// ActiveWeighted returns the time-weighted statistics of rate over the
// parts of [w0, w1] where mask is positive (AIPerf's
// compute_active_weighted_stats): the intensity while, say, some request
// is decoding, not diluted by idle time.
func ActiveWeighted(rate, mask Step, w0, w1 float64) Stats {
	total := w1 - w0
	if !(total > 0) || rate.Len() == 0 || mask.Len() == 0 {
		return Stats{}
	}
	inside := func(ts []float64) []float64 {
		lo := sort.Search(len(ts), func(i int) bool { return ts[i] > w0 })
		hi := sort.SearchFloat64s(ts, w1)
		if lo >= hi {
			return nil
		}
		return ts[lo:hi]
	}
	grid := slices.Concat([]float64{w0, w1}, inside(rate.TS), inside(mask.TS))
	slices.Sort(grid)
	grid = slices.Compact(grid)
	if len(grid) < 2 {
		return Stats{}
	}
	var segs []segment
	active := 0.0
	for i := 0; i+1 < len(grid); i++ {
		d := grid[i+1] - grid[i]
		if mask.At(grid[i]) > 0 && d > 0 {
			segs = append(segs, segment{rate.At(grid[i]), d})
			active += d
		}
	}
	if len(segs) == 0 || !(active > 0) {
		return Stats{}
	}
	return weighted(segs, active)
}

// weighted computes the statistics of segments over a total duration.
func weighted(segs []segment, total float64) Stats {
	if len(segs) == 0 {
		return Stats{}
	}
	var sum float64
	mn, mx := math.Inf(1), math.Inf(-1)
	for _, s := range segs {
		sum += s.val * s.dur
		mn, mx = math.Min(mn, s.val), math.Max(mx, s.val)
	}
	avg := sum / total
	var sq float64
	for _, s := range segs {
		sq += s.dur * (s.val - avg) * (s.val - avg)
	}
	st := Stats{Avg: avg, Min: mn, Max: mx, Std: math.Sqrt(sq / total)}

	sorted := slices.Clone(segs)
	slices.SortStableFunc(sorted, func(a, b segment) int { return cmp.Compare(a.val, b.val) })
	cum := make([]float64, len(sorted))
	acc := 0.0
	for i, s := range sorted {
		acc += s.dur
		cum[i] = acc
	}
	at := func(q float64) float64 {
		// numpy.searchsorted(cum/cum[-1], q) (side left): the first
		// segment whose cumulative share reaches q.
		i := sort.Search(len(cum), func(i int) bool { return cum[i]/acc >= q })
		return sorted[min(i, len(sorted)-1)].val
	}
	st.P50, st.P90, st.P95, st.P99 = at(0.50), at(0.90), at(0.95), at(0.99)
	return st
}
