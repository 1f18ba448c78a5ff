package metrics

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

// iclProcessed returns a processed profiling record whose only value is an
// inter_chunk_latency list (display units, ms).
func iclProcessed(reg *Registry, gaps []float64) *Processed {
	return &Processed{
		Record: &record.Record{Phase: record.Profiling},
		Valid:  true,
		Values: []Value{{Metric: reg.byTag[tagICL], List: gaps}},
	}
}

// TestAccumulatorListSketch: below the limit a list metric is exact; past it
// the metric moves to a t-digest whose count, sum, min, max, avg and std stay
// exact and whose percentiles stay within the stated rank error.
func TestAccumulatorListSketch(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := []*Metric{reg.byTag[tagICL]}
	r := rand.New(rand.NewPCG(1, 2))
	var all []float64
	var batches [][]float64
	for range 2000 {
		gaps := make([]float64, 1+r.IntN(50))
		for i := range gaps {
			gaps[i] = 2 + r.ExpFloat64()*8 // ms
		}
		all = append(all, gaps...)
		batches = append(batches, gaps)
	}
	tests := []struct {
		name     string
		list     ListSketch
		sketched bool
	}{
		{"default limit: exact", ListSketch{}, false},
		{"unbounded: exact", ListSketch{ExactLimit: -1}, false},
		{"limit at the total: exact", ListSketch{ExactLimit: len(all)}, false},
		{"limit below the total: sketch", ListSketch{ExactLimit: len(all) - 1}, true},
		{"small limit: sketch", ListSketch{ExactLimit: 100, Compression: 200}, true},
	}
	exact := stats.Summarize(slices.Clone(all))
	sorted := slices.Sorted(slices.Values(all))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := NewAccumulator(reg, sel, nil)
			acc.SetListSketch(tt.list)
			for _, g := range batches {
				acc.Add(iclProcessed(reg, g))
			}
			s := acc.Summarize()
			res, ok := s.Get(tagICL)
			if !ok || res.Stats == nil {
				t.Fatal("no inter_chunk_latency result")
			}
			got := *res.Stats
			if sk := acc.Sketched(); (len(sk) == 1) != tt.sketched || (tt.sketched && sk[0] != tagICL) {
				t.Errorf("Sketched() = %v, want sketched %v", sk, tt.sketched)
			}
			if got.Count != exact.Count || got.Min != exact.Min || got.Max != exact.Max ||
				!approx(got.Sum, exact.Sum) || !approx(got.Avg, exact.Avg) || !approx(got.Std, exact.Std) {
				t.Errorf("exact stats = %+v, want %+v", got, exact)
			}
			ps := []float64{got.P1, got.P5, got.P10, got.P25, got.P50, got.P75, got.P90, got.P95, got.P99}
			want := []float64{exact.P1, exact.P5, exact.P10, exact.P25, exact.P50, exact.P75, exact.P90, exact.P95, exact.P99}
			if !tt.sketched {
				if !slices.Equal(ps, want) {
					t.Errorf("percentiles = %v, want exactly %v", ps, want)
				}
				return
			}
			comp := tt.list.Compression
			if comp == 0 {
				comp = stats.DefaultCompression
			}
			for i, q := range stats.Quantiles {
				if e := rankErr(sorted, q/100, ps[i]); e > stats.RankErrorBound(q/100, comp) {
					t.Errorf("p%v = %v (exact %v): rank error %.5f over the bound", q, ps[i], want[i], e)
				}
			}
		})
	}
}

// TestAccumulatorScalarSketch: with ScalarExactLimit set, a scalar record
// metric moves to a sketch past that many records (exact count, sum, min,
// max, avg, std; percentiles within the bound) and derived metrics that use
// its sum are unchanged; without it scalar metrics stay exact.
func TestAccumulatorScalarSketch(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	m := reg.byTag[tagRequestLatency]
	sel := []*Metric{m}
	r := rand.New(rand.NewPCG(3, 3))
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = 20 + r.ExpFloat64()*30
	}
	exact := stats.Summarize(slices.Clone(vals))
	sorted := slices.Sorted(slices.Values(vals))
	for _, limit := range []int{0, 5000, 4999, 100} {
		acc := NewAccumulator(reg, sel, nil)
		acc.SetListSketch(ListSketch{ScalarExactLimit: limit})
		for _, v := range vals {
			acc.Add(&Processed{Record: &record.Record{}, Valid: true, Values: []Value{{Metric: m, Scalar: v}}})
		}
		sum := acc.Summarize()
		res, _ := sum.Get(tagRequestLatency)
		st := *res.Stats
		sketched := limit > 0 && limit < len(vals)
		if got := len(acc.Sketched()) == 1; got != sketched {
			t.Errorf("limit %d: sketched %v, want %v", limit, got, sketched)
		}
		if st.Count != exact.Count || st.Min != exact.Min || st.Max != exact.Max || !approx(st.Sum, exact.Sum) || !approx(st.Std, exact.Std) {
			t.Errorf("limit %d: exact stats %+v, want %+v", limit, st, exact)
		}
		if !sketched && st.P99 != exact.P99 {
			t.Errorf("limit %d: p99 %v, want exactly %v", limit, st.P99, exact.P99)
		}
		if e := rankErr(sorted, 0.99, st.P99); e > stats.RankErrorBound(0.99, stats.DefaultCompression) {
			t.Errorf("limit %d: p99 rank error %v", limit, e)
		}
	}
}

// rankErr is how far est is, in ranks/(n-1), from position q·(n−1) of
// sorted (0 when est lies at or next to that position).
func rankErr(sorted []float64, q, est float64) float64 {
	n := len(sorted)
	lo, _ := slices.BinarySearch(sorted, est) // first >= est
	hi := lo
	for hi < n && sorted[hi] == est {
		hi++
	}
	want := q * float64(n-1)
	a, b := float64(max(lo-1, 0)), float64(min(lo, n-1))
	if hi > lo {
		a, b = float64(lo), float64(hi-1)
	}
	switch {
	case want < a:
		return (a - want) / float64(n-1)
	case want > b:
		return (want - b) / float64(n-1)
	}
	return 0
}

// TestResidentSizes pins the in-flight footprint of a record, so a field
// added to Record or Chunk is a visible decision. Sizes are for 64-bit
// platforms.
func TestResidentSizes(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are pinned for 64-bit platforms")
	}
	if got := unsafe.Sizeof(record.Chunk{}); got != 48 {
		t.Errorf("record.Chunk is %d bytes, pinned at 48 (At 8 + Event 16 + Data 24)", got)
	}
	t.Logf("record.Record %d B, record.Chunk %d B (+ its data bytes)", unsafe.Sizeof(record.Record{}), unsafe.Sizeof(record.Chunk{}))
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkAccumulatorMemoryPerRecord measures what the accumulator keeps
// per record once a run is over: one float64 per selected scalar record
// metric plus, for inter_chunk_latency, one float64 per chunk gap (exact
// backend, below the limit). It folds 100,000 identical streaming records of
// the given chunk count and reports retained heap bytes per record.
func BenchmarkAccumulatorMemoryPerRecord(b *testing.B) {
	for _, chunks := range []int{1, 10, 100} {
		b.Run("chunks="+strconv.Itoa(chunks), func(b *testing.B) {
			reg := Builtin()
			sel := reg.Select(chatStreaming(false))
			proc, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Tokenizer: wordTokenizer{}, Metrics: sel})
			if err != nil {
				b.Fatal(err)
			}
			at := make([]float64, chunks)
			for i := range at {
				at[i] = float64(10 + 5*i)
			}
			p := proc.Process(streamRec(0, 1, at...))
			const n = 100_000
			var perRecord float64
			for b.Loop() {
				before := heapInUse()
				acc := NewAccumulator(reg, sel, nil)
				acc.SetListSketch(ListSketch{ExactLimit: -1})
				for range n {
					acc.Add(&p)
				}
				after := heapInUse()
				perRecord = float64(after-before) / n
				runtime.KeepAlive(acc)
			}
			b.ReportMetric(perRecord, "bytes/record")
			b.ReportMetric(float64(len(p.Values)), "values/record")
		})
	}
}

// BenchmarkAccumulatorLongRun feeds the accumulator one hour of a streaming
// run in miniature: 36,000 records of 100 chunks (3.6 M inter-chunk gaps,
// 10 req/s for an hour), with the default 1 M exact limit. It reports the
// peak live heap and the live heap at the end, and the heap each time
// another 10% of the feed has gone in (heap_at_XX_MB). Once the sketch
// takes over (after about 28% of the feed) the chunk series stops growing;
// by default what still grows is one float64 per scalar record metric per
// record (exact, as AIPerf). With ScalarExactLimit set as well, the heap is
// flat from then on.
func BenchmarkAccumulatorLongRun(b *testing.B) {
	b.Run("default", func(b *testing.B) { longRun(b, ListSketch{}) })
	// With the scalar limit too, nothing grows with the run once both
	// limits are passed.
	b.Run("scalar-limit=10000", func(b *testing.B) { longRun(b, ListSketch{ScalarExactLimit: 10_000}) })
}

func longRun(b *testing.B, ls ListSketch) {
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	proc, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Tokenizer: wordTokenizer{}, Metrics: sel})
	if err != nil {
		b.Fatal(err)
	}
	const records, chunks = 36_000, 101
	at := make([]float64, chunks)
	for i := range at {
		at[i] = float64(10 + 5*i)
	}
	p := proc.Process(streamRec(0, 1, at...))
	icl, ok := valueOf(p, tagICL)
	if !ok || len(icl.List) != chunks-1 {
		b.Fatalf("template record has %d gaps", len(icl.List))
	}
	r := rand.New(rand.NewPCG(1, 1))
	var peak, final float64
	marks := make([]float64, 10)
	for b.Loop() {
		base := heapInUse()
		acc := NewAccumulator(reg, sel, nil)
		acc.SetListSketch(ls)
		for i := range records {
			for j := range icl.List {
				icl.List[j] = 1 + r.ExpFloat64()*5
			}
			acc.Add(&p)
			if (i+1)%(records/10) == 0 {
				h := float64(heapInUse()-base) / 1e6
				marks[(i+1)/(records/10)-1] = h
				peak = max(peak, h)
			}
		}
		acc.Summarize()
		final = float64(heapInUse()-base) / 1e6
		runtime.KeepAlive(acc)
	}
	b.ReportMetric(peak, "peak_heap_MB")
	b.ReportMetric(final, "final_heap_MB")
	for i, m := range marks {
		b.ReportMetric(m, "heap_at_"+strconv.Itoa(10*(i+1))+"%_MB")
	}
}
