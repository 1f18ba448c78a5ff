package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
)

// distributions are the shapes the rank-error property is checked on: flat,
// heavy right tail (latencies), and two separated modes (a cache hit/miss
// mix) where interpolating across the gap is the classic sketch failure.
var distributions = []struct {
	name string
	draw func(r *rand.Rand) float64
}{
	{"uniform", func(r *rand.Rand) float64 { return r.Float64() * 100 }},
	{"lognormal", func(r *rand.Rand) float64 { return math.Exp(1 + 1.5*r.NormFloat64()) }},
	{"bimodal", func(r *rand.Rand) float64 {
		if r.IntN(10) < 7 {
			return 5 + 0.5*r.NormFloat64()
		}
		return 80 + 10*r.NormFloat64()
	}},
	{"exponential-ms", func(r *rand.Rand) float64 { return 1e6 + r.ExpFloat64()*20 }}, // large offset, small spread
}

// rankError returns how far, in ranks / (n−1), est is from the q-th
// percentile position of sorted: 0 when est is a value numpy's linear
// percentile takes at some position within the interval est occupies.
func rankError(sorted []float64, q, est float64) float64 {
	n := len(sorted)
	want := q * float64(n-1)
	i := sort.SearchFloat64s(sorted, est) // first >= est
	j := sort.Search(n, func(k int) bool { return sorted[k] > est })
	var lo, hi float64
	switch {
	case i < n && sorted[i] == est:
		lo, hi = float64(i), float64(j-1)
	case i == 0:
		lo, hi = 0, 0
	case i == n:
		lo, hi = float64(n-1), float64(n-1)
	default:
		lo, hi = float64(i-1), float64(i)
	}
	switch {
	case want < lo:
		return (lo - want) / float64(n-1)
	case want > hi:
		return (want - hi) / float64(n-1)
	}
	return 0
}

var checkQs = []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}

// TestTDigestRankError is the property test of the stated error bound: for
// every distribution, at δ = DefaultCompression and δ = 100, every checked
// percentile's rank error is within RankErrorBound. It logs the worst
// measured error for BENCHMARKS.md.
func TestTDigestRankError(t *testing.T) {
	t.Parallel()
	const n = 200_000
	for _, comp := range []float64{DefaultCompression, 100} {
		for _, d := range distributions {
			r := rand.New(rand.NewPCG(11, uint64(len(d.name))))
			td := NewTDigest(comp)
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = d.draw(r)
				td.Add(vals[i])
			}
			slices.Sort(vals)
			var worst, worstRel float64
			for _, q := range checkQs {
				est := td.Quantile(q)
				e := rankError(vals, q, est)
				if b := RankErrorBound(q, comp); e > b {
					t.Errorf("δ=%v %s q=%v: rank error %.5f > bound %.5f (est %v, exact %v)",
						comp, d.name, q, e, b, est, Percentile(vals, q*100))
				}
				worst = max(worst, e)
				exact := Percentile(vals, q*100)
				if exact != 0 && q >= 0.01 && q <= 0.99 { // the exported p1..p99
					worstRel = max(worstRel, math.Abs(est-exact)/math.Abs(exact))
				}
			}
			t.Logf("δ=%v %-14s n=%d centroids=%d worst rank error %.4f%% worst p1..p99 value error %.4f%%",
				comp, d.name, n, td.Centroids(), 100*worst, 100*worstRel)
		}
	}
}

// TestTDigestExactStats checks count, sum, min, max, mean and std match
// Summarize on the same data (to rounding), and that a digest fed fewer
// values than its buffer reproduces numpy's percentiles exactly.
func TestTDigestExactStats(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 999, 50_000} {
		td := NewTDigest(DefaultCompression)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = 1e6 + r.ExpFloat64()*3
			td.Add(vals[i])
		}
		want := Summarize(slices.Clone(vals))
		got := td.Summary()
		if got.Count != want.Count || got.Min != want.Min || got.Max != want.Max {
			t.Errorf("n=%d: count/min/max = %d/%v/%v, want %d/%v/%v", n, got.Count, got.Min, got.Max, want.Count, want.Min, want.Max)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"sum", got.Sum, want.Sum}, {"avg", got.Avg, want.Avg}, {"std", got.Std, want.Std}} {
			if math.Abs(c.got-c.want) > 1e-9*math.Max(1, math.Abs(c.want)) {
				t.Errorf("n=%d: %s = %v, want %v", n, c.name, c.got, c.want)
			}
		}
		if n < bufferSize(DefaultCompression) {
			// Nothing merged yet: every centroid is a single value.
			got.Std, got.Sum, got.Avg = want.Std, want.Sum, want.Avg // checked above, to rounding
			if got != want {
				t.Errorf("n=%d: uncompressed summary\n got %+v\nwant %+v", n, got, want)
			}
		}
	}
}

// TestTDigestSingletonsAreExact: a digest whose centroids all hold one value
// (few distinct values spread widely) reproduces numpy exactly, and so do
// the reference rows of TestSummarize.
func TestTDigestSingletonsAreExact(t *testing.T) {
	t.Parallel()
	for _, in := range [][]float64{{5, 3, 1, 4, 2}, {20, 10}, {7.5}, {10, 8, 9, 8, 11, 8, 9, 8, 9, 8}} {
		td := NewTDigest(DefaultCompression)
		for _, v := range in {
			td.Add(v)
		}
		td.Centroids() // force a merge: all singletons at this size
		want := Summarize(slices.Clone(in))
		got := td.Summary()
		if !near(got.Std, want.Std) {
			t.Errorf("%v: std %v, want %v", in, got.Std, want.Std)
		}
		got.Std = want.Std
		if got != want {
			t.Errorf("%v:\n got %+v\nwant %+v", in, got, want)
		}
	}
}

func TestTDigestEmptyAndNonFinite(t *testing.T) {
	t.Parallel()
	td := NewTDigest(0) // clamped to MinCompression
	if td.Compression() != MinCompression {
		t.Errorf("compression = %v, want %v", td.Compression(), MinCompression)
	}
	if td.Summary() != (Summary{}) || td.Quantile(0.5) != 0 || td.Std() != 0 || td.Mean() != 0 {
		t.Error("empty digest must summarise to zeros")
	}
	td.Add(math.NaN())
	td.Add(math.Inf(1))
	td.Add(math.Inf(-1))
	if td.Count() != 0 {
		t.Errorf("non-finite values were counted: %d", td.Count())
	}
	if NewTDigest(1e9).Compression() != MaxCompression || NewTDigest(math.NaN()).Compression() != MinCompression {
		t.Error("compression not clamped")
	}
}

// TestTDigestMerge: digests built on parts and merged equal, in their exact
// statistics, one digest of the whole; their percentiles stay within the
// bound. Self-merge doubles every weight.
func TestTDigestMerge(t *testing.T) {
	t.Parallel()
	const n = 120_000
	r := rand.New(rand.NewPCG(5, 6))
	parts := []*TDigest{NewTDigest(DefaultCompression), NewTDigest(DefaultCompression), NewTDigest(DefaultCompression)}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = math.Exp(r.NormFloat64())
		parts[i%3].Add(vals[i])
	}
	merged := NewTDigest(DefaultCompression)
	for _, p := range parts {
		merged.Merge(p)
	}
	slices.Sort(vals)
	want := Summarize(slices.Clone(vals))
	got := merged.Summary()
	if got.Count != n || got.Min != want.Min || got.Max != want.Max ||
		math.Abs(got.Sum-want.Sum) > 1e-9*want.Sum || math.Abs(got.Std-want.Std) > 1e-9*want.Std {
		t.Errorf("merged exact stats %+v, want %+v", got, want)
	}
	for _, q := range checkQs {
		if e := rankError(vals, q, merged.Quantile(q)); e > RankErrorBound(q, DefaultCompression) {
			t.Errorf("merged q=%v: rank error %.5f over bound", q, e)
		}
	}

	self := NewTDigest(DefaultCompression)
	for _, v := range []float64{1, 2, 3} {
		self.Add(v)
	}
	self.Merge(self)
	if self.Count() != 6 || self.Sum() != 12 || self.Std() != math.Sqrt(2.0/3) {
		t.Errorf("self-merge: count %d sum %v std %v", self.Count(), self.Sum(), self.Std())
	}
	self.Merge(nil)
	self.Merge(NewTDigest(DefaultCompression))
	if self.Count() != 6 {
		t.Error("merging nothing changed the count")
	}
}

// TestTDigestBoundedSize: the number of centroids is bounded by the
// compression whatever the number of values.
func TestTDigestBoundedSize(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 9))
	td := NewTDigest(100)
	for i := range 500_000 {
		td.Add(r.NormFloat64())
		if i%50_000 == 0 {
			if c := td.Centroids(); c > int(td.Compression()) {
				t.Fatalf("after %d values: %d centroids > δ", i+1, c)
			}
		}
	}
	// Sorted input is the worst case for a merging digest's buffer order.
	s := NewTDigest(100)
	for i := range 200_000 {
		s.Add(float64(i))
	}
	if c := s.Centroids(); c > 100 {
		t.Errorf("sorted input: %d centroids > δ", c)
	}
	vals := make([]float64, 200_000)
	for i := range vals {
		vals[i] = float64(i)
	}
	for _, q := range checkQs {
		if e := rankError(vals, q, s.Quantile(q)); e > RankErrorBound(q, 100) {
			t.Errorf("sorted q=%v: rank error %.5f over bound", q, e)
		}
	}
}

// FuzzTDigest checks the invariants for arbitrary inputs: quantiles are
// monotonic in q, within [min, max], and the exact stats are finite.
func FuzzTDigest(f *testing.F) {
	f.Add(uint64(1), 10, 20.0, 1.0)
	f.Add(uint64(2), 5000, 500.0, 1e12)
	f.Add(uint64(3), 3, 20.0, -1e-9)
	f.Fuzz(func(t *testing.T, seed uint64, n int, comp, scale float64) {
		if n < 0 || n > 20_000 || math.IsNaN(scale) || math.IsInf(scale, 0) || math.Abs(scale) > 1e200 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 1))
		td := NewTDigest(comp)
		for range n {
			td.Add(scale * r.NormFloat64())
		}
		prev := math.Inf(-1)
		for q := 0.0; q <= 1; q += 0.01 {
			v := td.Quantile(q)
			if n > 0 && (v < td.Min() || v > td.Max() || v < prev) {
				t.Fatalf("q=%v: %v (prev %v, range [%v, %v])", q, v, prev, td.Min(), td.Max())
			}
			prev = v
		}
		s := td.Summary()
		for _, v := range []float64{s.Avg, s.Sum, s.Std, s.P50} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite summary %+v", s)
			}
		}
	})
}

func BenchmarkTDigestAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 1<<16)
	for i := range vals {
		vals[i] = r.ExpFloat64()
	}
	td := NewTDigest(DefaultCompression)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		td.Add(vals[i&(len(vals)-1)])
		i++
	}
}

func BenchmarkTDigestQuantile(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	td := NewTDigest(DefaultCompression)
	for range 1_000_000 {
		td.Add(r.ExpFloat64())
	}
	b.ReportAllocs()
	for b.Loop() {
		td.Summary()
	}
}

// BenchmarkTDigestMemory reports the live heap of one digest at the default
// compression after 1,000,000 values: bounded whatever the count.
func BenchmarkTDigestMemory(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var bytes float64
	for b.Loop() {
		before := liveHeap()
		td := NewTDigest(DefaultCompression)
		for range 1_000_000 {
			td.Add(r.ExpFloat64())
		}
		td.Summary()
		bytes = float64(liveHeap() - before)
		runtime.KeepAlive(td)
	}
	b.ReportMetric(bytes, "bytes/digest")
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
