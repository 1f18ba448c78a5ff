package stats

import (
	"math"
	"testing"
)

// TestSummarizeUnboundedMatchesNumpy pins the percentiles to numpy's
// np.percentile(np.concatenate([sorted(values), np.full(u, np.inf)]),
// [1, 5, 10, 25, 50, 75, 90, 95, 99], method="nearest") (numpy 2.4), the
// computation behind AIPerf's adj_* metrics, including its round-half-even
// index (n = 2, q = 50 picks index 0; n = 8, q = 50 picks index 4).
func TestSummarizeUnboundedMatchesNumpy(t *testing.T) {
	inf := math.Inf(1)
	seq := func(n int, scale float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i) * scale
		}
		return out
	}
	from1 := func(n int) []float64 {
		out := seq(n, 1)
		for i := range out {
			out[i]++
		}
		return out
	}
	for _, c := range []struct {
		name      string
		values    []float64
		unbounded int
		want      [9]float64
		min       float64
	}{
		{"every request failed", nil, 1, [9]float64{inf, inf, inf, inf, inf, inf, inf, inf, inf}, inf},
		{"one of two failed", []float64{5}, 1, [9]float64{5, 5, 5, 5, 5, inf, inf, inf, inf}, 5},
		{"one of four failed, unsorted", []float64{3, 1, 2}, 1, [9]float64{1, 1, 1, 2, 3, 3, inf, inf, inf}, 1},
		{"half failed, p50 rounds to even", []float64{1, 2, 3, 4}, 4, [9]float64{1, 1, 2, 3, inf, inf, inf, inf, inf}, 1},
		{"three of a hundred failed", from1(97), 3, [9]float64{2, 6, 11, 26, 51, 75, 90, 95, inf}, 1},
		{"two of twelve failed", seq(10, 1.5), 2, [9]float64{0, 1.5, 1.5, 4.5, 9, 12, inf, inf, inf}, 0},
		{"one of 201 failed", seq(200, 1), 1, [9]float64{2, 10, 20, 50, 100, 150, 180, 190, 198}, 0},
		{"none failed", []float64{7, 1}, 0, [9]float64{1, 1, 1, 1, 1, 7, 7, 7, 7}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := SummarizeUnbounded(append([]float64(nil), c.values...), c.unbounded)
			got := [9]float64{s.P1, s.P5, s.P10, s.P25, s.P50, s.P75, s.P90, s.P95, s.P99}
			if got != c.want {
				t.Errorf("percentiles = %v, numpy says %v", got, c.want)
			}
			if s.Min != c.min {
				t.Errorf("min = %v, want %v", s.Min, c.min)
			}
			if s.Count != len(c.values)+c.unbounded {
				t.Errorf("count = %d, want %d", s.Count, len(c.values)+c.unbounded)
			}
			if c.unbounded > 0 {
				if !math.IsInf(s.Avg, 1) || !math.IsInf(s.Sum, 1) || !math.IsInf(s.Max, 1) || !math.IsNaN(s.Std) {
					t.Errorf("avg, sum, max, std = %v, %v, %v, %v; want +Inf, +Inf, +Inf, NaN", s.Avg, s.Sum, s.Max, s.Std)
				}
			} else if full := Summarize(append([]float64(nil), c.values...)); s.Avg != full.Avg || s.Std != full.Std || s.Max != full.Max {
				t.Errorf("without failures avg, std, max = %v, %v, %v; want Summarize's %v, %v, %v", s.Avg, s.Std, s.Max, full.Avg, full.Std, full.Max)
			}
		})
	}
}
