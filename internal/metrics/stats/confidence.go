package stats

import "math"

// Confidence describes one statistic observed once per run across the
// runs of a multi-run experiment (AIPerf's ConfidenceMetric): its sample
// mean and spread, and a Student-t confidence interval for the mean.
//
// Fields that are undefined for the sample (Std and everything derived
// from it with a single value, CV with a zero mean) are NaN or ±Inf;
// writers must turn them into "absent" before they reach an artifact.
type Confidence struct {
	Mean, Std, Min, Max float64
	// CV is Std/Mean (a ratio, not a percentage); +Inf when Mean is 0.
	CV float64
	// SE is the standard error of the mean, Std/sqrt(N).
	SE float64
	// CILow and CIHigh are Mean ∓ TCritical*SE.
	CILow, CIHigh float64
	// TCritical is the two-sided Student t critical value at the
	// confidence level with N-1 degrees of freedom.
	TCritical float64
	N         int
}

// ConfidenceOf computes the confidence summary of values at level (0 <
// level < 1, e.g. 0.95), as AIPerf: sample standard deviation (ddof 1),
// t = TQuantile(1-(1-level)/2, n-1). Non-finite values are skipped; with
// no finite value the result is all NaN with N 0. One value gives Std,
// SE, CV, the interval and TCritical NaN.
func ConfidenceOf(values []float64, level float64) Confidence {
	nan := math.NaN()
	c := Confidence{Min: math.Inf(1), Max: math.Inf(-1)}
	sum, comp := 0.0, 0.0
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		c.N++
		sum, comp = neumaier(sum, comp, v)
		c.Min, c.Max = min(c.Min, v), max(c.Max, v)
	}
	if c.N == 0 {
		return Confidence{Mean: nan, Std: nan, Min: nan, Max: nan, CV: nan, SE: nan, CILow: nan, CIHigh: nan, TCritical: nan}
	}
	n := float64(c.N)
	c.Mean = (sum + comp) / n
	if c.N < 2 {
		c.Std, c.CV, c.SE, c.CILow, c.CIHigh, c.TCritical = nan, nan, nan, nan, nan, nan
		return c
	}
	ss, sc := 0.0, 0.0
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		d := v - c.Mean
		ss, sc = neumaier(ss, sc, d*d)
	}
	c.Std = math.Sqrt((ss + sc) / (n - 1))
	if c.Mean != 0 {
		c.CV = c.Std / c.Mean
	} else {
		c.CV = math.Inf(1)
	}
	c.SE = c.Std / math.Sqrt(n)
	c.TCritical = TQuantile(1-(1-level)/2, n-1)
	margin := c.TCritical * c.SE
	c.CILow, c.CIHigh = c.Mean-margin, c.Mean+margin
	return c
}

// PointConfidence is the degenerate summary of a single successful run
// (AIPerf's single-run mode): mean, min and max are v, the spread is 0,
// the interval collapses to v and TCritical is NaN (no interval exists).
func PointConfidence(v float64) Confidence {
	return Confidence{Mean: v, Min: v, Max: v, CILow: v, CIHigh: v, TCritical: math.NaN(), N: 1}
}
