package metricview

import (
	"math"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/results"
)

func rec(ttft, e2e, n float64, icl ...float64) *results.Record {
	return &results.Record{Phase: "profiling", Metrics: map[string]results.Value{
		"time_to_first_token":    {Scalar: ttft},
		"request_latency":        {Scalar: e2e},
		"output_sequence_length": {Scalar: n},
		"inter_chunk_latency":    {List: icl, IsList: true},
	}}
}

func find(t *testing.T, vs []View, tool Tool, name string) Stats {
	t.Helper()
	for _, v := range vs {
		if v.Tool != tool {
			continue
		}
		for _, m := range v.Metrics {
			if m.Name == name {
				return m.Stats
			}
		}
	}
	t.Fatalf("no %s %s in %+v", tool, name, vs)
	return Stats{}
}

// TestDefinitions: request 1 has 4 one-token chunks 100 ms apart; request
// 2 has 5 tokens in 2 chunks (one chunk carries 4 tokens). The expected
// values are numpy's on the expanded lists:
//
//	pooled chunk gaps [100 100 100 200]:  mean 125, median 100, p90 170, p99 197
//	GuideLLM ITL [100]*3 + [50]*4:        mean 71.428571, median 50, p90 100
//	GuideLLM TPOT [100]*4 + [50]*5:       mean 72.222222, median 50
//	inference-perf ITL [100 100 100 200 0 0 0]: mean 71.428571, median 100, p90 140, p99 194
//	TPOT per request [100 50]:            mean 75, median 75, p90 95, p99 99.5
func TestDefinitions(t *testing.T) {
	t.Parallel()
	b := NewBuilder(Tools())
	b.Add(rec(100, 400, 4, 100, 100, 100))
	b.Add(rec(50, 250, 5, 200))
	failed := rec(1, 1, 1)
	failed.Failed = true
	b.Add(failed)
	warm := rec(1, 1, 1)
	warm.Phase = "warmup"
	b.Add(warm)
	if b.Requests() != 2 {
		t.Fatalf("Requests = %d; want 2 (failed and warmup records are left out)", b.Requests())
	}
	vs := b.Views()
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v; want %v", name, got, want)
		}
	}
	for _, tool := range []Tool{VLLM, SGLang} {
		s := find(t, vs, tool, "itl")
		near(string(tool)+" itl mean", s.Mean, 125)
		near(string(tool)+" itl median", s.Median, 100)
		near(string(tool)+" itl p90", s.P90, 170)
		near(string(tool)+" itl p99", s.P99, 197)
		near(string(tool)+" itl std", s.Std, 43.30127018922193)
		s = find(t, vs, tool, "tpot")
		near(string(tool)+" tpot mean", s.Mean, 75)
		near(string(tool)+" tpot p90", s.P90, 95)
		near(string(tool)+" tpot p99", s.P99, 99.5)
	}
	s := find(t, vs, GuideLLM, "itl")
	near("guidellm itl mean", s.Mean, 500.0/7)
	near("guidellm itl median", s.Median, 50)
	near("guidellm itl p90", s.P90, 100)
	near("guidellm itl count", s.Count, 7)
	s = find(t, vs, GuideLLM, "tpot")
	near("guidellm tpot mean", s.Mean, 650.0/9)
	near("guidellm tpot median", s.Median, 50)
	s = find(t, vs, InferencePerf, "itl")
	near("inference-perf itl mean", s.Mean, 500.0/7)
	near("inference-perf itl median", s.Median, 100)
	near("inference-perf itl p90", s.P90, 140)
	near("inference-perf itl p99", s.P99, 194)
	near("inference-perf itl std", s.Std, 69.98542122237652)
	s = find(t, vs, InferencePerf, "ntpot")
	near("inference-perf ntpot mean", s.Mean, 75)
	near("vllm ttft mean", find(t, vs, VLLM, "ttft").Mean, 75)
	near("vllm e2el max", find(t, vs, VLLM, "e2el").Max, 400)
	panel := Panel(vs, b.Requests())
	for _, want := range []string{"from 2 request records", "vLLM bench serve       itl        125.00", "GuideLLM tpot: per request request_latency / output tokens"} {
		if !strings.Contains(panel, want) {
			t.Errorf("panel lacks %q:\n%s", want, panel)
		}
	}
}

// TestStreamEnd: SGLang's and GuideLLM's E2E end at [DONE]
// (http_req_duration); vLLM's at the last token.
func TestStreamEnd(t *testing.T) {
	t.Parallel()
	r := rec(10, 100, 2, 90)
	r.Metrics["http_req_duration"] = results.Value{Scalar: 103}
	b := NewBuilder(Tools())
	b.Add(r)
	vs := b.Views()
	if got := find(t, vs, VLLM, "e2el").Mean; got != 100 {
		t.Errorf("vllm e2el = %v; want 100", got)
	}
	if got := find(t, vs, SGLang, "e2el").Mean; got != 103 {
		t.Errorf("sglang e2el = %v; want 103", got)
	}
}

func TestNonStreamingRecords(t *testing.T) {
	t.Parallel()
	b := NewBuilder([]Tool{VLLM})
	b.Add(&results.Record{Phase: "profiling", Metrics: map[string]results.Value{"request_latency": {Scalar: 5}, "output_sequence_length": {Scalar: 3}}})
	vs := b.Views()
	if len(vs) != 1 || len(vs[0].Metrics) != 1 || vs[0].Metrics[0].Name != "e2el" {
		t.Errorf("views = %+v; want only e2el", vs)
	}
}

func TestParseTools(t *testing.T) {
	t.Parallel()
	got, err := ParseTools("inference-perf, vllm,VLLM")
	if err != nil || len(got) != 2 || got[0] != InferencePerf || got[1] != VLLM {
		t.Errorf("ParseTools = %v, %v", got, err)
	}
	if all, _ := ParseTools("all"); len(all) != 4 {
		t.Errorf("all = %v", all)
	}
	if _, err := ParseTools("genai-perf"); err == nil {
		t.Error("unknown tool accepted")
	}
}

// TestWeightedPercentileMatchesExpansion checks the virtual expansion
// against the expanded list on random weights.
func TestWeightedPercentileMatchesExpansion(t *testing.T) {
	t.Parallel()
	var s sample
	var expanded []float64
	x := uint64(7)
	for i := range 50 {
		x = x*6364136223846793005 + 1442695040888963407
		w := float64(x>>60) + 1
		v := float64(i%13) * 1.5
		s.add(v, w)
		for range int(w) {
			expanded = append(expanded, v)
		}
	}
	var e sample
	for _, v := range expanded {
		e.add(v, 1)
	}
	a, _ := s.stats()
	b, _ := e.stats()
	if math.Abs(a.Mean-b.Mean) > 1e-9 || a.Median != b.Median || a.P90 != b.P90 || a.P99 != b.P99 || math.Abs(a.Std-b.Std) > 1e-9 {
		t.Errorf("weighted %+v != expanded %+v", a, b)
	}
}
