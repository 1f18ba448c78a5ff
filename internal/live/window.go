package live

import (
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"math"
	"slices"
	"time"
)

// Summarize computes the headline metrics from a run of consecutive
// buckets (oldest first, as Meter.Recent returns them). Statistics cover
// the last window buckets; Series has one point per bucket given.
//
// Distribution signals pool the values the window's buckets kept, so a
// bucket past SampleCap weighs as SampleCap values: the rolling view trades
// exact weighting for a bounded cost (the final results are exact).
// Rate signals divide each bucket's count by its width.
func Summarize(signals []Signal, buckets []*Bucket, window int) []Metric {
	out := make([]Metric, len(signals))
	win := buckets[max(0, len(buckets)-window):]
	for i, s := range signals {
		m := Metric{Tag: s.Tag, Header: s.Header, Unit: s.Unit, Kind: s.Kind, Avg: nan, P50: nan, P99: nan}
		m.Series = make([]float64, len(buckets))
		var pool, spare []float64
		if s.Kind != Rate {
			n := 0
			for _, b := range win {
				n += len(b.Values[i])
			}
			pool, spare = make([]float64, 0, n), make([]float64, 0, n)
		}
		for j, b := range buckets {
			switch s.Kind {
			case Rate:
				m.Series[j] = b.rate(i)
			default:
				m.Series[j] = b.median(i)
			}
		}
		for _, b := range win {
			switch s.Kind {
			case Rate:
				if r := b.rate(i); !math.IsNaN(r) {
					pool = append(pool, r)
				}
			default:
				pool, spare = mergeSorted(spare[:0], pool, b.sorted(i)), pool
			}
		}
		if len(pool) > 0 {
			if s.Kind == Rate {
				slices.Sort(pool)
			}
			m.Count, m.Avg, m.P50, m.P99 = len(pool), mean(pool), percentile(pool, 50), percentile(pool, 99)
		}
		out[i] = m
	}
	return out
}

// rate is signal i's count per second over the bucket; NaN for a bucket
// of no width.
func (b *Bucket) rate(i int) float64 {
	w := b.End - b.Start
	if w <= 0 {
		return nan
	}
	return b.Count[i] / (float64(w) / float64(time.Second))
}

// mergeSorted appends the values of a and b, both sorted, to out in
// order: the window pools buckets sorted at publication, which merging
// keeps linear where sorting the pool again would not. out must not
// share memory with a or b.
func mergeSorted(out, a, b []float64) []float64 {
	out = slices.Grow(out, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if b[0] < a[0] {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

func sortedCopy(v []float64) []float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c
}

// percentile is numpy's linear-interpolation percentile of sorted values;
// NaN when there are none.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return nan
	}
	return stats.Percentile(sorted, p)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
