package metrics

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// These tests reproduce the concrete cases of AIPerf's own unit tests
// (reference section 14.2, items 1-15; item 16 is in package stats). AIPerf
// states its timestamps in ns; here the same numbers are milliseconds,
// because Processed values are in display units (ms) and that keeps the
// expected values identical.

// processOne runs one record through a fresh processor.
func processOne(t *testing.T, r *record.Record) Processed {
	t.Helper()
	return newTestProcessor(t, Builtin(), nil).Process(r)
}

func TestReferenceRecordLatencies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tag    string
		rec    *record.Record
		want   []float64 // nil: no value
		isList bool
	}{
		// Item 1: TTFT.
		{"ttft one response", tagTTFT, streamRec(100, 1, 110), []float64{10}, false},
		{"ttft two responses", tagTTFT, streamRec(100, 1, 105, 115), []float64{5}, false},
		{"ttft response before start", tagTTFT, streamRec(100, 1, 90, 120), nil, false},
		// Item 2: TTST.
		{"ttst", tagTTST, streamRec(100, 1, 105, 110, 130), []float64{5}, false},
		{"ttst one response", tagTTST, streamRec(100, 1, 110), nil, false},
		// Item 3: ITL = (latency - TTFT) / (OSL - 1).
		{"itl two chunks", tagITL, streamRec(100, 3, 120, 200), []float64{16}, false},
		{"itl three chunks", tagITL, streamRec(1000, 3, 1040, 1080, 1120), []float64{10}, false},
		{"itl osl 1", tagITL, streamRec(100, 1, 120), nil, false},
		// Item 4: inter-chunk latency.
		{"icl", tagICL, streamRec(100, 1, 110, 120, 135), []float64{10, 15}, true},
		{"icl from start", tagICL, streamRec(90, 1, 100, 105, 115, 130), []float64{5, 10, 15}, true},
		{"icl five", tagICL, streamRec(990, 1, 1000, 1040, 1080, 1120, 1200), []float64{40, 40, 40, 80}, true},
		{"icl out of order", tagICL, streamRec(100, 1, 120, 110, 130), nil, true},
		{"icl one response", tagICL, streamRec(100, 1, 110), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := processOne(t, tt.rec)
			if !p.Valid {
				t.Fatalf("record invalid: %+v", tt.rec.Error)
			}
			v, ok := valueOf(p, tt.tag)
			switch {
			case tt.want == nil && ok:
				t.Errorf("%s = %+v; want no value", tt.tag, v)
			case tt.want == nil:
			case !ok:
				t.Errorf("%s: no value; want %v", tt.tag, tt.want)
			case tt.isList && !approxSlice(v.List, tt.want):
				t.Errorf("%s = %v; want %v", tt.tag, v.List, tt.want)
			case !tt.isList && !approx(v.Scalar, tt.want[0]):
				t.Errorf("%s = %v; want %v", tt.tag, v.Scalar, tt.want[0])
			}
		})
	}
}

// TestReferenceAcrossRecords: items 1 and 2 over several records.
func TestReferenceAcrossRecords(t *testing.T) {
	t.Parallel()
	proc := newTestProcessor(t, Builtin(), nil)
	for _, tt := range []struct {
		tag  string
		recs []*record.Record
		want []float64
	}{
		{tagTTFT, []*record.Record{streamRec(100, 1, 105, 115), streamRec(200, 1, 205, 215), streamRec(300, 1, 310, 320)}, []float64{5, 5, 10}},
		{tagTTST, []*record.Record{streamRec(100, 1, 105, 110), streamRec(200, 1, 205, 210), streamRec(300, 1, 310, 325)}, []float64{5, 5, 15}},
	} {
		var got []float64
		for _, r := range tt.recs {
			v, _ := valueOf(proc.Process(r), tt.tag)
			got = append(got, v.Scalar)
		}
		if !approxSlice(got, tt.want) {
			t.Errorf("%s over records = %v; want %v", tt.tag, got, tt.want)
		}
	}
}

// Item 5: benchmark duration = last response - first request start over
// valid records.
func TestReferenceBenchmarkDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		recs []*record.Record
		want float64 // seconds
	}{
		{[]*record.Record{streamRec(10, 1, 15), streamRec(20, 1, 25), streamRec(30, 1, 40)}, 0.030},
		{[]*record.Record{streamRec(100, 1, 150)}, 0.050},
	}
	for _, tt := range tests {
		reg := Builtin()
		sel := reg.Select(chatStreaming(false))
		proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
		acc := NewAccumulator(reg, sel, nil)
		for _, r := range tt.recs {
			p := proc.Process(r)
			acc.Add(&p)
		}
		s := acc.Summarize()
		got, ok := s.Get(tagBenchmarkDuration)
		if !ok || !approx(got.Value, tt.want) {
			t.Errorf("benchmark_duration = %+v (ok %v); want %v", got.Value, ok, tt.want)
		}
	}
}

// deriveWith evaluates a derived metric over base-unit inputs.
func deriveWith(reg *Registry, tag string, in map[string]float64) (float64, bool) {
	n := len(reg.metrics)
	dc := &deriveContext{reg: reg, vals: make([]float64, n), has: make([]bool, n)}
	for k, v := range in {
		m := reg.byTag[k]
		dc.vals[m.idx], dc.has[m.idx] = v, true
	}
	m := reg.byTag[tag]
	if !dc.hasAll(m.Requires) {
		return 0, false
	}
	return m.derive(dc)
}

// Items 6-8 and 12: throughputs and goodput divide by the duration in s.
func TestReferenceThroughputs(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	tests := []struct {
		tag    string
		in     map[string]float64
		want   float64
		wantOK bool
	}{
		{tagRequestThroughput, map[string]float64{tagRequestCount: 100, tagBenchmarkDuration: 5e9}, 20, true},
		{tagRequestThroughput, map[string]float64{tagRequestCount: 100, tagBenchmarkDuration: 0}, 0, false},
		{"output_token_throughput", map[string]float64{tagTotalOSL: 1000, tagBenchmarkDuration: 2e9}, 500, true},
		{"output_token_throughput", map[string]float64{tagTotalOSL: 750, tagBenchmarkDuration: 1.5e9}, 500, true},
		{"total_token_throughput", map[string]float64{tagTotalISL: 600, tagTotalOSL: 400, tagBenchmarkDuration: 2e9}, 500, true},
		{"total_token_throughput", map[string]float64{tagTotalISL: 500, tagTotalOSL: 250, tagBenchmarkDuration: 1.5e9}, 500, true},
		{"total_token_throughput", map[string]float64{tagTotalISL: 1000, tagTotalOSL: 0, tagBenchmarkDuration: 1e9}, 1000, true},
		{"total_token_throughput", map[string]float64{tagTotalISL: 50, tagTotalOSL: 50, tagBenchmarkDuration: 0.1e9}, 1000, true},
		{"total_token_throughput", map[string]float64{tagTotalISL: 500e3, tagTotalOSL: 500e3, tagBenchmarkDuration: 1e9}, 1e6, true},
		{"goodput", map[string]float64{tagGoodRequestCount: 15, tagBenchmarkDuration: 1e9}, 15, true},
		{"goodput", map[string]float64{tagGoodRequestCount: 0, tagBenchmarkDuration: 1e9}, 0, true},
		{"input_token_throughput", map[string]float64{tagTotalISL: 500, tagBenchmarkDuration: 0.5e9}, 1000, true},
	}
	for _, tt := range tests {
		got, ok := deriveWith(reg, tt.tag, tt.in)
		if ok != tt.wantOK || (ok && !approx(got, tt.want)) {
			t.Errorf("%s(%v) = %v, %v; want %v, %v", tt.tag, tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// recordWith evaluates a record or aggregate metric's function over
// base-unit dependency values.
func recordWith(reg *Registry, tag string, th Thresholds, in map[string]float64) (float64, bool) {
	n := len(reg.metrics)
	c := &recordContext{reg: reg, rec: &record.Record{}, thresholds: th,
		vals: make([]float64, n), has: make([]bool, n)}
	for k, v := range in {
		m := reg.byTag[k]
		c.vals[m.idx], c.has[m.idx] = v, true
	}
	return reg.byTag[tag].record(c)
}

// Items 9-11, 14 and 15: per-record rates and percentages.
func TestReferenceRecordFormulas(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	def := DefaultThresholds()
	tests := []struct {
		tag    string
		in     map[string]float64
		want   float64
		wantOK bool
	}{
		// Item 9: E2E output token throughput = OSL / latency_s.
		{"e2e_output_token_throughput", map[string]float64{tagOSL: 100, tagRequestLatency: 2e9}, 50, true},
		{"e2e_output_token_throughput", map[string]float64{tagOSL: 200, tagRequestLatency: 1e9}, 200, true},
		{"e2e_output_token_throughput", map[string]float64{tagOSL: 500, tagRequestLatency: 5e8}, 1000, true},
		{"e2e_output_token_throughput", map[string]float64{tagOSL: 50, tagRequestLatency: 1e10}, 5, true},
		{"e2e_output_token_throughput", map[string]float64{tagOSL: 50, tagRequestLatency: 0}, 0, false},
		// Item 10: output TPS per user = 1 / ITL_s.
		{"output_token_throughput_per_user", map[string]float64{tagITL: 0.1e9}, 10, true},
		{"output_token_throughput_per_user", map[string]float64{tagITL: 0}, 0, false},
		// Item 11: prefill throughput per user = ISL / TTFT_s.
		{"prefill_throughput_per_user", map[string]float64{tagISL: 1000, tagTTFT: 0.1e9}, 10000, true},
		// Item 14: signed OSL mismatch percentage.
		{tagOSLMismatchDiff, map[string]float64{tagRequestedOSL: 100, tagOSL: 50}, -50, true},
		{tagOSLMismatchDiff, map[string]float64{tagRequestedOSL: 100, tagOSL: 120}, 20, true},
		{tagOSLMismatchDiff, map[string]float64{tagRequestedOSL: 100, tagOSL: 100}, 0, true},
		// Item 15: absolute usage difference percentage.
		{tagUsagePromptDiff, map[string]float64{tagISL: 100, tagUsagePrompt: 110}, 10, true},
		{tagUsagePromptDiff, map[string]float64{tagISL: 100, tagUsagePrompt: 105}, 5, true},
		{tagUsagePromptDiff, map[string]float64{tagISL: 100, tagUsagePrompt: 150}, 50, true},
		{tagUsagePromptDiff, map[string]float64{tagISL: 100, tagUsagePrompt: 100}, 0, true},
		{tagUsagePromptDiff, map[string]float64{tagISL: 0, tagUsagePrompt: 100}, 0, false},
		{tagUsageCompletionDiff, map[string]float64{tagOSL: 50, tagUsageCompletion: 55}, 10, true},
		{tagUsageReasoningDiff, map[string]float64{tagReasoningTokens: 50, tagUsageReasoning: 48}, 4, true},
	}
	for _, tt := range tests {
		got, ok := recordWith(reg, tt.tag, def, tt.in)
		if ok != tt.wantOK || (ok && !approx(got, tt.want)) {
			t.Errorf("%s(%v) = %v, %v; want %v, %v", tt.tag, tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// Item 14: osl_mismatch_count with configurable thresholds.
func TestReferenceOSLMismatchCount(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	tests := []struct {
		pct, maxTok float64
		requested   float64
		actuals     []float64
		want        float64
	}{
		{20, 50, 100, []float64{100, 50, 85, 70, 120}, 2},
		{10, 50, 100, []float64{130, 105}, 1},
		{50, 50, 100, []float64{100, 60, 140}, 0},
		{5, 50, 2000, []float64{1940, 1960}, 1},
	}
	for _, tt := range tests {
		th := Thresholds{UsageDiffPct: 10, OSLMismatchPct: tt.pct, OSLMismatchMaxTokens: tt.maxTok}
		var total float64
		for _, a := range tt.actuals {
			in := map[string]float64{tagRequestedOSL: tt.requested, tagOSL: a,
				tagOSLMismatchDiff: (a - tt.requested) / tt.requested * 100}
			v, ok := recordWith(reg, "osl_mismatch_count", th, in)
			if !ok {
				t.Fatalf("osl_mismatch_count(%v): no value", in)
			}
			total += v
		}
		if total != tt.want {
			t.Errorf("osl_mismatch_count(pct %v, max %v, requested %v, %v) = %v; want %v",
				tt.pct, tt.maxTok, tt.requested, tt.actuals, total, tt.want)
		}
	}
}

// Item 13: SLO request_latency:250 (ms) is 250,000,000 ns; <= is inclusive;
// records of 100, 300 and exactly 250 ms give 2 good requests.
func TestReferenceGoodRequestCount(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	slos := map[string]float64{"request_latency": 250} // --goodput "request_latency:250"
	compiled, err := compileSLOs(reg, slos)
	if err != nil || len(compiled) != 1 || compiled[0].threshold != 250_000_000 {
		t.Fatalf("compileSLOs = %+v, %v; want threshold 250000000 ns", compiled, err)
	}
	sel := reg.Select(chatStreaming(true))
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.SLOs = slos; o.Metrics = sel })
	acc := NewAccumulator(reg, sel, slos)
	var perRecord []float64
	for _, r := range []*record.Record{streamRec(0, 1, 100), streamRec(100, 1, 400), streamRec(200, 1, 450)} {
		p := proc.Process(r)
		v, _ := valueOf(p, tagGoodRequestCount)
		perRecord = append(perRecord, v.Scalar)
		acc.Add(&p)
	}
	if !approxSlice(perRecord, []float64{1, 0, 1}) {
		t.Errorf("good_request_count per record = %v; want [1 0 1]", perRecord)
	}
	s := acc.Summarize()
	if got, _ := s.Get(tagGoodRequestCount); got.Value != 2 {
		t.Errorf("good_request_count = %v; want 2", got.Value)
	}
	// good / (valid + errors) and good / duration (0 -> 450 ms).
	if got, _ := s.Get("good_request_fraction"); !approx(got.Value, 2.0/3) {
		t.Errorf("good_request_fraction = %v; want %v", got.Value, 2.0/3)
	}
	if got, _ := s.Get("goodput"); !approx(got.Value, 2/0.45) {
		t.Errorf("goodput = %v; want %v", got.Value, 2/0.45)
	}

	// Without SLOs every record counts 0 and the goodput metrics vanish.
	plain := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = reg.Select(chatStreaming(false)) })
	if _, ok := valueOf(plain.Process(streamRec(0, 1, 100)), tagGoodRequestCount); ok {
		t.Errorf("good_request_count computed without SLOs")
	}
	noSLO := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.Metrics = sel })
	if v, ok := valueOf(noSLO.Process(streamRec(0, 1, 100)), tagGoodRequestCount); !ok || v.Scalar != 0 {
		t.Errorf("good_request_count with goodput selected but no SLOs = %v, %v; want 0", v.Scalar, ok)
	}

	// An unknown tag is an error.
	if err := ValidateSLOs(map[string]float64{"no_such_metric": 1}, sel); err == nil {
		t.Errorf("ValidateSLOs(unknown tag) = nil error")
	}
	if _, err := NewProcessor(reg, ProcessorOptions{Parser: testParser{}, Metrics: sel,
		SLOs: map[string]float64{"no_such_metric": 1}}); err == nil {
		t.Errorf("NewProcessor(unknown SLO tag) = nil error")
	}
}

// A missing SLO metric on a record means no value (not good), and an SLO on
// a larger-is-better metric passes at >=.
func TestGoodRequestDirections(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	slos := map[string]float64{"output_token_throughput_per_user": 100, tagTTFT: 50}
	proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.SLOs = slos })
	tests := []struct {
		rec    *record.Record
		want   float64
		wantOK bool
	}{
		// ITL 10 ms -> 100 tokens/s/user (>= 100 passes); TTFT 10 ms <= 50.
		{streamRec(0, 1, 10, 20), 1, true},
		// ITL 20 ms -> 50 tokens/s/user fails.
		{streamRec(0, 1, 10, 30), 0, true},
		// TTFT 60 ms fails.
		{streamRec(0, 1, 60, 70), 0, true},
		// One chunk: no ITL, so no value.
		{streamRec(0, 1, 10), 0, false},
	}
	for i, tt := range tests {
		v, ok := valueOf(proc.Process(tt.rec), tagGoodRequestCount)
		if ok != tt.wantOK || v.Scalar != tt.want {
			t.Errorf("case %d: good_request_count = %v, %v; want %v, %v", i, v.Scalar, ok, tt.want, tt.wantOK)
		}
	}
}
