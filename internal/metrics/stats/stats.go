// Package stats computes the distribution summaries AIPerf reports for record
// metrics: numpy-style linear-interpolation percentiles and the population
// standard deviation.
//
// It is a leaf package of pure functions over float64 slices so that the math
// can be table-tested against numpy without any of the pipeline around it.
package stats

import (
	"math"
	"slices"
)

// Quantiles are the percentiles AIPerf exports, in the order of Summary's
// P fields.
var Quantiles = [9]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// Summary describes a sample. All fields are zero when Count is 0.
type Summary struct {
	Avg, Min, Max, Sum                        float64
	P1, P5, P10, P25, P50, P75, P90, P95, P99 float64
	Std                                       float64 // population (ddof = 0)
	Count                                     int
}

// Percentile returns the q-th percentile (0 <= q <= 100) of sorted using
// numpy's default "linear" method:
//
//	idx  = q/100 * (n-1)
//	lo   = floor(idx), hi = min(lo+1, n-1)
//	p    = x[lo] + (idx-lo) * (x[hi]-x[lo])
//
// sorted must be in ascending order and non-empty; q outside [0, 100] is
// clamped. The result always lies within [sorted[0], sorted[n-1]].
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		panic("stats: Percentile of an empty slice")
	}
	q = min(max(q, 0), 100)
	idx := q / 100 * float64(n-1)
	lo := int(idx) // idx >= 0, so truncation is floor
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := idx - float64(lo)
	a, b := sorted[lo], sorted[lo+1]
	return a + frac*(b-a)
}

// Summarize computes the summary of values. It sorts values in place (the
// caller owns the slice and the order carries no meaning for a sample), so it
// allocates nothing. The standard deviation is computed in two passes around
// the mean, which stays accurate for large offsets (wall-clock-like values)
// where the one-pass E[x²]-E[x]² form cancels catastrophically.
func Summarize(values []float64) Summary {
	n := len(values)
	if n == 0 {
		return Summary{}
	}
	slices.Sort(values)
	sum := Sum(values)
	mean := sum / float64(n)
	var ss, comp float64 // Neumaier-compensated sum of squared deviations
	for _, v := range values {
		d := v - mean
		ss, comp = neumaier(ss, comp, d*d)
	}
	return Summary{
		Avg:   mean,
		Min:   values[0],
		Max:   values[n-1],
		Sum:   sum,
		P1:    Percentile(values, Quantiles[0]),
		P5:    Percentile(values, Quantiles[1]),
		P10:   Percentile(values, Quantiles[2]),
		P25:   Percentile(values, Quantiles[3]),
		P50:   Percentile(values, Quantiles[4]),
		P75:   Percentile(values, Quantiles[5]),
		P90:   Percentile(values, Quantiles[6]),
		P95:   Percentile(values, Quantiles[7]),
		P99:   Percentile(values, Quantiles[8]),
		Std:   math.Sqrt((ss + comp) / float64(n)),
		Count: n,
	}
}

// Sum returns the compensated (Neumaier) sum of values, which is at least
// as accurate as numpy's pairwise summation.
func Sum(values []float64) float64 {
	var s, c float64
	for _, v := range values {
		s, c = neumaier(s, c, v)
	}
	return s + c
}

// neumaier adds v to the running sum s with compensation c.
func neumaier(s, c, v float64) (float64, float64) {
	t := s + v
	if math.Abs(s) >= math.Abs(v) {
		c += (s - t) + v
	} else {
		c += (v - t) + s
	}
	return t, c
}

// Finite reports whether v is a number an artifact, a chart or a decision
// may use: neither NaN nor ±Inf.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
