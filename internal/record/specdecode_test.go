package record

import (
	"bytes"
	"slices"
	"testing"
)

// The payloads as each engine sends them: vLLM's response-root metrics
// object, TensorRT-LLM's per-choice object (on the finish chunk when
// streaming), llama.cpp's timings.
const (
	vllmSpec = `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"content":"x"},"finish_reason":"stop"}],` +
		`"metrics":{"speculative_decoding":{"num_spec_tokens":4,"num_spec_steps":8,"num_draft_tokens":32,` +
		`"num_accepted_draft_tokens":18,"mean_acceptance_length":3.25,"draft_acceptance_rate":0.5625,` +
		`"acceptance_histogram":[1,1,2,3,1]}}}`
	trtllmSpec = `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop",` +
		`"avg_decoded_tokens_per_iter":2.1,"speculative_decoding":{"num_spec_tokens":4,"num_spec_steps":8,` +
		`"total_draft_tokens":32,"total_accepted_draft_tokens":18,"acceptance_rate":0.5625,"acceptance_histogram":[1,1,2,3,1]}}]}`
	llamaSpec = `{"choices":[{"finish_reason":"stop"}],"timings":{"prompt_n":5,"prompt_ms":1.5,"predicted_n":26,` +
		`"predicted_ms":20,"draft_n":32,"draft_n_accepted":18}}`
)

func TestParseSpecDecode(t *testing.T) {
	t.Parallel()
	worked := SpecDecode{Steps: 8, Drafted: 32, Accepted: 18, MeanAcceptanceLength: 3.25, DraftAcceptanceRate: 0.5625,
		Histogram: []int64{1, 1, 2, 3, 1}}
	withEngine := func(s SpecDecode, e string) SpecDecode { s.Engine = e; return s }
	tests := []struct {
		name string
		data string
		want SpecDecode
		ok   bool
	}{
		{"vllm", vllmSpec, withEngine(worked, "vllm"), true},
		{"tensorrt-llm", trtllmSpec, withEngine(worked, "tensorrt_llm"), true},
		// 26 tokens, 18 accepted drafts: 8 steps, 18 spread as six 2s and two 3s.
		{"llama.cpp", llamaSpec, SpecDecode{Engine: "llamacpp", Steps: 8, Drafted: 32, Accepted: 18,
			MeanAcceptanceLength: 3.25, DraftAcceptanceRate: 0.5625, Histogram: []int64{0, 0, 6, 2}}, true},
		{"vllm zero-step", `{"metrics":{"speculative_decoding":{"num_spec_tokens":2,"num_spec_steps":0,"num_draft_tokens":0,` +
			`"num_accepted_draft_tokens":0,"mean_acceptance_length":1,"draft_acceptance_rate":0,"acceptance_histogram":[0,0,0]}}}`,
			SpecDecode{Engine: "vllm", ZeroStep: true}, true},
		{"no payload", `{"choices":[{"delta":{"content":"hi"}}]}`, SpecDecode{}, false},
		{"llama.cpp without a draft model", `{"timings":{"prompt_ms":1,"predicted_ms":2,"predicted_n":3}}`, SpecDecode{}, false},
		{"histogram sum is not the steps", `{"metrics":{"speculative_decoding":{"num_spec_steps":2,"num_draft_tokens":4,` +
			`"num_accepted_draft_tokens":0,"mean_acceptance_length":1,"draft_acceptance_rate":0,"acceptance_histogram":[1]}}}`, SpecDecode{}, false},
		{"weighted sum is not the accepted", `{"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":4,` +
			`"num_accepted_draft_tokens":3,"mean_acceptance_length":4,"draft_acceptance_rate":0.75,"acceptance_histogram":[0,1]}}}`, SpecDecode{}, false},
		{"more accepted than drafted", `{"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":1,` +
			`"num_accepted_draft_tokens":2,"mean_acceptance_length":3,"draft_acceptance_rate":2,"acceptance_histogram":[0,0,1]}}}`, SpecDecode{}, false},
		{"more buckets than k + 1", `{"metrics":{"speculative_decoding":{"num_spec_tokens":1,"num_spec_steps":1,"num_draft_tokens":2,` +
			`"num_accepted_draft_tokens":2,"mean_acceptance_length":3,"draft_acceptance_rate":1,"acceptance_histogram":[0,0,1]}}}`, SpecDecode{}, false},
		{"a float count", `{"metrics":{"speculative_decoding":{"num_spec_steps":1.0,"num_draft_tokens":2,` +
			`"num_accepted_draft_tokens":1,"mean_acceptance_length":2,"draft_acceptance_rate":0.5,"acceptance_histogram":[0,1]}}}`, SpecDecode{}, false},
		{"vllm without its mean length", `{"metrics":{"speculative_decoding":{"num_spec_steps":1,"num_draft_tokens":2,` +
			`"num_accepted_draft_tokens":1,"draft_acceptance_rate":0.5,"acceptance_histogram":[0,1]}}}`, SpecDecode{}, false},
		{"tensorrt-llm without steps", `{"choices":[{"speculative_decoding":{"num_spec_steps":0,"total_draft_tokens":0,` +
			`"total_accepted_draft_tokens":0,"acceptance_rate":0,"acceptance_histogram":[0]}}]}`, SpecDecode{}, false},
		{"not JSON", `data: "speculative_decoding"`, SpecDecode{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseSpecDecode([]byte(tt.data))
		if ok != tt.ok || got.Engine != tt.want.Engine || got.ZeroStep != tt.want.ZeroStep || got.Steps != tt.want.Steps ||
			got.Drafted != tt.want.Drafted || got.Accepted != tt.want.Accepted ||
			got.MeanAcceptanceLength != tt.want.MeanAcceptanceLength || got.DraftAcceptanceRate != tt.want.DraftAcceptanceRate ||
			(tt.want.Histogram != nil && !slices.Equal(got.Histogram, tt.want.Histogram)) {
			t.Errorf("%s: ParseSpecDecode = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// The payload rides the finish chunk, which a usage chunk and [DONE] may
// follow.
func TestReadSpecDecodeFromStreamTail(t *testing.T) {
	t.Parallel()
	rec := &Record{Chunks: []Chunk{{Data: []byte(`{"choices":[{"delta":{"content":"a"}}]}`)},
		{Data: []byte(trtllmSpec)}, {Data: []byte(`{"choices":[],"usage":{"completion_tokens":26}}`)}, {Data: []byte("[DONE]")}}}
	ReadSpecDecode(rec)
	if rec.SpecDecode.Engine != "tensorrt_llm" || rec.SpecDecode.Steps != 8 {
		t.Errorf("SpecDecode = %+v; want TensorRT-LLM's 8 steps", rec.SpecDecode)
	}
}

// FuzzParseSpecDecode holds the invariants of every accepted payload: the
// histogram sums to the steps and weighs to the accepted drafts, which
// never exceed the drafted ones.
func FuzzParseSpecDecode(f *testing.F) {
	for _, s := range []string{vllmSpec, trtllmSpec, llamaSpec, `{"metrics":{}}`, `{"timings":{"draft_n":-1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, ok := ParseSpecDecode(data)
		if !ok || s.ZeroStep {
			return
		}
		var steps, acc int64
		for j, c := range s.Histogram {
			if c < 0 {
				t.Fatalf("negative bucket %d in %+v", c, s)
			}
			steps, acc = steps+c, acc+int64(j)*c
		}
		if steps != s.Steps || acc != s.Accepted || s.Accepted > s.Drafted || s.Steps <= 0 {
			t.Fatalf("inconsistent %+v from %q", s, data)
		}
	})
}

// FuzzHasSpecDecodeKey holds the one-pass key check to the two
// bytes.Contains it replaces.
func FuzzHasSpecDecodeKey(f *testing.F) {
	for _, seed := range []string{
		``, `_`, `{"a_b":1}`, `{"speculative_decoding":{}}`, `"draft_n"`, `x"draft_n"`,
		`"speculative_decodin"`, `speculative_decoding"`, `"draft_n`, `__"draft_n"__`,
		`{"finish_reason":"length","usage":{"prompt_tokens":2}}`, `"speculative"draft_n"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := bytes.Contains(data, specDecodeKey) || bytes.Contains(data, draftNKey)
		if got := hasSpecDecodeKey(data); got != want {
			t.Fatalf("hasSpecDecodeKey(%q) = %v, want %v", data, got, want)
		}
	})
}
