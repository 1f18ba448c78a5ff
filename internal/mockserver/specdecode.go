package mockserver

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The forms the mock reports speculative-decoding acceptance in
// (--spec-decode), as the engines do: vLLM's response-root
// "metrics": {"speculative_decoding": ...} (--per-request-spec-decode-metrics),
// TensorRT-LLM's per-choice "speculative_decoding" (per_request_spec_decode_stats),
// and llama.cpp's draft_n / draft_n_accepted in its "timings" object.
const (
	SpecDecodeNone     = "none"
	SpecDecodeVLLM     = "vllm"
	SpecDecodeTRTLLM   = "trtllm"
	SpecDecodeLlamaCpp = "llamacpp"
)

// SpecDecodeForms lists --spec-decode's values.
func SpecDecodeForms() []string {
	return []string{SpecDecodeNone, SpecDecodeVLLM, SpecDecodeTRTLLM, SpecDecodeLlamaCpp}
}

// DefaultSpecDecodeK is the draft block of --spec-decode-k.
const DefaultSpecDecodeK = 4

// specAcceptance is the accepted-draft count of successive verify steps,
// repeated (capped at the draft block and at the tokens left): a fixed
// pattern, so a test knows every figure in advance.
var specAcceptance = [...]int{2, 3, 1, 4, 2, 0, 3, 3}

func (c *Config) registerSpecDecodeFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.SpecDecode, "spec-decode", c.SpecDecode,
		"report each request's speculative-decoding acceptance as this engine does: "+strings.Join(SpecDecodeForms(), ", "))
	fs.IntVar(&c.SpecDecodeK, "spec-decode-k", c.SpecDecodeK, "draft tokens proposed per verify step (--spec-decode)")
}

func (c *Config) validateSpecDecode() []error {
	var errs []error
	if c.SpecDecode != "" && !slices.Contains(SpecDecodeForms(), c.SpecDecode) {
		errs = append(errs, fmt.Errorf("spec-decode: %q is not one of %s", c.SpecDecode, strings.Join(SpecDecodeForms(), ", ")))
	}
	if c.SpecDecodeK < 1 || c.SpecDecodeK > 64 {
		errs = append(errs, fmt.Errorf("spec-decode-k: must be in [1, 64], got %d", c.SpecDecodeK))
	}
	return errs
}

// specStats is one request's speculation: the steps that produced its
// tokens, each emitting its accepted drafts plus one.
type specStats struct {
	k, steps, drafted, accepted int
	hist                        []int
}

// planSpec runs the acceptance pattern until tokens are emitted.
func planSpec(tokens, k int) specStats {
	s := specStats{k: k, hist: make([]int, k+1)}
	for left := tokens; left > 0; s.steps++ {
		j := min(specAcceptance[s.steps%len(specAcceptance)], k, left-1)
		s.hist[j]++
		s.accepted += j
		left -= j + 1
	}
	s.drafted = k * s.steps
	return s
}

func (s specStats) rate() float64 {
	if s.drafted == 0 {
		return 0
	}
	return float64(s.accepted) / float64(s.drafted)
}

// vllmJSON is vLLM's speculative_decoding object.
func (s specStats) vllmJSON() []byte {
	mean := 1.0
	if s.steps > 0 {
		mean = 1 + float64(s.accepted)/float64(s.steps)
	}
	b, _ := json.Marshal(map[string]any{ // numbers always marshal
		"num_spec_tokens": s.k, "num_spec_steps": s.steps, "num_draft_tokens": s.drafted,
		"num_accepted_draft_tokens": s.accepted, "mean_acceptance_length": mean,
		"draft_acceptance_rate": s.rate(), "acceptance_histogram": s.hist,
	})
	return b
}

// trtllmJSON is TensorRT-LLM's speculative_decoding object, nil for a
// request that never drafted (TensorRT-LLM then omits it).
func (s specStats) trtllmJSON() []byte {
	if s.steps == 0 {
		return nil
	}
	b, _ := json.Marshal(map[string]any{
		"num_spec_tokens": s.k, "num_spec_steps": s.steps, "total_draft_tokens": s.drafted,
		"total_accepted_draft_tokens": s.accepted, "acceptance_rate": s.rate(), "acceptance_histogram": s.hist,
	})
	return b
}

// specDecode returns the request's acceptance in the configured form, to
// place at the response root (vLLM's metrics object, llama.cpp's draft
// counters for its timings) or on the choice (TensorRT-LLM).
func (s *Server) specDecode(resp *response) (root, choice []byte) {
	if s.cfg.SpecDecode == "" || s.cfg.SpecDecode == SpecDecodeNone {
		return nil, nil
	}
	st := planSpec(resp.plan.Count, s.cfg.SpecDecodeK)
	switch s.cfg.SpecDecode {
	case SpecDecodeVLLM:
		return append(append([]byte(`{"speculative_decoding":`), st.vllmJSON()...), '}'), nil
	case SpecDecodeTRTLLM:
		return nil, st.trtllmJSON()
	}
	return nil, nil
}

// llamaDraftCounters are the draft counters llama.cpp adds to its timings
// with a draft model (--spec-decode llamacpp), nil otherwise.
func (s *Server) llamaDraftCounters(resp *response) map[string]any {
	if s.cfg.SpecDecode != SpecDecodeLlamaCpp {
		return nil
	}
	st := planSpec(resp.plan.Count, s.cfg.SpecDecodeK)
	return map[string]any{"draft_n": st.drafted, "draft_n_accepted": st.accepted, "predicted_n": resp.plan.Count}
}

// specDecodeBody adds the acceptance to a non-streamed answer.
func (s *Server) specDecodeBody(resp *response, answer *completionBody) {
	root, choice := s.specDecode(resp)
	answer.Metrics = root
	if choice != nil && len(answer.Choices) > 0 {
		answer.Choices[0].SpeculativeDecoding = choice
	}
	if d := s.llamaDraftCounters(resp); d != nil {
		answer.Timings = withDraftCounters(answer.Timings, d)
	}
}

// finishChunk is the parts of a stream's finish chunk: the finish reason,
// then what the server reports of the request on it (TensorRT-LLM's
// acceptance on the choice, llama.cpp's timings and vLLM's metrics at the
// root).
func (s *Server) finishChunk(r *http.Request, resp *response, finishPrefix string, first, last time.Time) []string {
	timings := s.accountStream(r, resp, first, last)
	if d := s.llamaDraftCounters(resp); d != nil {
		timings = withDraftCounters(timings, d)
	}
	root, choice := s.specDecode(resp)
	if timings == nil && root == nil && choice == nil {
		return []string{finishPrefix, resp.plan.Finish, finishSuffix}
	}
	parts := []string{finishPrefix, resp.plan.Finish, `"`}
	if choice != nil {
		parts = append(parts, `,"speculative_decoding":`, string(choice))
	}
	parts = append(parts, "}]")
	if timings != nil {
		parts = append(parts, `,"timings":`, string(timings))
	}
	if root != nil {
		parts = append(parts, `,"metrics":`, string(root))
	}
	return append(parts, "}")
}

// withDraftCounters adds llama.cpp's draft counters to a timings object
// (an empty one when the mock reports no server timing).
func withDraftCounters(timings []byte, d map[string]any) []byte {
	m := map[string]any{}
	_ = json.Unmarshal(timings, &m) // the mock's own object, or nil
	for k, v := range d {
		if _, ok := m[k]; !ok || k != "predicted_n" {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m) // numbers always marshal
	return b
}
