package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// failureBase is a record sent at 10 ms and ended at 50 ms with the given
// chunks, for the failure cases to break.
func failureBase(chunks ...record.Chunk) *record.Record {
	return &record.Record{Due: msDur(8), Sent: msDur(10), End: msDur(50), InputTokens: -1,
		InputTexts: []string{"a b", "c"}, Chunks: chunks}
}

func TestProcessFailures(t *testing.T) {
	t.Parallel()
	base := failureBase
	preErr := base(chunk(20, " w"))
	preErr.Error = record.HTTPError(500, "Internal Server Error", "boom")
	sseErr := base(chunk(20, " w"), record.Chunk{At: msDur(30), Event: "error", Data: []byte("overloaded")})
	late := base(chunk(20, " w"))
	late.End = late.Sent

	tests := []struct {
		name string
		rec  *record.Record
		want record.ErrorDetails
	}{
		{"unparseable chunk", base(chunk(20, " w"), chunk(30, "!garbage")),
			record.ErrorDetails{Type: record.TypeJSON, Message: "invalid character '!' looking for beginning of value"}},
		{"in-band error", base(chunk(20, " w"), chunk(30, "ERR:rate limited")),
			record.ErrorDetails{Code: 400, Type: record.TypeServerReported, Message: "rate limited"}},
		{"sse error event", sseErr,
			record.ErrorDetails{Code: 502, Type: record.TypeServerReported, Message: "Error occurred in SSE response: overloaded"}},
		{"no content", base(chunk(20, "USAGE 5 0 5 -1 -1"), chunk(30, "[DONE]"), chunk(31, "")),
			record.ErrorDetails{Type: record.TypeInvalidResult, Message: msgNoContent}},
		{"no chunks at all", base(), record.ErrorDetails{Type: record.TypeInvalidResult, Message: msgNoContent}},
		{"end not after start", late, record.ErrorDetails{Type: record.TypeInvalidResult, Message: msgBadTiming}},
		{"transport error kept", preErr, *record.HTTPError(500, "Internal Server Error", "boom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := processOne(t, tt.rec)
			if p.Valid || tt.rec.Error == nil || *tt.rec.Error != tt.want {
				t.Fatalf("Process: valid %v, error %+v; want error %+v", p.Valid, tt.rec.Error, tt.want)
			}
			// Failed records carry only ERROR_ONLY and EveryRecord metrics.
			var got []string
			for _, v := range p.Values {
				got = append(got, v.Metric.Tag)
			}
			want := []string{tagErrorISL, tagErrorRequestCount, tagContextOverflowCount, tagScheduleLag, "late_request_count", tagEffectiveLatency, tagCreditToStart}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("failed record metrics = %v; want %v", got, want)
			}
			if v, _ := valueOf(p, tagErrorISL); v.Scalar != 3 { // " ".join(["a b", "c"]) is 3 words
				t.Errorf("error_isl = %v; want 3", v.Scalar)
			}
			if v, ok := valueOf(p, tagContextOverflowCount); !ok || v.Scalar != 0 {
				t.Errorf("context_overflow_count = %v (present %v); want 0: the error is not about the context", v.Scalar, ok)
			}
			if v, _ := valueOf(p, tagScheduleLag); v.Scalar != 2 {
				t.Errorf("schedule_lag = %v ms; want 2", v.Scalar)
			}
			if v, _ := valueOf(p, "late_request_count"); v.Scalar != 1 {
				t.Errorf("late_request_count = %v; want 1", v.Scalar)
			}
		})
	}
}

func TestProcessTokensAndUsage(t *testing.T) {
	t.Parallel()
	reasoningRec := func() *record.Record {
		return &record.Record{Sent: 0, End: msDur(100), InputTokens: 20, RequestedOSL: 10, Streaming: true,
			Chunks: []record.Chunk{
				chunk(10, "THINK: hmm let me"), // 3 reasoning words
				chunk(20, "THINK: think"),      // 1
				chunk(30, " The answer"),       // 2 output words
				chunk(40, " is 42"),            // 2
				chunk(50, "USAGE 22 7 29 -1 -1"),
				chunk(60, "USAGE 25 9 34 3 5"),    // the last usage wins
				chunk(70, "USAGE -1 -1 -1 -1 -1"), // empty usage is ignored
				chunk(80, "[DONE]"),
			}}
	}
	t.Run("client tokenizer", func(t *testing.T) {
		t.Parallel()
		p := processOne(t, reasoningRec())
		if !p.Valid {
			t.Fatalf("invalid: %+v", p.Record.Error)
		}
		want := map[string]float64{
			tagTTFT: 10, tagTTFO: 30, tagRequestLatency: 40, tagTTST: 10,
			tagISL: 20, tagOutputTokens: 4, tagReasoningTokens: 4, tagOSL: 8,
			tagITL: 30.0 / 7, "thinking_efficiency": 1, "decode_duration": 30,
			tagUsagePrompt: 25, tagUsageCompletion: 9, tagUsageTotal: 34, tagUsageReasoning: 3, tagUsageCacheRead: 5,
			tagUsagePromptDiff: 25, tagUsageCompletionDiff: 12.5, tagUsageReasoningDiff: 25,
			"usage_discrepancy_count": 1, tagRequestedOSL: 10, tagOSLMismatchDiff: -20, "osl_mismatch_count": 1,
			tagRequestCount: 1, tagScheduleLag: 0, "late_request_count": 0,
		}
		for tag, w := range want {
			v, ok := valueOf(p, tag)
			if !ok || !approx(v.Scalar, w) {
				t.Errorf("%s = %v (present %v); want %v", tag, v.Scalar, ok, w)
			}
		}
		if v, _ := valueOf(p, tagICL); !approxSlice(v.List, []float64{10, 10, 10}) {
			t.Errorf("inter_chunk_latency = %v; want [10 10 10]", v.List)
		}
	})
	t.Run("server token counts", func(t *testing.T) {
		t.Parallel()
		reg := Builtin()
		sel := reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, UseServerTokenCount: true})
		proc := newTestProcessor(t, reg, func(o *ProcessorOptions) { o.UseServerTokenCount = true; o.Metrics = sel })
		p := proc.Process(reasoningRec())
		want := map[string]float64{tagISL: 25, tagReasoningTokens: 3, tagOutputTokens: 6, tagOSL: 9, tagUsagePrompt: 25}
		for tag, w := range want {
			if v, ok := valueOf(p, tag); !ok || v.Scalar != w {
				t.Errorf("%s = %v (present %v); want %v", tag, v.Scalar, ok, w)
			}
		}
		for _, tag := range []string{tagUsagePromptDiff, "usage_discrepancy_count"} {
			if _, ok := valueOf(p, tag); ok {
				t.Errorf("%s computed with server token counts", tag)
			}
		}

		// Reasoning above completion clamps output at 0 (which is no
		// output_token_count value), and no usage means no counts at all.
		r := streamRec(0, 1, 10, 20)
		r.Chunks = slices.Insert(r.Chunks, 2, chunk(21, "USAGE 5 2 7 4 -1"))
		p = proc.Process(r)
		if _, ok := valueOf(p, tagOutputTokens); ok {
			t.Errorf("output_token_count present after clamping to 0")
		}
		if v, _ := valueOf(p, tagOSL); v.Scalar != 4 {
			t.Errorf("output_sequence_length = %v; want 4 (0 output + 4 reasoning)", v.Scalar)
		}
		p = proc.Process(streamRec(0, 1, 10, 20))
		for _, tag := range []string{tagISL, tagOSL, tagOutputTokens} {
			if _, ok := valueOf(p, tag); ok {
				t.Errorf("%s present without usage in server mode", tag)
			}
		}
	})
	t.Run("usage within threshold", func(t *testing.T) {
		t.Parallel()
		r := streamRec(0, 2, 10, 20) // ISL 10, OSL 4
		r.Chunks = slices.Insert(r.Chunks, 2, chunk(21, "USAGE 11 4 15 -1 -1"))
		p := processOne(t, r)
		if v, _ := valueOf(p, tagUsagePromptDiff); !approx(v.Scalar, 10) {
			t.Errorf("usage_prompt_tokens_diff_pct = %v; want 10", v.Scalar)
		}
		if v, ok := valueOf(p, "usage_discrepancy_count"); !ok || v.Scalar != 0 {
			t.Errorf("usage_discrepancy_count = %v, %v; want 0 (10%% is not above 10%%)", v.Scalar, ok)
		}
	})
	t.Run("no tokenizer", func(t *testing.T) {
		t.Parallel()
		proc := newTestProcessor(t, Builtin(), func(o *ProcessorOptions) { o.Tokenizer = nil })
		r := streamRec(0, 2, 10, 20)
		p := proc.Process(r)
		if v, ok := valueOf(p, tagISL); !ok || v.Scalar != 10 {
			t.Errorf("input_sequence_length = %v, %v; want the record's own 10", v.Scalar, ok)
		}
		if _, ok := valueOf(p, tagOSL); ok {
			t.Errorf("output_sequence_length present without a tokenizer")
		}
	})
}

// Degenerate timing never produces NaN or Inf: zero latencies make the rate
// metrics "no value".
func TestProcessNoNonFinite(t *testing.T) {
	t.Parallel()
	r := streamRec(100, 2, 100, 100) // content at the send instant
	p := processOne(t, r)
	if !p.Valid {
		t.Fatalf("invalid: %+v", r.Error)
	}
	for _, v := range p.Values {
		for _, x := range append([]float64{v.Scalar}, v.List...) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("%s = %v", v.Metric.Tag, x)
			}
		}
	}
	for _, tag := range []string{"output_token_throughput_per_user", "e2e_output_token_throughput", "prefill_throughput_per_user"} {
		if _, ok := valueOf(p, tag); ok {
			t.Errorf("%s present with zero time", tag)
		}
	}
}

// Values are in display units and dependency order; aggregate contributions
// are included (exporters drop NO_INDIVIDUAL_RECORDS ones).
func TestProcessValuesOrderAndUnits(t *testing.T) {
	t.Parallel()
	p := processOne(t, streamRec(0, 1, 12.5, 20))
	for i := 1; i < len(p.Values); i++ {
		a, b := p.Values[i-1].Metric, p.Values[i].Metric
		if a.idx >= b.idx && !isGoodCount(b) {
			t.Errorf("values out of dependency order: %s before %s", a.Tag, b.Tag)
		}
	}
	if v, _ := valueOf(p, tagTTFT); v.Scalar != 12.5 {
		t.Errorf("time_to_first_token = %v; want 12.5 (ms)", v.Scalar)
	}
	if p.ProcessorID != "record_processor_test" || p.StartNs != 0 || p.EndNs != int64(21*ms) {
		t.Errorf("ProcessorID/StartNs/EndNs = %q/%d/%d", p.ProcessorID, p.StartNs, p.EndNs)
	}
}

func TestNewProcessorErrors(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	other := Builtin()
	itl, _ := reg.Lookup(tagITL)
	foreign, _ := other.Lookup(tagTTFT)
	_, err := NewProcessor(reg, ProcessorOptions{
		Metrics: []*Metric{itl, foreign},
		SLOs:    map[string]float64{tagRequestLatency: 100},
	})
	if err == nil {
		t.Fatal("NewProcessor = nil error")
	}
	for _, w := range []string{"a Parser is required", `"time_to_first_token" is not from this registry`,
		`"inter_token_latency" requires "request_latency"`, "request_latency are not applicable"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("NewProcessor error = %q; want it to contain %q", err, w)
		}
	}
}

// A failed request whose error says the context was too long counts in
// context_overflow_count, from the server's body (OpenAI's shape) as
// AIPerf classifies it.
func TestContextOverflowCount(t *testing.T) {
	t.Parallel()
	base := failureBase
	rec := base(chunk(20, " w"))
	rec.Error = record.HTTPError(400, "Bad Request", `{"error":{"message":"This model's Maximum Context length is 8192 tokens"}}`)
	if v, ok := valueOf(processOne(t, rec), tagContextOverflowCount); !ok || v.Scalar != 1 {
		t.Errorf("context_overflow_count = %v (present %v); want 1", v.Scalar, ok)
	}
	if _, ok := valueOf(processOne(t, base(chunk(20, " w"), chunk(30, "[DONE]"))), tagContextOverflowCount); ok {
		t.Error("context_overflow_count on a valid record")
	}
}

// TestReleaseReusesValues: a released record's Values array holds the next
// record's values, which are those of a fresh processor; the released
// record keeps no array, and a list value it held stays intact.
func TestReleaseReusesValues(t *testing.T) {
	reg := Builtin()
	proc := newTestProcessor(t, reg, nil)
	fresh := newTestProcessor(t, reg, nil)

	first := proc.Process(streamRec(0, 2, 10, 20, 30, 40))
	itl, ok := valueOf(first, "inter_chunk_latency")
	if !ok || len(itl.List) == 0 {
		t.Fatalf("first record has no inter_chunk_latency list: %+v", itl)
	}
	list := slices.Clone(itl.List)
	array := &first.Values[0]
	first.Release()
	if first.Values != nil {
		t.Fatalf("Values after Release = %d values, want nil", len(first.Values))
	}
	if !slices.Equal(itl.List, list) {
		t.Fatalf("a released record's list changed: %v, want %v", itl.List, list)
	}

	second := proc.Process(streamRec(5, 3, 15, 35))
	want := fresh.Process(streamRec(5, 3, 15, 35))
	if &second.Values[0] != array {
		t.Error("the second record's values are not in the released array")
	}
	if len(second.Values) != len(want.Values) {
		t.Fatalf("second record: %d values, want %d", len(second.Values), len(want.Values))
	}
	for i, v := range second.Values {
		w := want.Values[i]
		if v.Metric != w.Metric || v.Scalar != w.Scalar || !slices.Equal(v.List, w.List) {
			t.Errorf("value %d: %s = %v %v, want %s = %v %v", i, v.Metric.Tag, v.Scalar, v.List, w.Metric.Tag, w.Scalar, w.List)
		}
	}
	var zero Processed
	zero.Release() // a record from no processor: nothing to give back
}
