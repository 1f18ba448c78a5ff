package record

// Count is an optional token count reported by a server.
type Count struct {
	N  int64
	OK bool // the server reported the field
}

// Some returns a present Count.
func Some(n int64) Count { return Count{N: n, OK: true} }

// Usage is the server's token accounting from an OpenAI-style "usage"
// object. Fields the server did not send are absent (OK == false).
type Usage struct {
	PromptTokens       Count // usage.prompt_tokens (input_tokens for Responses/Anthropic)
	CompletionTokens   Count // usage.completion_tokens
	TotalTokens        Count // usage.total_tokens
	ReasoningTokens    Count // usage.completion_tokens_details.reasoning_tokens
	CachedPromptTokens Count // usage.prompt_tokens_details.cached_tokens
}

// Parsed is what an endpoint makes of one response chunk (or of a whole
// non-streaming body).
//
// A chunk is a content response when it carries text or reasoning; role-only
// deltas, usage-only chunks and the [DONE] terminator are not, and AIPerf's
// TTFT, TTST, inter-chunk latency and request latency count content responses
// only.
type Parsed struct {
	Text      string        // output content, including tool-call name and arguments
	Reasoning string        // reasoning_content / reasoning
	Usage     *Usage        // nil when the chunk had no usage object
	Done      bool          // the [DONE] terminator
	Error     *ErrorDetails // an in-band error object or SSE error event
}

// HasContent reports whether the chunk is a content response.
func (p *Parsed) HasContent() bool { return p.Text != "" || p.Reasoning != "" }
