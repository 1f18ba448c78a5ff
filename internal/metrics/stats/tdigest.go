package stats

import (
	"math"
	"slices"
)

// DefaultCompression is the t-digest compression δ AIPerf uses for list
// metrics (AIPERF_METRICS_TDIGEST_COMPRESSION, default 500).
const DefaultCompression = 500

// MinCompression and MaxCompression bound the accepted compression, as
// AIPerf bounds its environment variable (20..10000).
const (
	MinCompression = 20
	MaxCompression = 10000
)

// TDigest is a mergeable sketch of a distribution (Dunning's merging
// t-digest with the k1 scale function k(q) = δ/(2π)·asin(2q−1)).
//
// Count, Sum, Min, Max, Mean and Std are exact: they are kept beside the
// digest (a Neumaier-compensated sum and Welford's mean and squared
// deviations, so they match Summarize to rounding). Percentiles are
// approximate, with a rank error bounded by RankErrorBound: the value
// returned for q is the true q'-th percentile of the data for some q' with
// |q' − q| <= RankErrorBound(q, δ). Until the first merge (fewer values
// than the 2δ merge buffer), and whenever no centroid holds more than one
// value, percentiles equal Percentile's numpy-linear ones exactly.
//
// Memory is bounded by the compression alone: fewer than δ merged centroids
// (16 bytes each, kept twice so a merge allocates nothing) plus a buffer of
// 2δ pending values (8 bytes each), about 24 KiB at δ = 500, whatever the
// number of values (BenchmarkTDigestMemory). The zero value is not usable;
// call NewTDigest. A TDigest is not safe for concurrent use.
type TDigest struct {
	compression float64
	centroids   []centroid // merged, sorted by mean
	merged      float64    // total weight of centroids
	next        []centroid // the previous centroids' array, reused by the next merge
	buf         []float64  // pending unit-weight values, unsorted

	// Exact side channels.
	n        int64
	sum, cmp float64 // Neumaier-compensated sum
	mean, m2 float64 // Welford
	min, max float64
}

// centroid is a cluster of w values whose mean is m.
type centroid struct {
	m, w float64
}

// NewTDigest returns an empty digest with compression δ, clamped to
// [MinCompression, MaxCompression]; a larger δ keeps more centroids and
// gives smaller percentile errors.
func NewTDigest(compression float64) *TDigest {
	if !(compression >= MinCompression) { // also NaN
		compression = MinCompression
	}
	compression = min(compression, MaxCompression)
	return &TDigest{
		compression: compression,
		buf:         make([]float64, 0, bufferSize(compression)),
	}
}

// bufferSize is how many pending values trigger a merge: 2δ amortises the
// sort while keeping the pending buffer the same order of size as the
// merged centroids.
func bufferSize(compression float64) int { return int(2 * compression) }

// Compression returns the digest's δ.
func (t *TDigest) Compression() float64 { return t.compression }

// Add adds one value. Non-finite values are ignored (they must never reach
// an artifact); callers filter them before.
func (t *TDigest) Add(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	if len(t.buf) == cap(t.buf) {
		t.compress()
	}
	t.buf = append(t.buf, x)
	if t.n == 0 {
		t.min, t.max = x, x
	} else {
		t.min, t.max = min(t.min, x), max(t.max, x)
	}
	t.n++
	t.sum, t.cmp = neumaier(t.sum, t.cmp, x)
	d := x - t.mean
	t.mean += d / float64(t.n)
	t.m2 += d * (x - t.mean)
}

// Merge folds o into t, as if every value added to o had been added to t.
// o is unchanged. Merging is how per-worker or per-phase digests combine;
// the exact statistics combine exactly (Chan et al.'s parallel variance).
func (t *TDigest) Merge(o *TDigest) {
	if o == nil || o.n == 0 {
		return
	}
	if o == t {
		o = t.clone()
	}
	t.compress()
	items := make([]centroid, 0, len(o.centroids)+len(o.buf))
	items = append(items, o.centroids...)
	for _, v := range o.buf {
		items = append(items, centroid{v, 1})
	}
	slices.SortFunc(items, cmpCentroid)
	var w float64
	for _, c := range items {
		w += c.w
	}
	g := t.merger(t.merged + w)
	i, j := 0, 0
	for i < len(t.centroids) || j < len(items) {
		if j == len(items) || (i < len(t.centroids) && t.centroids[i].m <= items[j].m) {
			g.push(t.centroids[i].m, t.centroids[i].w)
			i++
		} else {
			g.push(items[j].m, items[j].w)
			j++
		}
	}
	t.install(g)

	if t.n == 0 {
		t.min, t.max = o.min, o.max
		t.n, t.sum, t.cmp, t.mean, t.m2 = o.n, o.sum, o.cmp, o.mean, o.m2
		return
	}
	t.min, t.max = min(t.min, o.min), max(t.max, o.max)
	na, nb := float64(t.n), float64(o.n)
	n := na + nb
	d := o.mean - t.mean
	t.mean += d * nb / n
	t.m2 += o.m2 + d*d*na*nb/n
	t.n += o.n
	t.sum, t.cmp = neumaier(t.sum, t.cmp, o.sum)
	t.sum, t.cmp = neumaier(t.sum, t.cmp, o.cmp)
}

// clone returns an independent copy of t.
func (t *TDigest) clone() *TDigest {
	c := *t
	c.centroids = slices.Clone(t.centroids)
	c.buf = slices.Clone(t.buf)
	c.next = nil
	return &c
}

// compress merges the pending buffer into the centroids: one sort of the
// buffer, then a single linear pass over both sorted sequences.
func (t *TDigest) compress() {
	if len(t.buf) == 0 {
		return
	}
	slices.Sort(t.buf)
	g := t.merger(t.merged + float64(len(t.buf)))
	cs, buf := t.centroids, t.buf
	i, j := 0, 0
	for i < len(cs) || j < len(buf) {
		if j == len(buf) || (i < len(cs) && cs[i].m <= buf[j]) {
			g.push(cs[i].m, cs[i].w)
			i++
		} else {
			g.push(buf[j], 1)
			j++
		}
	}
	t.install(g)
	t.buf = t.buf[:0]
}

// merger starts a merge pass of the given total weight into t.next.
func (t *TDigest) merger(total float64) *merger {
	return &merger{out: t.next[:0], total: total, comp: t.compression}
}

// install makes g's output the centroids and keeps the old array for the
// next merge.
func (t *TDigest) install(g *merger) {
	out := g.finish()
	t.next = t.centroids[:0]
	t.centroids = out
	t.merged = g.total
}

// merger is one greedy pass of the merging t-digest: values arrive in
// ascending order and join the current centroid while the centroid spans
// at most one unit of k.
type merger struct {
	out    []centroid
	total  float64
	comp   float64
	before float64 // weight of the centroids already emitted
	cur    centroid
	has    bool
	qLimit float64 // the current centroid may grow up to this q
}

func (g *merger) push(m, w float64) {
	if !g.has {
		g.cur, g.has = centroid{m, w}, true
		g.qLimit = g.limit(0)
		return
	}
	if (g.before+g.cur.w+w)/g.total <= g.qLimit {
		g.cur.w += w
		g.cur.m += (m - g.cur.m) * w / g.cur.w
		return
	}
	g.out = append(g.out, g.cur)
	g.before += g.cur.w
	g.qLimit = g.limit(g.before / g.total)
	g.cur = centroid{m, w}
}

// limit returns the largest q with k(q) − k(q0) <= 1, the inverse of k1:
// q = (sin(2π·k/δ) + 1) / 2. Computing it once per centroid (not once per
// value) keeps the pass to one asin and one sin per centroid.
func (g *merger) limit(q0 float64) float64 {
	q0 = min(max(q0, 0), 1)
	k := g.comp/(2*math.Pi)*math.Asin(2*q0-1) + 1
	if k >= g.comp/4 { // k1 tops out at δ/4 (q = 1)
		return 1
	}
	return (math.Sin(2*math.Pi*k/g.comp) + 1) / 2
}

func (g *merger) finish() []centroid {
	if g.has {
		g.out = append(g.out, g.cur)
	}
	return g.out
}

func cmpCentroid(a, b centroid) int {
	switch {
	case a.m < b.m:
		return -1
	case a.m > b.m:
		return 1
	}
	return 0
}

// RankErrorBound is the documented bound on the rank error of Quantile(q)
// for a digest with compression δ: 2π·sqrt(q(1−q))/δ, the width in q of a
// centroid that spans one unit of k1, plus 1/δ for merge-order effects.
// At δ = 500 that is 0.83 % of the ranks at the median, 0.58 % at p10/p90
// and 0.33 % at p1/p99. The measured errors are an order of magnitude
// smaller (TestTDigestRankError).
func RankErrorBound(q, compression float64) float64 {
	q = min(max(q, 0), 1)
	return 2*math.Pi*math.Sqrt(q*(1-q))/compression + 1/compression
}

// Count returns how many values were added.
func (t *TDigest) Count() int64 { return t.n }

// Sum returns the exact (compensated) sum of the values.
func (t *TDigest) Sum() float64 { return t.sum + t.cmp }

// Min returns the smallest value; 0 when empty.
func (t *TDigest) Min() float64 { return t.min }

// Max returns the largest value; 0 when empty.
func (t *TDigest) Max() float64 { return t.max }

// Mean returns Sum/Count; 0 when empty.
func (t *TDigest) Mean() float64 {
	if t.n == 0 {
		return 0
	}
	return t.Sum() / float64(t.n)
}

// Std returns the population standard deviation (ddof = 0); 0 when empty.
func (t *TDigest) Std() float64 {
	if t.n == 0 {
		return 0
	}
	return math.Sqrt(max(t.m2, 0) / float64(t.n))
}

// Centroids returns how many merged centroids the digest holds after
// merging its buffer; for tests and memory accounting.
func (t *TDigest) Centroids() int {
	t.compress()
	return len(t.centroids)
}

// Quantile returns the approximate q-th quantile (0 <= q <= 1, clamped) in
// numpy's "linear" convention: the value at sorted position q·(n−1). The
// sample at sorted index j sits at weight position j+0.5, so each centroid
// is placed at the weight position of its centre and the result is the
// linear interpolation between neighbouring centres, with the exact minimum
// and maximum anchoring both ends. When every centroid holds one value this
// is exactly numpy's percentile. It returns 0 when the digest is empty and
// always lies within [Min, Max].
func (t *TDigest) Quantile(q float64) float64 {
	if t.n == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	if math.IsNaN(q) {
		q = 0
	}
	if len(t.centroids) == 0 {
		// Never merged: every value is still its own centroid, so the
		// answer is exact. Sorting the buffer in place is harmless (its
		// order carries no meaning).
		slices.Sort(t.buf)
		return Percentile(t.buf, q*100)
	}
	t.compress()
	return t.quantileOf(t.centroids, q)
}

// quantileOf interpolates the q-th quantile over sorted centroids cs.
func (t *TDigest) quantileOf(cs []centroid, q float64) float64 {
	total := float64(t.n)
	pos := q*(total-1) + 0.5 // weight position of the wanted value
	// Anchors: (0.5, min), (centre_i, mean_i)..., (n-0.5, max).
	prevPos, prevVal := 0.5, t.min
	var before float64
	for _, c := range cs {
		centre := before + c.w/2
		before += c.w
		if centre <= prevPos {
			// A singleton at the minimum: same anchor, keep the data value.
			prevVal = c.m
			continue
		}
		if pos <= centre {
			return clampTo(lerp(prevPos, prevVal, centre, c.m, pos), t.min, t.max)
		}
		prevPos, prevVal = centre, c.m
	}
	return clampTo(lerp(prevPos, prevVal, total-0.5, t.max, pos), t.min, t.max)
}

// lerp interpolates linearly between (x0, y0) and (x1, y1) at x.
func lerp(x0, y0, x1, y1, x float64) float64 {
	if x1 <= x0 || x <= x0 {
		return y0
	}
	if x >= x1 {
		return y1
	}
	return y0 + (x-x0)/(x1-x0)*(y1-y0)
}

func clampTo(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

// Summary returns the digest's summary in the same shape as Summarize:
// exact count, sum, min, max, mean and std, and the Quantiles percentiles
// from the digest.
func (t *TDigest) Summary() Summary {
	if t.n == 0 {
		return Summary{}
	}
	var p [len(Quantiles)]float64
	for i, q := range Quantiles {
		p[i] = t.Quantile(q / 100)
	}
	return Summary{
		Avg: t.Mean(), Min: t.min, Max: t.max, Sum: t.Sum(),
		P1: p[0], P5: p[1], P10: p[2], P25: p[3], P50: p[4], P75: p[5], P90: p[6], P95: p[7], P99: p[8],
		Std:   t.Std(),
		Count: int(t.n),
	}
}
