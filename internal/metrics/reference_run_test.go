package metrics

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/aiperf-go/aiperf/internal/record"
)

// TestReferenceRunStats feeds the per-record values of a real AIPerf 0.13
// run (streaming chat, 10 requests; testdata/aiperf013_chat_stream.json was
// extracted from its profile_export.jsonl and profile_export_aiperf.json)
// through the Accumulator and compares the distributions and totals with
// what AIPerf computed with numpy.
func TestReferenceRunStats(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/aiperf013_chat_stream.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Records []map[string]json.RawMessage  `json:"records"`
		Summary map[string]map[string]float64 `json:"summary"`
		Totals  map[string]float64            `json:"totals"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	reg := Builtin()
	sel := reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: true})
	acc := NewAccumulator(reg, sel, map[string]float64{tagTTFT: 100})
	for i, rm := range ref.Records {
		p := Processed{Record: &record.Record{Seq: uint64(i)}, Valid: true}
		for tag, v := range rm {
			m, ok := reg.Lookup(tag)
			if !ok {
				t.Fatalf("unknown tag %s", tag)
			}
			val := Value{Metric: m}
			if m.List {
				err = json.Unmarshal(v, &val.List)
			} else {
				err = json.Unmarshal(v, &val.Scalar)
			}
			if err != nil {
				t.Fatal(err)
			}
			p.Values = append(p.Values, val)
		}
		good, _ := reg.Lookup(tagGoodRequestCount)
		p.Values = append(p.Values, Value{Metric: good, Scalar: 1})
		acc.Add(&p)
	}
	s := acc.Summarize()
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for tag, want := range ref.Summary {
		r, ok := s.Get(tag)
		if !ok || r.Stats == nil {
			t.Errorf("%s: no distribution", tag)
			continue
		}
		got := map[string]float64{"avg": r.Stats.Avg, "min": r.Stats.Min, "max": r.Stats.Max, "sum": r.Stats.Sum,
			"p1": r.Stats.P1, "p5": r.Stats.P5, "p10": r.Stats.P10, "p25": r.Stats.P25, "p50": r.Stats.P50,
			"p75": r.Stats.P75, "p90": r.Stats.P90, "p95": r.Stats.P95, "p99": r.Stats.P99, "std": r.Stats.Std,
			"count": float64(r.Stats.Count)}
		for k, w := range want {
			if !close(got[k], w) {
				t.Errorf("%s.%s = %v; AIPerf %v", tag, k, got[k], w)
			}
		}
	}
	for tag, want := range ref.Totals {
		if r, ok := s.Get(tag); !ok || !close(r.Value, want) {
			t.Errorf("%s = %v (present %v); AIPerf %v", tag, r.Value, ok, want)
		}
	}
}

// TestReferenceRunFormulas recomputes AIPerf's per-record derived values
// (ITL, decode duration, per-user throughputs, diffs) of the reference run
// from its per-record inputs.
func TestReferenceRunFormulas(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/aiperf013_chat_stream.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Records []map[string]any `json:"records"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	reg := Builtin()
	for i, rm := range ref.Records {
		base := map[string]float64{}
		for tag, v := range rm {
			if f, ok := v.(float64); ok {
				m, _ := reg.Lookup(tag)
				base[tag] = m.FromDisplay(f)
			}
		}
		for _, tag := range []string{tagITL, "decode_duration", "output_token_throughput_per_user",
			"e2e_output_token_throughput", "prefill_throughput_per_user", tagUsagePromptDiff, tagUsageCompletionDiff} {
			m, _ := reg.Lookup(tag)
			in := map[string]float64{}
			for _, dep := range m.Requires {
				in[dep] = base[dep]
			}
			got, ok := recordWith(reg, tag, DefaultThresholds(), in)
			want := rm[tag].(float64)
			if !ok || math.Abs(m.ToDisplay(got)-want) > 1e-9*math.Abs(want) {
				t.Errorf("record %d: %s = %v (ok %v); AIPerf %v", i, tag, m.ToDisplay(got), ok, want)
			}
		}
	}
}
