package metrics

import (
	"slices"
	"strings"
	"testing"
)

func def(tag string, kind Kind, requires ...string) *Metric {
	m := &Metric{Tag: tag, Kind: kind, Unit: UnitTokens, Requires: requires}
	switch kind {
	case KindDerived:
		m.derive = func(*deriveContext) (float64, bool) { return 0, false }
	default:
		m.record = func(*recordContext) (float64, bool) { return 0, false }
	}
	return m
}

func tags(ms []*Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Tag
	}
	return out
}

func TestRegistryDependencyOrder(t *testing.T) {
	t.Parallel()
	// Defined in reverse; ties keep definition order.
	reg, err := NewRegistry(
		def("d", KindDerived, "c", "b"),
		def("c", KindAggregate, "a"),
		def("b", KindRecord, "a"),
		def("x", KindRecord),
		def("a", KindRecord),
	)
	if err != nil {
		t.Fatal(err)
	}
	got := tags(reg.Metrics())
	want := []string{"x", "a", "c", "b", "d"}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v; want %v", got, want)
	}
	if m, ok := reg.Lookup("c"); !ok || m.Tag != "c" {
		t.Errorf("Lookup(c) = %v, %v", m, ok)
	}
	if _, ok := reg.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found something")
	}
}

func TestRegistryErrors(t *testing.T) {
	t.Parallel()
	noFunc := &Metric{Tag: "nofunc", Kind: KindRecord, Unit: UnitTokens}
	badUnit := def("badunit", KindRecord)
	badUnit.DisplayUnit = UnitMS
	tests := []struct {
		name string
		defs []*Metric
		want []string // substrings that must all appear
	}{
		{"cycle", []*Metric{def("a", KindRecord, "b"), def("b", KindRecord, "c"), def("c", KindRecord, "a"), def("ok", KindRecord)},
			[]string{"cycle", "a, b, c"}},
		{"self cycle", []*Metric{def("a", KindDerived, "a")}, []string{"cycle"}},
		{"unknown and duplicate, all at once", []*Metric{def("a", KindRecord, "ghost"), def("a", KindRecord), def("b", KindDerived, "phantom")},
			[]string{`"a" is defined twice`, `unknown metric "ghost"`, `unknown metric "phantom"`}},
		{"record on aggregate", []*Metric{def("agg", KindAggregate), def("r", KindRecord, "agg")},
			[]string{`"r" (record) may not depend on "agg" (aggregate)`}},
		{"aggregate on derived", []*Metric{def("d", KindDerived), def("agg", KindAggregate, "d")},
			[]string{`"agg" (aggregate) may not depend on "d" (derived)`}},
		{"no compute function", []*Metric{noFunc}, []string{"no compute function"}},
		{"bad unit", []*Metric{badUnit}, []string{"cannot convert tokens to ms"}},
		{"empty tag", []*Metric{{Kind: KindRecord}}, []string{"has no tag"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewRegistry(tt.defs...)
			if err == nil {
				t.Fatalf("NewRegistry = nil error; want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("NewRegistry error = %q; want it to contain %q", err, w)
				}
			}
		})
	}
}

// The registry owns copies: editing the definitions afterwards changes
// nothing, and one definition list can build two registries.
func TestRegistryCopiesDefinitions(t *testing.T) {
	t.Parallel()
	defs := []*Metric{def("a", KindRecord), def("b", KindRecord, "a")}
	r1, err1 := NewRegistry(defs...)
	r2, err2 := NewRegistry(defs...)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	defs[1].Requires[0] = "zzz"
	b1, _ := r1.Lookup("b")
	if b1.Requires[0] != "a" {
		t.Errorf("registry shares Requires with its definition")
	}
	b2, _ := r2.Lookup("b")
	if b1 == b2 || r1.owns(b2) {
		t.Errorf("registries share metric pointers")
	}
}

func TestSelectRules(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	has := func(sel Selection, tag string) bool {
		return slices.ContainsFunc(reg.Select(sel), func(m *Metric) bool { return m.Tag == tag })
	}
	chat := Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true}
	nonStream := chat
	nonStream.Streaming = false
	server := chat
	server.UseServerTokenCount = true
	embeddings := Selection{TokenizesInput: true}
	withSLO := chat
	withSLO.Goodput = true
	dev := chat
	dev.Experimental = true
	accuracy := chat
	accuracy.Accuracy = true

	tests := []struct {
		name string
		sel  Selection
		tag  string
		want bool
	}{
		{"streaming ttft", chat, tagTTFT, true},
		{"non-streaming drops ttft (STREAMING_ONLY)", nonStream, tagTTFT, false},
		{"non-streaming drops icl", nonStream, tagICL, false},
		{"non-streaming keeps latency", nonStream, tagRequestLatency, true},
		{"non-streaming keeps e2e (PTO only)", nonStream, "e2e_output_token_throughput", true},
		{"no tokens drops output throughput (PRODUCES_TOKENS_ONLY)", embeddings, "output_token_throughput", false},
		{"no tokens keeps isl", embeddings, tagISL, true},
		// As in AIPerf, a disallowed metric another applicable one requires
		// is still selected (it simply yields no values).
		{"no tokens: osl still required by the discrepancy count", embeddings, tagOSL, true},
		{"not tokenizing drops prefill (TOKENIZES_INPUT_ONLY)", Selection{Streaming: true, ProducesTokens: true}, "prefill_throughput_per_user", false},
		{"not tokenizing: isl still required by input throughput", Selection{ProducesTokens: true}, tagISL, true},
		{"usage diffs with client tokenizer", chat, tagUsagePromptDiff, true},
		{"server counts drop usage diffs (USAGE_DIFF_ONLY)", server, tagUsagePromptDiff, false},
		{"server counts drop discrepancy count", server, "usage_discrepancy_count", false},
		{"server counts keep usage", server, tagUsagePrompt, true},
		{"no SLOs drops goodput (GOODPUT)", chat, "goodput", false},
		{"no SLOs drops good request count", chat, tagGoodRequestCount, false},
		{"SLOs add goodput", withSLO, "goodput", true},
		{"SLOs add fraction", withSLO, "good_request_fraction", true},
		{"experimental hidden by default", chat, "stream_setup_latency", false},
		{"experimental in dev mode", dev, "stream_setup_latency", true},
		{"experimental thinking efficiency", dev, "overall_thinking_efficiency", true},
		{"internal metrics stay", chat, tagMinRequest, true},
		{"internal credit drop stays", chat, "credit_drop_latency", true},
		{"accuracy drops osl mismatch", accuracy, tagOSLMismatchDiff, false},
		{"accuracy keeps requested osl", accuracy, tagRequestedOSL, true},
		{"reasoning is not a filter", chat, tagReasoningTokens, true},
		{"error-only metrics selected", chat, tagErrorISL, true},
		{"schedule lag everywhere", embeddings, tagScheduleLag, true},
		{"late count everywhere", embeddings, "late_request_count", true},
	}
	for _, tt := range tests {
		if got := has(tt.sel, tt.tag); got != tt.want {
			t.Errorf("%s: Select(%+v) has %s = %v; want %v", tt.name, tt.sel, tt.tag, got, tt.want)
		}
	}
	// Select keeps dependency order.
	sel := reg.Select(withSLO)
	for i := 1; i < len(sel); i++ {
		if sel[i-1].idx >= sel[i].idx {
			t.Fatalf("Select not in dependency order at %s, %s", sel[i-1].Tag, sel[i].Tag)
		}
	}
}

func TestValidateSLOs(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	sel := reg.Select(Selection{ProducesTokens: true, TokenizesInput: true, Goodput: true}) // not streaming
	if err := ValidateSLOs(map[string]float64{tagRequestLatency: 1}, sel); err != nil {
		t.Errorf("ValidateSLOs(request_latency) = %v", err)
	}
	err := ValidateSLOs(map[string]float64{tagTTFT: 1, tagITL: 2, tagRequestLatency: 3}, sel)
	if err == nil || !strings.Contains(err.Error(), "inter_token_latency, time_to_first_token are not applicable") {
		t.Errorf("ValidateSLOs(ttft, itl without streaming) = %v", err)
	}
}

// TestValidateSLOsUnknownMetric: a short name is answered with the tag
// meant, an unknown tag is called unknown, not "not applicable".
func TestValidateSLOsUnknownMetric(t *testing.T) {
	t.Parallel()
	sel := Builtin().Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: true})
	err := ValidateSLOs(map[string]float64{"ttft": 200, "bogus": 1}, sel)
	for _, want := range []string{`unknown metric "ttft", did you mean time_to_first_token?`, `unknown metric "bogus"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidateSLOs = %v; want it to say %s", err, want)
		}
	}
	if err := ValidateSLOs(map[string]float64{"time_to_first_token": 200}, sel); err != nil {
		t.Errorf("a valid tag: %v", err)
	}
}
