package endpoint

import (
	"bytes"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Usage is a response's "usage" member in any vendor's spelling, read as
// AIPerf's Usage reads it: for each quantity the first synonym present
// wins (so 0 is told apart from missing), nested detail objects are
// consulted for cache reads and reasoning tokens, Gemini's usageMetadata
// and Cohere's tokens / meta.tokens envelopes are unwrapped without
// overriding top-level keys, and Anthropic-style disjoint input accounting
// is re-totalled.
//
// An absent, null or empty ({}) usage is no usage, as AIPerf takes
// `usage or None`.
type Usage struct {
	f       usageFields
	present bool
}

// usageFields lists every synonym AIPerf 0.13 recognises, in its
// precedence order within each group.
type usageFields struct {
	// Prompt tokens.
	PromptTokens      Int `json:"prompt_tokens"`     // OpenAI, vLLM, DeepSeek, Mistral, ...
	InputTokens       Int `json:"input_tokens"`      // Anthropic, Cohere, DashScope
	PromptTokenCount  Int `json:"promptTokenCount"`  // Gemini
	InputTokensCamel  Int `json:"inputTokens"`       // AWS Bedrock
	InputTokenCount   Int `json:"input_token_count"` // IBM watsonx
	CompletionTokens  Int `json:"completion_tokens"` // OpenAI and most others
	OutputTokens      Int `json:"output_tokens"`     // Anthropic, Cohere, DashScope
	CandidatesTokens  Int `json:"candidatesTokenCount"`
	OutputTokensCamel Int `json:"outputTokens"`
	GeneratedTokens   Int `json:"generated_token_count"`
	TotalTokens       Int `json:"total_tokens"`
	TotalTokenCount   Int `json:"totalTokenCount"`
	TotalTokensCamel  Int `json:"totalTokens"`

	CacheReadInput  Int `json:"cache_read_input_tokens"` // Anthropic
	CacheHit        Int `json:"prompt_cache_hit_tokens"` // DeepSeek
	CachedContent   Int `json:"cachedContentTokenCount"` // Gemini
	CacheReadCamel  Int `json:"cacheReadInputTokens"`    // AWS Bedrock
	CachedTokens    Int `json:"cached_tokens"`           // Cohere v2
	CacheCreation   Int `json:"cache_creation_input_tokens"`
	CacheWriteCamel Int `json:"cacheWriteInputTokens"`
	CacheMiss       Int `json:"prompt_cache_miss_tokens"`
	Thoughts        Int `json:"thoughtsTokenCount"` // Gemini reasoning

	PromptDetails     details `json:"prompt_tokens_details"`
	InputDetails      details `json:"input_tokens_details"`
	CompletionDetails details `json:"completion_tokens_details"`
	OutputDetails     details `json:"output_tokens_details"`

	UsageMetadata *usageFields `json:"usageMetadata"` // Gemini envelope
	Tokens        *usageFields `json:"tokens"`        // Cohere v2
	Meta          *struct {
		Tokens       *usageFields `json:"tokens"`
		CachedTokens Int          `json:"cached_tokens"`
	} `json:"meta"` // Cohere v1
}

type details struct {
	CachedTokens    Int  `json:"cached_tokens"`
	ReasoningTokens Int  `json:"reasoning_tokens"`
	Accepted        Int  `json:"accepted_prediction_tokens"`
	Rejected        Int  `json:"rejected_prediction_tokens"`
	present         bool // an object (AIPerf only reads dict details)
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (d *details) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	d.present = true
	type plain details
	return json.UnmarshalDecode(dec, (*plain)(d), DecodeOptions)
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (u *Usage) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '{' {
		return dec.SkipValue()
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(v[1:len(v)-1])) == 0 {
		return nil
	}
	u.present = true
	return json.Unmarshal(v, &u.f, DecodeOptions)
}

// Present reports whether the response had a non-empty usage object.
func (u *Usage) Present() bool { return u.present }

// Record returns the normalised usage, or nil when there was none.
func (u *Usage) Record() *record.Usage {
	if !u.present {
		return nil
	}
	f := u.f.unwrapped()
	r := &record.Usage{
		CompletionTokens: first(f.CompletionTokens, f.OutputTokens, f.CandidatesTokens, f.OutputTokensCamel, f.GeneratedTokens),
		TotalTokens:      first(f.TotalTokens, f.TotalTokenCount, f.TotalTokensCamel),
		CacheWriteTokens: first(f.CacheCreation, f.CacheWriteCamel),
		CacheMissTokens:  first(f.CacheMiss),
	}
	r.PromptTokens = f.promptTokens()
	switch {
	case f.PromptDetails.present && f.PromptDetails.CachedTokens.Present:
		r.CachedPromptTokens = f.PromptDetails.CachedTokens.Count()
	case f.InputDetails.present && f.InputDetails.CachedTokens.Present:
		r.CachedPromptTokens = f.InputDetails.CachedTokens.Count()
	default:
		r.CachedPromptTokens = first(f.CacheReadInput, f.CacheHit, f.CachedContent, f.CacheReadCamel, f.CachedTokens)
	}
	switch {
	case f.CompletionDetails.present && f.CompletionDetails.ReasoningTokens.Present:
		r.ReasoningTokens = f.CompletionDetails.ReasoningTokens.Count()
	case f.OutputDetails.present && f.OutputDetails.ReasoningTokens.Present:
		r.ReasoningTokens = f.OutputDetails.ReasoningTokens.Count()
	default:
		r.ReasoningTokens = first(f.Thoughts)
	}
	r.AcceptedPredictionTokens = firstDetail(func(d *details) Int { return d.Accepted }, &f.CompletionDetails, &f.OutputDetails)
	r.RejectedPredictionTokens = firstDetail(func(d *details) Int { return d.Rejected }, &f.CompletionDetails, &f.OutputDetails)
	return r
}

// firstDetail is the field of the first details object that has it, as
// AIPerf's _first_in_details.
func firstDetail(field func(*details) Int, ds ...*details) record.Count {
	for _, d := range ds {
		if v := field(d); d.present && v.Present {
			return v.Count()
		}
	}
	return record.Count{}
}

// promptTokens is the first prompt synonym present; for a disjoint-
// accounting key (input_tokens, inputTokens) with any of that vendor's
// cache keys present, the cache counts are added back.
func (f *usageFields) promptTokens() record.Count {
	for _, c := range []struct {
		v        Int
		disjoint bool
	}{
		{f.PromptTokens, false}, {f.InputTokens, true}, {f.PromptTokenCount, false},
		{f.InputTokensCamel, true}, {f.InputTokenCount, false},
	} {
		if !c.v.Present {
			continue
		}
		cache := []Int{f.CacheReadInput, f.CacheCreation, f.CacheReadCamel, f.CacheWriteCamel}
		anyCache := false
		for _, k := range cache {
			anyCache = anyCache || k.Present
		}
		if c.disjoint && c.v.OK && anyCache {
			n := c.v.N
			for _, k := range cache {
				if k.OK {
					n += k.N
				}
			}
			return record.Some(n)
		}
		return c.v.Count()
	}
	return record.Count{}
}

// unwrapped merges the recognised envelopes into the top level with
// setdefault semantics: a key already present at the top level wins.
func (f usageFields) unwrapped() usageFields {
	if f.UsageMetadata != nil {
		f.setDefaults(f.UsageMetadata)
	}
	if f.Meta != nil {
		if f.Meta.Tokens != nil {
			f.setDefaults(f.Meta.Tokens)
		}
		if !f.CachedTokens.Present {
			f.CachedTokens = f.Meta.CachedTokens
		}
	}
	if f.Tokens != nil {
		f.setDefaults(f.Tokens)
	}
	return f
}

func (f *usageFields) setDefaults(o *usageFields) {
	for _, p := range []struct{ dst, src *Int }{
		{&f.PromptTokens, &o.PromptTokens}, {&f.InputTokens, &o.InputTokens},
		{&f.PromptTokenCount, &o.PromptTokenCount}, {&f.InputTokensCamel, &o.InputTokensCamel},
		{&f.InputTokenCount, &o.InputTokenCount}, {&f.CompletionTokens, &o.CompletionTokens},
		{&f.OutputTokens, &o.OutputTokens}, {&f.CandidatesTokens, &o.CandidatesTokens},
		{&f.OutputTokensCamel, &o.OutputTokensCamel}, {&f.GeneratedTokens, &o.GeneratedTokens},
		{&f.TotalTokens, &o.TotalTokens}, {&f.TotalTokenCount, &o.TotalTokenCount},
		{&f.TotalTokensCamel, &o.TotalTokensCamel}, {&f.CacheReadInput, &o.CacheReadInput},
		{&f.CacheHit, &o.CacheHit}, {&f.CachedContent, &o.CachedContent},
		{&f.CacheReadCamel, &o.CacheReadCamel}, {&f.CachedTokens, &o.CachedTokens},
		{&f.CacheCreation, &o.CacheCreation}, {&f.CacheWriteCamel, &o.CacheWriteCamel},
		{&f.CacheMiss, &o.CacheMiss}, {&f.Thoughts, &o.Thoughts},
	} {
		if !p.dst.Present {
			*p.dst = *p.src
		}
	}
	for _, p := range []struct{ dst, src *details }{
		{&f.PromptDetails, &o.PromptDetails}, {&f.InputDetails, &o.InputDetails},
		{&f.CompletionDetails, &o.CompletionDetails}, {&f.OutputDetails, &o.OutputDetails},
	} {
		if !p.dst.present {
			*p.dst = *p.src
		}
	}
}

// first returns the first present synonym's count (absent when its value
// is not a number, as AIPerf would return that non-number).
func first(vs ...Int) record.Count {
	for _, v := range vs {
		if v.Present {
			return v.Count()
		}
	}
	return record.Count{}
}

// Fold adds to u every key of earlier that u lacks (AIPerf's setdefault
// over the raw usage dicts). It is how AIPerf completes Anthropic's
// streamed usage, whose input counts come in message_start and output
// count in message_delta: the last usage, folded with the earlier ones,
// is complete.
func (u *Usage) Fold(earlier *Usage) {
	if earlier == nil || !earlier.present {
		return
	}
	if !u.present {
		*u = *earlier
		return
	}
	u.f.setDefaults(&earlier.f)
}
