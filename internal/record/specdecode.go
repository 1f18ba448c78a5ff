package record

import (
	"bytes"
	"encoding/json"
	"math"
)

// SpecDecode is a request's speculative-decoding acceptance as its server
// reported it, in AIPerf 0.14's engine-neutral form: the metrics read only
// this and never the engine. Counts exclude the bonus token every verify
// step emits.
//
// Three shapes are read, as AIPerf's adapters read them:
//   - vLLM (--per-request-spec-decode-metrics): the response-root
//     "metrics": {"speculative_decoding": {...}} with num_spec_steps,
//     num_draft_tokens, num_accepted_draft_tokens, mean_acceptance_length,
//     draft_acceptance_rate and a dense acceptance_histogram;
//   - TensorRT-LLM (per_request_spec_decode_stats): the same object on the
//     choice, with its own names total_draft_tokens,
//     total_accepted_draft_tokens and acceptance_rate, and no mean
//     acceptance length (derived here from the counts);
//   - llama.cpp with a draft model: draft_n and draft_n_accepted in its
//     "timings" object; the steps are predicted_n - draft_n_accepted (each
//     step emits its accepted drafts plus one token) and the histogram is
//     the even spread of the accepted drafts over them.
//
// A payload whose counts contradict each other (histogram not summing to
// the steps, its weighted sum not the accepted count, more accepted than
// drafted, more buckets than the draft length allows) is dropped, not
// trusted, as AIPerf drops it.
type SpecDecode struct {
	// Engine names the shape read: "vllm", "tensorrt_llm" or "llamacpp";
	// "" when the response carried no spec-decode payload.
	Engine string
	// ZeroStep reports a payload with no verify step (speculation never
	// fired): counted, but no acceptance figures.
	ZeroStep bool
	// MeanAcceptanceLength is 1 + accepted / steps as the server reported
	// it (vLLM) or derived from the counts.
	MeanAcceptanceLength float64
	// DraftAcceptanceRate is accepted / drafted, a fraction.
	DraftAcceptanceRate      float64
	Steps, Drafted, Accepted int64
	// Histogram[j] is the number of steps that accepted exactly j drafts.
	Histogram []int64
}

// Known reports whether the record carries acceptance figures (a payload
// with at least one verify step).
func (s *SpecDecode) Known() bool { return s.Engine != "" && !s.ZeroStep }

var (
	specDecodeKey = []byte(`"speculative_decoding"`)
	draftNKey     = []byte(`"draft_n"`)
)

// hasSpecDecodeKey reports whether data contains specDecodeKey or
// draftNKey, as two bytes.Contains would, in one pass over its
// underscores. Every response body goes through it, and bytes.Index on
// a key that starts with a quote stops at every quote of a JSON body;
// both keys hold exactly one '_', which a body has only a few of, so each
// '_' is checked against the bytes around it in the two keys.
func hasSpecDecodeKey(data []byte) bool {
	const specAt, draftAt = len(`"speculative`), len(`"draft`) // each key's '_'
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '_')
		if j < 0 {
			return false
		}
		i += j
		if i >= specAt && bytes.HasPrefix(data[i-specAt:], specDecodeKey) ||
			i >= draftAt && bytes.HasPrefix(data[i-draftAt:], draftNKey) {
			return true
		}
		i++
	}
}

// specPayload is the union of the vLLM and TensorRT-LLM field names.
type specPayload struct {
	Histogram       []json.Number `json:"acceptance_histogram"`
	Steps           *json.Number  `json:"num_spec_steps"`
	SpecTokens      *json.Number  `json:"num_spec_tokens"`
	MeanAcceptance  *json.Number  `json:"mean_acceptance_length"`
	DraftRate       *json.Number  `json:"draft_acceptance_rate"`
	AcceptedDraft   *json.Number  `json:"num_accepted_draft_tokens"`
	DraftTokens     *json.Number  `json:"num_draft_tokens"`
	TotalAccepted   *json.Number  `json:"total_accepted_draft_tokens"`
	TotalDraft      *json.Number  `json:"total_draft_tokens"`
	AcceptanceRate  *json.Number  `json:"acceptance_rate"`
	DraftN          *json.Number  `json:"draft_n"`
	DraftNAccepted  *json.Number  `json:"draft_n_accepted"`
	PredictedTokens *json.Number  `json:"predicted_n"`
}

// ParseSpecDecode reads a spec-decode payload from a response body or one
// streamed chunk's data; ok is false when there is none or it is malformed.
func ParseSpecDecode(data []byte) (SpecDecode, bool) {
	if !hasSpecDecodeKey(data) {
		return SpecDecode{}, false
	}
	var v struct {
		Metrics *struct {
			SpecDecoding *specPayload `json:"speculative_decoding"`
		} `json:"metrics"`
		Choices []struct {
			SpecDecoding *specPayload `json:"speculative_decoding"`
		} `json:"choices"`
		Timings *specPayload `json:"timings"`
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return SpecDecode{}, false
	}
	if v.Metrics != nil && v.Metrics.SpecDecoding != nil {
		return v.Metrics.SpecDecoding.vllm()
	}
	for _, c := range v.Choices {
		if c.SpecDecoding != nil {
			return c.SpecDecoding.trtllm()
		}
	}
	if v.Timings != nil {
		return v.Timings.llamacpp()
	}
	return SpecDecode{}, false
}

// vllm reads vLLM's payload; its signature includes mean_acceptance_length,
// which TensorRT-LLM never sends.
func (p *specPayload) vllm() (SpecDecode, bool) {
	steps, ok1 := nonNegInt(p.Steps)
	acc, ok2 := nonNegInt(p.AcceptedDraft)
	drafted, ok3 := nonNegInt(p.DraftTokens)
	mean, ok4 := finite(p.MeanAcceptance)
	rate, ok5 := finite(p.DraftRate)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return SpecDecode{}, false
	}
	s := SpecDecode{Engine: "vllm", Steps: steps, Accepted: acc, Drafted: drafted,
		MeanAcceptanceLength: mean, DraftAcceptanceRate: rate}
	return s.withHistogram(p.Histogram, p.SpecTokens)
}

// trtllm reads TensorRT-LLM's payload. It reports no mean acceptance
// length (its avg_decoded_tokens_per_iter averages over every iteration,
// drafting or not), so the length is derived from the same counts.
func (p *specPayload) trtllm() (SpecDecode, bool) {
	steps, ok1 := nonNegInt(p.Steps)
	acc, ok2 := nonNegInt(p.TotalAccepted)
	drafted, ok3 := nonNegInt(p.TotalDraft)
	rate, ok4 := finite(p.AcceptanceRate)
	if !ok1 || !ok2 || !ok3 || !ok4 || steps == 0 {
		return SpecDecode{}, false // TensorRT-LLM omits the block for a request that never drafted
	}
	s := SpecDecode{Engine: "tensorrt_llm", Steps: steps, Accepted: acc, Drafted: drafted,
		MeanAcceptanceLength: 1 + float64(acc)/float64(steps), DraftAcceptanceRate: rate}
	return s.withHistogram(p.Histogram, p.SpecTokens)
}

// llamacpp reads llama.cpp's draft counters from its timings object.
func (p *specPayload) llamacpp() (SpecDecode, bool) {
	drafted, ok1 := nonNegInt(p.DraftN)
	acc, ok2 := nonNegInt(p.DraftNAccepted)
	predicted, ok3 := nonNegInt(p.PredictedTokens)
	if !ok1 || !ok2 || !ok3 || acc > drafted || predicted-acc <= 0 {
		return SpecDecode{}, false
	}
	steps := predicted - acc
	s := SpecDecode{Engine: "llamacpp", Steps: steps, Accepted: acc, Drafted: drafted,
		MeanAcceptanceLength: 1 + float64(acc)/float64(steps)}
	if drafted > 0 {
		s.DraftAcceptanceRate = float64(acc) / float64(drafted)
	}
	base, rem := acc/steps, acc%steps
	s.Histogram = make([]int64, base+2)
	s.Histogram[base] = steps - rem
	s.Histogram[base+1] = rem
	return s, true
}

// withHistogram validates the dense histogram against the counts and
// completes s. A payload with no verify step is a zero-step request.
func (s SpecDecode) withHistogram(raw []json.Number, specTokens *json.Number) (SpecDecode, bool) {
	if raw == nil {
		return SpecDecode{}, false
	}
	if specTokens != nil {
		k, ok := nonNegInt(specTokens)
		if !ok || int64(len(raw)) != k+1 {
			return SpecDecode{}, false
		}
	}
	if len(raw) > 1<<16 {
		return SpecDecode{}, false // no drafter proposes that many tokens a step
	}
	h := make([]int64, len(raw))
	var steps, accepted int64
	for j, n := range raw {
		c, ok := nonNegInt(&n)
		if !ok {
			return SpecDecode{}, false
		}
		h[j], steps, accepted = c, steps+c, accepted+int64(j)*c
	}
	if steps != s.Steps || accepted != s.Accepted || s.Accepted > s.Drafted {
		return SpecDecode{}, false
	}
	s.Histogram = h
	if s.Steps == 0 {
		return SpecDecode{Engine: s.Engine, ZeroStep: true}, true
	}
	return s, true
}

// maxSpecCount bounds every count: far above any request's, and low
// enough that sums over a histogram cannot overflow.
const maxSpecCount = 1 << 40

// nonNegInt reads a JSON integer in [0, maxSpecCount] (a float such as 3.0
// is refused, as AIPerf refuses any non-int count).
func nonNegInt(n *json.Number) (int64, bool) {
	if n == nil {
		return 0, false
	}
	v, err := n.Int64()
	return v, err == nil && v >= 0 && v <= maxSpecCount
}

func finite(n *json.Number) (float64, bool) {
	if n == nil {
		return 0, false
	}
	v, err := n.Float64()
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// ReadSpecDecode sets rec.SpecDecode from the body or, for a stream, from
// the last few chunks, where every engine puts its payload (the finish
// chunk; a usage-only chunk and [DONE] may follow).
func ReadSpecDecode(rec *Record) {
	if rec.SpecDecode.Engine != "" {
		return
	}
	for i, n := len(rec.Chunks)-1, 0; i >= 0 && n < 3; i, n = i-1, n+1 {
		if s, ok := ParseSpecDecode(rec.Chunks[i].Data); ok {
			rec.SpecDecode = s
			return
		}
	}
}
