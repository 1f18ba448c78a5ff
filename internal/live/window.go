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
		var pool []float64
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
				pool = append(pool, b.Values[i]...)
			}
		}
		if len(pool) > 0 {
			slices.Sort(pool)
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
