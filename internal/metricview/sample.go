package metricview

import (
	"cmp"
	"math"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// maxExact is how many (value, weight) pairs a sample keeps before it
// folds into a t-digest: 4M pairs, 64 MB. A pooled per-chunk ITL of a
// long run (every chunk gap of every request) can pass it; below it every
// statistic is exact.
const maxExact = 4 << 20

// wval is a value seen w times.
type wval struct{ v, w float64 }

// sample is a weighted sample: each value counts w times, as if the list
// held w copies. Its percentiles are numpy's linear interpolation over
// that expanded list, computed without expanding it.
type sample struct {
	xs     []wval
	digest *stats.TDigest // set once the sample passed maxExact
	n      float64        // total weight
	sum    float64
}

// add counts v w times (w >= 1, whole). Non-finite values are skipped.
func (s *sample) add(v, w float64) {
	if w <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	s.n += w
	s.sum += v * w
	if s.digest != nil {
		for range int(w) {
			s.digest.Add(v)
		}
		return
	}
	s.xs = append(s.xs, wval{v, w})
	if len(s.xs) > maxExact {
		s.digest = stats.NewTDigest(stats.DefaultCompression)
		for _, x := range s.xs {
			for range int(x.w) {
				s.digest.Add(x.v)
			}
		}
		s.xs = nil
	}
}

// Stats are a view metric's distribution, in ms.
type Stats struct {
	Count  float64 `json:"count"` // total weight: values, tokens or requests
	Mean   float64 `json:"mean"`
	Std    float64 `json:"std"` // population
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
	// Exact is false when the sample was too large to keep and the
	// percentiles come from a t-digest.
	Exact bool `json:"exact"`
}

// stats summarises the sample; ok is false when it is empty.
func (s *sample) stats() (Stats, bool) {
	if s.n == 0 {
		return Stats{}, false
	}
	out := Stats{Count: s.n, Mean: s.sum / s.n, Exact: s.digest == nil}
	if s.digest != nil {
		out.Std, out.Max = s.digest.Std(), s.digest.Max()
		out.Median, out.P90, out.P95, out.P99 = s.digest.Quantile(0.5), s.digest.Quantile(0.9), s.digest.Quantile(0.95), s.digest.Quantile(0.99)
		return out, true
	}
	slices.SortFunc(s.xs, func(a, b wval) int { return cmp.Compare(a.v, b.v) })
	var ss float64
	for _, x := range s.xs {
		d := x.v - out.Mean
		ss += d * d * x.w
	}
	out.Std = math.Sqrt(ss / s.n)
	out.Max = s.xs[len(s.xs)-1].v
	out.Median, out.P90, out.P95, out.P99 = s.percentile(50), s.percentile(90), s.percentile(95), s.percentile(99)
	return out, true
}

// percentile is numpy.percentile(expanded, q) (linear) of the sorted
// exact sample: index q/100*(N-1) into the list where each value repeats
// its weight.
func (s *sample) percentile(q float64) float64 {
	idx := q / 100 * (s.n - 1)
	lo := math.Floor(idx)
	frac := idx - lo
	a := s.at(lo)
	if frac == 0 || lo+1 > s.n-1 {
		return a
	}
	return a + frac*(s.at(lo+1)-a)
}

// at is the element at virtual index k (0-based) of the expanded list.
func (s *sample) at(k float64) float64 {
	c := 0.0
	for _, x := range s.xs {
		c += x.w
		if k < c {
			return x.v
		}
	}
	return s.xs[len(s.xs)-1].v
}
