package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// paretoFront returns the indices of the points no other point dominates,
// sorted by x. xUp and yUp say whether larger values are better on each
// axis. Equal points are all on the front (none dominates another), as in
// AIPerf's sweep: sort by x, ties best-y first, then keep each point whose
// y is at least as good as every point already kept on the better side.
func paretoFront(x, y []float64, xUp, yUp bool) []int {
	idx := make([]int, 0, len(x))
	for i := range x {
		if stats.Finite(x[i]) && stats.Finite(y[i]) {
			idx = append(idx, i)
		}
	}
	better := func(a, b float64, up bool) bool { // a at least as good as b
		if up {
			return a >= b
		}
		return a <= b
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(x[a], x[b]); c != 0 {
			return c
		}
		if yUp {
			return cmp.Compare(y[b], y[a])
		}
		return cmp.Compare(y[a], y[b])
	})
	// Scan from the x end that is better.
	order := idx
	if xUp {
		order = slices.Clone(idx)
		slices.Reverse(order)
	}
	var front []int
	have := false
	best := 0.0
	for _, i := range order {
		if !have || better(y[i], best, yUp) {
			front = append(front, i)
			best, have = y[i], true
		}
	}
	slices.SortFunc(front, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	return front
}

// ellipse returns a closed polygon of n vertices (first repeated last)
// around (cx, cy) with semi-axes rx and ry along x and y, rotated by the
// correlation rho of the two estimates: the covariance [[rx², c], [c,
// ry²]] with c = rho·rx·ry is diagonalised and its eigenvectors give the
// axes, as AIPerf's uncertainty plot does. rho 0 gives the axis-aligned
// ellipse.
func ellipse(cx, cy, rx, ry, rho float64, n int) (xs, ys []float64) {
	c := rho * rx * ry
	a, d := rx*rx, ry*ry
	// Eigen-decomposition of the symmetric 2x2 matrix [[a, c], [c, d]].
	tr, det := a+d, a*d-c*c
	disc := math.Sqrt(max(tr*tr/4-det, 0))
	l1, l2 := max(tr/2+disc, 1e-24), max(tr/2-disc, 1e-24) // l1 >= l2
	theta := 0.0
	switch {
	case c != 0:
		theta = math.Atan2(l1-a, c)
	case d > a:
		theta = math.Pi / 2
	}
	s1, s2 := math.Sqrt(l1), math.Sqrt(l2)
	cosT, sinT := math.Cos(theta), math.Sin(theta)
	for i := 0; i <= n; i++ {
		t := 2 * math.Pi * float64(i%n) / float64(n)
		u, v := s1*math.Cos(t), s2*math.Sin(t)
		xs = append(xs, cx+u*cosT-v*sinT)
		ys = append(ys, cy+u*sinT+v*cosT)
	}
	return xs, ys
}

// correlation is Pearson's r of paired values; 0 for fewer than 3 pairs or
// no spread.
func correlation(x, y []float64) float64 {
	n := min(len(x), len(y))
	if n < 3 {
		return 0
	}
	mx, my := mean(x[:n]), mean(y[:n])
	var sxy, sxx, syy float64
	for i := range n {
		dx, dy := x[i]-mx, y[i]-my
		sxy, sxx, syy = sxy+dx*dy, sxx+dx*dx, syy+dy*dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return max(-1, min(1, sxy/math.Sqrt(sxx*syy)))
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// rollingPercentiles returns, for each index i of ys, the numpy-linear
// percentiles ps of the last window values up to i (fewer at the start),
// as AIPerf's pandas rolling(window, min_periods=1).quantile.
func rollingPercentiles(ys []float64, window int, ps ...float64) [][]float64 {
	out := make([][]float64, len(ps))
	for k := range out {
		out[k] = make([]float64, len(ys))
	}
	buf := make([]float64, 0, window)
	for i := range ys {
		buf = append(buf[:0], ys[max(0, i-window+1):i+1]...)
		slices.Sort(buf)
		for k, p := range ps {
			out[k][i] = stats.Percentile(buf, p)
		}
	}
	return out
}

// histogramBins splits finite values into about sqrt(n) equal-width bins
// (between 5 and 40): the bins' lower edges, their width and their counts.
func histogramBins(values []float64) (lo []float64, width float64, counts []float64) {
	var v []float64
	for _, x := range values {
		if stats.Finite(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nil, 0, nil
	}
	minV, maxV := slices.Min(v), slices.Max(v)
	n := max(5, min(40, int(math.Ceil(math.Sqrt(float64(len(v)))))))
	if maxV == minV {
		return []float64{minV}, 0, []float64{float64(len(v))}
	}
	width = (maxV - minV) / float64(n)
	lo = make([]float64, n)
	counts = make([]float64, n)
	for i := range lo {
		lo[i] = minV + float64(i)*width
	}
	for _, x := range v {
		i := min(int((x-minV)/width), n-1)
		counts[i]++
	}
	return lo, width, counts
}
