package gpu

import (
	"math"
	"slices"
	"sort"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Window is an inclusive time range in Unix ns; a nil bound is open.
// Counters measure from the last sample before Start.
type Window struct {
	Start, End *int64
}

// Bounded is a Window with both bounds.
func Bounded(start, end int64) Window { return Window{&start, &end} }

// FieldStats is one field of one GPU over a window. Counters have only
// Avg (the increase, clamped at 0); gauges have everything, NaN samples
// (a scrape that lacked the field) ignored, with the sample standard
// deviation (ddof 1; 0 for one sample). Count counts the window's
// samples.
type FieldStats struct {
	Counter                                   bool
	Avg, Min, Max, Sum, Std                   float64
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64
	Count                                     int
}

// indices returns the window's sample range [lo, hi).
func (g *series) indices(w Window) (int, int) {
	lo, hi := 0, len(g.ts)
	if w.Start != nil {
		lo = sort.Search(len(g.ts), func(i int) bool { return g.ts[i] >= *w.Start })
	}
	if w.End != nil {
		hi = sort.Search(len(g.ts), func(i int) bool { return g.ts[i] > *w.End })
	}
	return lo, max(hi, lo)
}

// fieldStats computes a field's statistics over w; ok is false when the
// GPU has no usable sample of it there.
func (g *series) fieldStats(f Field, w Window) (FieldStats, bool) {
	col := g.vals[f.Name]
	if len(col) == 0 {
		return FieldStats{}, false
	}
	lo, hi := g.indices(w)
	if lo >= hi {
		return FieldStats{}, false
	}
	win := col[lo:hi]
	if f.Counter {
		last, ok := lastValid(win)
		if !ok {
			return FieldStats{}, false
		}
		ref, hasRef := 0.0, false
		if w.Start != nil && lo > 0 {
			ref, hasRef = lastValid(col[:lo])
		}
		if !hasRef {
			ref, _ = firstValid(win)
		}
		return FieldStats{Counter: true, Avg: max(last-ref, 0)}, true
	}
	vals := make([]float64, 0, len(win))
	for _, v := range win {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return FieldStats{}, false
	}
	sum := stats.Summarize(slices.Clone(vals))
	std := 0.0
	if n := len(vals); n > 1 {
		std = sum.Std * math.Sqrt(float64(n)/float64(n-1))
	}
	return FieldStats{
		Avg: sum.Avg, Min: sum.Min, Max: sum.Max, Sum: sum.Sum, Std: std,
		P1: sum.P1, P5: sum.P5, P10: sum.P10, P25: sum.P25, P50: sum.P50,
		P75: sum.P75, P90: sum.P90, P95: sum.P95, P99: sum.P99,
		Count: len(win),
	}, true
}

func lastValid(v []float64) (float64, bool) {
	for i := len(v) - 1; i >= 0; i-- {
		if !math.IsNaN(v[i]) {
			return v[i], true
		}
	}
	return 0, false
}

func firstValid(v []float64) (float64, bool) {
	for _, x := range v {
		if !math.IsNaN(x) {
			return x, true
		}
	}
	return 0, false
}

// MJ is how many joules a megajoule is.
const MJ = 1e6

// TotalPower sums the average power of every GPU of platform over w (W),
// and counts the GPUs that had power samples.
func (s *Store) TotalPower(w Window, platform string) (float64, int) {
	f := Field{Name: PowerField(platform)}
	if f.Name == "" {
		return 0, 0
	}
	var total float64
	n := 0
	s.each(platform, func(g *series) {
		if st, ok := g.fieldStats(f, w); ok {
			total += st.Avg
			n++
		}
	})
	return total, n
}

func (s *Store) each(platform string, fn func(*series)) {
	for _, u := range s.order {
		for _, g := range s.sources[u].order {
			if g.meta.Platform == platform {
				fn(g)
			}
		}
	}
}
