package metrics

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// TestEffectiveLatency: End - Due for valid and failed records, clamped at
// 0, and larger than request_latency by exactly the schedule lag.
func TestEffectiveLatency(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	proc := newTestProcessor(t, reg, nil)

	// Due at 0, held 50 ms behind a full gate, sent at 50, last content at
	// 80, End at 81.
	late := streamRec(50, 2, 60, 70, 80)
	late.Due = 0
	failed := &record.Record{Due: msDur(18), Sent: msDur(20), End: msDur(25), InputTokens: 10,
		Error: record.HTTPError(500, "Internal Server Error", "boom")}
	// A clock oddity (End before Due) must not produce a negative latency.
	odd := &record.Record{Due: msDur(30), Sent: msDur(30), End: msDur(20), InputTokens: 10,
		Error: record.HTTPError(500, "Internal Server Error", "boom")}

	tests := []struct {
		name      string
		rec       *record.Record
		effective float64 // ms
		lag       float64 // ms
	}{
		{"late valid", late, 81, 50},
		{"failed", failed, 7, 2},
		{"clamped", odd, 0, 0},
	}
	for _, tt := range tests {
		p := proc.Process(tt.rec)
		v, ok := valueOf(p, tagEffectiveLatency)
		if !ok || !approx(v.Scalar, tt.effective) {
			t.Errorf("%s: effective_latency = %v (present %v), want %v", tt.name, v.Scalar, ok, tt.effective)
		}
		if lag, _ := valueOf(p, tagScheduleLag); !approx(lag.Scalar, tt.lag) {
			t.Errorf("%s: schedule_lag = %v, want %v", tt.name, lag.Scalar, tt.lag)
		}
	}
	if rl, _ := valueOf(proc.Process(streamRec(50, 2, 60, 70, 80)), tagRequestLatency); !approx(rl.Scalar, 30) {
		t.Errorf("request_latency = %v, want 30 (measured from Sent)", rl.Scalar)
	}
	m := reg.byTag[tagEffectiveLatency]
	if m.Header != "Effective Latency (CO-aware)" || m.DisplayUnit != UnitMS || m.Group != GroupEffective ||
		!m.Flags.Has(FlagNoIndividualRecord) || m.Kind != KindRecord {
		t.Errorf("effective_latency definition %+v does not match AIPerf's", m)
	}
}

// TestLagPercentilesInSummary: schedule_lag is a record metric, so the
// summary carries its full distribution (p50, p90, p99, max), and
// late_request_count counts sends more than LateThreshold behind.
func TestLagPercentilesInSummary(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(chatStreaming(false))
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	acc := NewAccumulator(reg, sel, nil)
	// Lags 0, 0.5, 1, 1.5, ..., 49.5 ms.
	for i := range 100 {
		r := streamRec(float64(i)/2+100, 2, 200, 210)
		r.Due = msDur(100)
		p := proc.Process(r)
		acc.Add(&p)
	}
	s := acc.Summarize()
	lag, ok := s.Get(tagScheduleLag)
	if !ok || lag.Stats == nil {
		t.Fatal("no schedule_lag distribution")
	}
	// numpy: p50 of 0..49.5 step 0.5 = 24.75, p90 = 44.55, p99 = 49.005.
	if st := lag.Stats; !approx(st.P50, 24.75) || !approx(st.P90, 44.55) || !approx(st.P99, 49.005) || st.Max != 49.5 || st.Count != 100 {
		t.Errorf("schedule_lag stats = %+v", *st)
	}
	// Lags strictly above 1 ms: 1.5 .. 49.5 = 97 records.
	if late, _ := s.Get("late_request_count"); late.Value != 97 {
		t.Errorf("late_request_count = %v, want 97", late.Value)
	}
}
