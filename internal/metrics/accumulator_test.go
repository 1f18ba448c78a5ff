package metrics

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// e2eRecords are four profiling requests with hand-computable results
// (2 words per chunk, ISL 10):
//
//	r1 sent 0,  due 0:  content at 10 20 30     TTFT 10 latency 30 OSL 6 ITL 20/5
//	r2 sent 5,  due 3:  content at 25 45        TTFT 20 latency 40 OSL 4 ITL 20/3
//	r3 sent 10, due 10: content at 40 50 60 70  TTFT 30 latency 60 OSL 8 ITL 30/7
//	r4 sent 20, due 18: HTTP 500 at 25
//
// plus one warmup record, which must not count.
func e2eRecords() []*record.Record {
	r1 := streamRec(0, 2, 10, 20, 30)
	r2 := streamRec(5, 2, 25, 45)
	r2.Due = msDur(3)
	r3 := streamRec(10, 2, 40, 50, 60, 70)
	r4 := &record.Record{Due: msDur(18), Sent: msDur(20), End: msDur(25), InputTokens: 10,
		Error: record.HTTPError(500, "Internal Server Error", "boom")}
	warm := streamRec(0, 2, 1000)
	warm.Phase = record.Warmup
	return []*record.Record{r1, r2, warm, r3, r4}
}

func TestEndToEnd(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	clk := clock.New()
	slos := map[string]float64{tagTTFT: 25}
	sel := reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: true})
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel; o.Clock = clk; o.SLOs = slos })
	acc := NewAccumulator(reg, sel, slos)
	for _, r := range e2eRecords() {
		p := proc.Process(r)
		acc.Add(&p)
	}
	s := acc.Summarize()

	stat := func(tag string) Stats {
		t.Helper()
		r, ok := s.Get(tag)
		if !ok || r.Stats == nil {
			t.Fatalf("%s: no distribution", tag)
		}
		return *r.Stats
	}
	checkStats := func(tag string, want Stats) {
		t.Helper()
		got := stat(tag)
		g := []float64{got.Avg, got.Min, got.Max, got.Sum, got.P50, got.P90, got.P99, got.Std, float64(got.Count)}
		w := []float64{want.Avg, want.Min, want.Max, want.Sum, want.P50, want.P90, want.P99, want.Std, float64(want.Count)}
		if !approxSlice(g, w) {
			t.Errorf("%s stats (avg min max sum p50 p90 p99 std count) = %v; want %v", tag, g, w)
		}
	}
	// [10 20 30]: p90 = 20 + 0.8*10, p99 = 20 + 0.98*10, std = sqrt(200/3).
	checkStats(tagTTFT, Stats{Avg: 20, Min: 10, Max: 30, Sum: 60, P50: 20, P90: 28, P99: 29.8, Std: math.Sqrt(200.0 / 3), Count: 3})
	// [30 40 60]: mean 130/3.
	m := 130.0 / 3
	checkStats(tagRequestLatency, Stats{Avg: m, Min: 30, Max: 60, Sum: 130, P50: 40, P90: 56, P99: 59.6,
		Std: math.Sqrt(((30-m)*(30-m) + (40-m)*(40-m) + (60-m)*(60-m)) / 3), Count: 3})
	// [4, 30/7, 20/3].
	itl := []float64{4, 30.0 / 7, 20.0 / 3}
	im := (itl[0] + itl[1] + itl[2]) / 3
	checkStats(tagITL, Stats{Avg: im, Min: 4, Max: 20.0 / 3, Sum: im * 3, P50: 30.0 / 7,
		P90: 30.0/7 + 0.8*(20.0/3-30.0/7), P99: 30.0/7 + 0.98*(20.0/3-30.0/7),
		Std: math.Sqrt(((itl[0]-im)*(itl[0]-im) + (itl[1]-im)*(itl[1]-im) + (itl[2]-im)*(itl[2]-im)) / 3), Count: 3})
	// Inter-chunk gaps pooled over records: [10 10] [20] [10 10 10].
	checkStats(tagICL, Stats{Avg: 70.0 / 6, Min: 10, Max: 20, Sum: 70, P50: 10, P90: 15, P99: 19.5,
		Std: math.Sqrt((5*(10-70.0/6)*(10-70.0/6) + (20-70.0/6)*(20-70.0/6)) / 6), Count: 6})
	// Schedule lag includes the failed record: [0 2 0 2] ms.
	checkStats(tagScheduleLag, Stats{Avg: 1, Min: 0, Max: 2, Sum: 4, P50: 1, P90: 2, P99: 2, Std: 1, Count: 4})

	// Benchmark duration: first valid send (0) to last content (10 + 60 = 70 ms).
	values := map[string]float64{
		tagRequestCount: 3, tagErrorRequestCount: 1, tagContextOverflowCount: 0, "completed_request_count": 4, "request_error_rate": 25,
		tagBenchmarkDuration: 0.07, tagRequestThroughput: 3 / 0.07,
		tagTotalOSL: 18, tagTotalOutputTokens: 18, tagTotalISL: 30, "total_error_isl": 10,
		"output_token_throughput": 18 / 0.07, "input_token_throughput": 30 / 0.07,
		"total_token_throughput": 48 / 0.07, "late_request_count": 2,
		tagGoodRequestCount: 2, "good_request_fraction": 0.5, "goodput": 2 / 0.07,
		tagMinRequest: float64(clk.WallNanos(0)), tagMaxResponse: float64(clk.WallNanos(70 * ms)),
	}
	for tag, w := range values {
		r, ok := s.Get(tag)
		if !ok || r.Stats != nil || !approx(r.Value, w) {
			t.Errorf("%s = %+v (present %v); want %v", tag, r.Value, ok, w)
		}
	}
	// Absent: no reasoning, no usage.
	for _, tag := range []string{tagReasoningTokens, tagTotalReasoning, tagUsagePrompt, "total_usage_prompt_tokens"} {
		if _, ok := s.Get(tag); ok {
			t.Errorf("%s present; want absent", tag)
		}
	}

	// Results sorted by display order, unordered metrics last, then by tag.
	for i := 1; i < len(s.Results); i++ {
		a, b := s.Results[i-1].Metric, s.Results[i].Metric
		ka, kb := a.Order, b.Order
		if ka == 0 {
			ka = math.MaxInt
		}
		if kb == 0 {
			kb = math.MaxInt
		}
		if ka > kb || (ka == kb && a.Tag > b.Tag) {
			t.Errorf("results out of order: %s (%d) before %s (%d)", a.Tag, a.Order, b.Tag, b.Order)
		}
	}
	if s.Results[0].Metric.Tag != tagTTFT {
		t.Errorf("first result = %s; want time_to_first_token", s.Results[0].Metric.Tag)
	}

	if len(s.Errors) != 1 || s.Errors[0].Count != 1 || s.Errors[0].Error.Code != 500 {
		t.Errorf("Errors = %+v", s.Errors)
	}
	if !s.Start.Equal(clk.Wall(0)) || !s.End.Equal(clk.Wall(71*ms)) {
		t.Errorf("Start, End = %v, %v; want %v, %v", s.Start, s.End, clk.Wall(0), clk.Wall(71*ms))
	}

	// The phase window (AIPerf 0.13's throughput denominator) runs from the
	// phase start to the last record's end, the failed one's at 71 ms
	// included; benchmark_duration keeps its own definition.
	acc.SetPhaseStart(0)
	s = acc.Summarize()
	for tag, w := range map[string]float64{
		tagRequestThroughput: 3 / 0.071, "output_token_throughput": 18 / 0.071,
		"input_token_throughput": 30 / 0.071, "total_token_throughput": 48 / 0.071, "goodput": 2 / 0.071,
		tagBenchmarkDuration: 0.07,
	} {
		if r, _ := s.Get(tag); !approx(r.Value, w) {
			t.Errorf("%s with the phase starting at 0 = %v; want %v", tag, r.Value, w)
		}
	}

	// An explicit observation window overrides the phase window.
	acc.SetWindow(0, 100*ms)
	s = acc.Summarize()
	if r, _ := s.Get(tagRequestThroughput); !approx(r.Value, 30) {
		t.Errorf("request_throughput with a 100 ms window = %v; want 30", r.Value)
	}
	if r, _ := s.Get(tagBenchmarkDuration); !approx(r.Value, 0.07) {
		t.Errorf("benchmark_duration with a window = %v; want 0.07", r.Value)
	}
}

func TestAccumulatorErrorsAndEmpty(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	acc := NewAccumulator(reg, sel, nil)
	if s := acc.Summarize(); len(s.Results) != 0 || len(s.Errors) != 0 || !s.Start.IsZero() {
		t.Errorf("empty Summarize = %+v", s)
	}
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	errA := record.HTTPError(503, "Service Unavailable", "busy")
	errB := record.CancelledError(1500 * time.Millisecond)
	errB2 := record.CancelledError(1485 * time.Millisecond) // the same error after another time: one row
	for i, e := range []*record.ErrorDetails{errA, errB, errA, errB2, errA, {Type: record.TypeConnect, Message: "refused"}} {
		r := &record.Record{Seq: uint64(i), Sent: msDur(float64(i)), End: msDur(float64(i) + 1), InputTokens: 5}
		r.Error = new(record.ErrorDetails)
		*r.Error = *e
		p := proc.Process(r)
		acc.Add(&p)
	}
	s := acc.Summarize()
	cancelled := *errB
	cancelled.Message = "Request was cancelled after N seconds"
	want := []ErrorCount{{*errA, 3}, {cancelled, 2}, {record.ErrorDetails{Type: record.TypeConnect, Message: "refused"}, 1}}
	if !slices.Equal(s.Errors, want) {
		t.Errorf("Errors = %+v; want %+v", s.Errors, want)
	}
	// All failed: no request_count, no duration or throughput; counts and
	// error rate still reported.
	for _, tag := range []string{tagRequestCount, tagBenchmarkDuration, tagRequestThroughput, tagTTFT} {
		if _, ok := s.Get(tag); ok {
			t.Errorf("%s present on an all-error run", tag)
		}
	}
	for tag, w := range map[string]float64{tagErrorRequestCount: 6, "completed_request_count": 6,
		"request_error_rate": 100, "total_error_isl": 30} {
		if r, ok := s.Get(tag); !ok || r.Value != w {
			t.Errorf("%s = %v, %v; want %v", tag, r.Value, ok, w)
		}
	}
	// Results hold only finite values.
	for _, r := range s.Results {
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			t.Errorf("%s = %v", r.Metric.Tag, r.Value)
		}
	}
}

func BenchmarkAccumulatorAdd(b *testing.B) {
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	proc, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Tokenizer: wordTokenizer{}, Metrics: sel})
	if err != nil {
		b.Fatal(err)
	}
	p := proc.Process(streamRec(0, 2, 10, 20, 30, 40))
	acc := NewAccumulator(reg, sel, nil)
	b.ReportAllocs()
	for b.Loop() {
		acc.Add(&p)
	}
}

func BenchmarkProcess(b *testing.B) {
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	proc, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Tokenizer: wordTokenizer{}, Metrics: sel})
	if err != nil {
		b.Fatal(err)
	}
	r := streamRec(0, 2, 10, 20, 30, 40)
	b.ReportAllocs()
	for b.Loop() {
		r.Error = nil
		_ = proc.Process(r)
	}
}
