package metrics

import (
	"math"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// TestErrorAdjustedMetrics runs AIPerf's adj_* rule through the
// accumulator: three streamed successes and one failure (a 503) or one
// cancelled request give each flagged latency a distribution over four
// samples, the failure at +Inf; a clean phase reports none.
func TestErrorAdjustedMetrics(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	for _, c := range []struct {
		name string
		fail *record.ErrorDetails
	}{
		{"none failed", nil},
		{"one failed", record.HTTPError(503, "Service Unavailable", "busy")},
		{"one cancelled", record.CancelledError(1500 * 1e6)},
	} {
		t.Run(c.name, func(t *testing.T) {
			acc := NewAccumulator(reg, sel, nil)
			proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
			// TTFTs 10, 20 and 30 ms; request latencies 41, 51 and 61 ms.
			for i, sent := range []float64{0, 100, 200} {
				ttft := float64(10 * (i + 1))
				r := streamRec(sent, 1, sent+ttft, sent+ttft+10, sent+ttft+20, sent+ttft+30)
				p := proc.Process(r)
				acc.Add(&p)
			}
			if c.fail != nil {
				r := &record.Record{Seq: 9, Sent: msDur(300), End: msDur(320), InputTokens: 10, Streaming: true, Error: c.fail}
				p := proc.Process(r)
				acc.Add(&p)
			}
			s := acc.Summarize()
			for _, r := range s.Results {
				if r.Metric.ErrorAdjusted() {
					t.Errorf("%s is among the finite Results", r.Metric.Tag)
				}
			}
			if c.fail == nil {
				if len(s.ErrorAdjusted) != 0 {
					t.Fatalf("a clean phase reports %d adj_* metrics", len(s.ErrorAdjusted))
				}
				return
			}
			var tags []string
			for _, r := range s.ErrorAdjusted {
				tags = append(tags, r.Metric.Tag)
			}
			want := []string{"adj_time_to_first_token", "adj_request_latency", "adj_decode_duration", "adj_inter_token_latency"}
			if len(tags) != len(want) {
				t.Fatalf("adj metrics = %v, want %v", tags, want)
			}
			for i := range want {
				if tags[i] != want[i] {
					t.Fatalf("adj metrics = %v, want %v", tags, want)
				}
			}
			ttft := s.ErrorAdjusted[0]
			if ttft.Metric.Header != "Time to First Token (error-adjusted)" || ttft.Metric.DisplayUnit != UnitMS {
				t.Errorf("header, unit = %q, %q", ttft.Metric.Header, ttft.Metric.DisplayUnit)
			}
			st := ttft.Stats
			inf := math.Inf(1)
			// numpy nearest over [10, 20, 30, +Inf]: index round((4-1)*q).
			got := [9]float64{st.P1, st.P5, st.P10, st.P25, st.P50, st.P75, st.P90, st.P95, st.P99}
			if want := [9]float64{10, 10, 10, 20, 30, 30, inf, inf, inf}; got != want {
				t.Errorf("adj ttft percentiles = %v, want %v", got, want)
			}
			if st.Count != 4 || st.Min != 10 || !math.IsInf(st.Avg, 1) || !math.IsInf(st.Max, 1) || !math.IsInf(st.Sum, 1) || !math.IsNaN(st.Std) {
				t.Errorf("adj ttft count, min, avg, max, sum, std = %d, %v, %v, %v, %v, %v", st.Count, st.Min, st.Avg, st.Max, st.Sum, st.Std)
			}
			if r, ok := s.Get(tagTTFT); !ok || r.Stats.Count != 3 || r.Stats.P99 >= 30.01 {
				t.Errorf("the success-only ttft changed: %+v", r.Stats)
			}
		})
	}
}

// TestCancelledAtPhaseEndIsNoError: a request cut off by the end of its phase
// (record.TypePhaseEndCancelled) is counted apart and nowhere else, as AIPerf,
// which keeps no record of it: no error row, no error count, no adj_*
// inflation, no request.
func TestCancelledAtPhaseEndIsNoError(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	acc := NewAccumulator(reg, sel, nil)
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	ok := streamRec(0, 1, 10, 20)
	p := proc.Process(ok)
	acc.Add(&p)
	for i := range 3 {
		e := record.CancelledError(2e9)
		e.Type = record.TypePhaseEndCancelled
		r := &record.Record{Seq: uint64(10 + i), Sent: msDur(5), End: msDur(5000), InputTokens: 10, Streaming: true, Cancelled: true, Error: e}
		p := proc.Process(r)
		acc.Add(&p)
	}
	s := acc.Summarize()
	if s.CancelledAtPhaseEnd != 3 {
		t.Errorf("CancelledAtPhaseEnd = %d, want 3", s.CancelledAtPhaseEnd)
	}
	if len(s.Errors) != 0 || len(s.ErrorAdjusted) != 0 {
		t.Errorf("errors %+v, adj %d; want none", s.Errors, len(s.ErrorAdjusted))
	}
	if _, ok := s.Get(tagErrorRequestCount); ok {
		t.Error("error_request_count present")
	}
	if r, ok := s.Get(tagRequestCount); !ok || r.Value != 1 {
		t.Errorf("request_count = %v, %v; want 1", r.Value, ok)
	}
	// The window ends with the one request that finished, not 5 s later.
	if r, ok := s.Get("benchmark_duration"); !ok || r.Value > 0.1 {
		t.Errorf("benchmark_duration = %v s; the cut-off requests stretched it", r.Value)
	}
}
