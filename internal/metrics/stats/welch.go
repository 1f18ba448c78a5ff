package stats

import "math"

// Welch is Welch's unequal-variance t-test of two means from summary
// statistics (mean, sample standard deviation, count), as
// scipy.stats.ttest_ind_from_stats(..., equal_var=False): the t statistic,
// the Welch-Satterthwaite degrees of freedom and the two-sided p-value.
// It is what `aiperf compare` uses to say whether two multi-run results
// differ by more than their run-to-run noise.
//
// Each side needs n >= 2 and a finite std; otherwise every result is NaN.
// Two samples with zero spread give t = ±Inf and p = 0 when the means
// differ, t = NaN and p = NaN when they are equal.
func Welch(mean1, std1 float64, n1 int, mean2, std2 float64, n2 int) (t, df, p float64) {
	nan := math.NaN()
	if n1 < 2 || n2 < 2 || math.IsNaN(std1) || math.IsNaN(std2) || math.IsInf(std1, 0) || math.IsInf(std2, 0) {
		return nan, nan, nan
	}
	v1, v2 := std1*std1/float64(n1), std2*std2/float64(n2)
	se := math.Sqrt(v1 + v2)
	diff := mean1 - mean2
	if se == 0 {
		if diff == 0 {
			return nan, nan, nan
		}
		return math.Copysign(math.Inf(1), diff), nan, 0
	}
	t = diff / se
	df = (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	p = 2 * tTail(math.Abs(t), df)
	return t, df, min(p, 1)
}
