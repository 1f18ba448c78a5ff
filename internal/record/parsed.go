package record

// Count is an optional token count reported by a server.
type Count struct {
	N  int64
	OK bool // the server reported the field
}

// Some returns a present Count.
func Some(n int64) Count { return Count{N: n, OK: true} }

// Usage is the server's token accounting, normalised from whichever
// vendor's spelling the response used (OpenAI's prompt_tokens, Anthropic's
// input_tokens, Gemini's promptTokenCount, ...), as AIPerf's Usage reads
// it. Fields the server did not send are absent (OK == false).
type Usage struct {
	// PromptTokens is every token the server processed as input. For
	// Anthropic-style disjoint accounting (input_tokens is the uncached
	// remainder) it is input + cache reads + cache writes.
	PromptTokens       Count
	CompletionTokens   Count // completion_tokens / output_tokens
	TotalTokens        Count // total_tokens
	ReasoningTokens    Count // completion_tokens_details.reasoning_tokens
	CachedPromptTokens Count // cache reads: prompt_tokens_details.cached_tokens, cache_read_input_tokens, ...
	CacheWriteTokens   Count // cache writes: cache_creation_input_tokens (Anthropic), cacheWriteInputTokens
	CacheMissTokens    Count // prompt_cache_miss_tokens (DeepSeek)
	// AcceptedPredictionTokens and RejectedPredictionTokens are OpenAI's
	// predicted-output accounting (completion_tokens_details or
	// output_tokens_details .accepted_/.rejected_prediction_tokens).
	AcceptedPredictionTokens Count
	RejectedPredictionTokens Count
}

// Empty reports whether no field is present.
func (u *Usage) Empty() bool {
	return !u.PromptTokens.OK && !u.CompletionTokens.OK && !u.TotalTokens.OK &&
		!u.ReasoningTokens.OK && !u.CachedPromptTokens.OK && !u.CacheWriteTokens.OK && !u.CacheMissTokens.OK &&
		!u.AcceptedPredictionTokens.OK && !u.RejectedPredictionTokens.OK
}

// Parsed is what an endpoint makes of one response chunk (or of a whole
// non-streaming body).
//
// A chunk is a content response when it carries text, reasoning or other
// output (embeddings, rankings, images, a finished video job); role-only
// deltas, usage-only chunks and the [DONE] terminator are not, and AIPerf's
// TTFT, TTST, inter-chunk latency and request latency count content responses
// only.
type Parsed struct {
	Text      string        // output content, including tool-call name and arguments
	Reasoning string        // reasoning_content / reasoning
	Usage     *Usage        // nil when the chunk had no usage object
	Done      bool          // the [DONE] terminator
	Finished  bool          // choices[0].finish_reason was set (the response says it ended)
	Error     *ErrorDetails // an in-band error object or SSE error event
	// Output reports output that is not text: embeddings, rankings,
	// images, image-retrieval results or a video job. It makes the chunk a
	// content response that adds no output tokens.
	Output bool
	// Video holds the server's own figures of a video generation job, when
	// the response reported any.
	Video *VideoStats
}

// VideoStats are what SGLang reports of a finished video job.
type VideoStats struct {
	InferenceSeconds Float // inference_time_s: GPU generation time
	PeakMemoryMB     Float // peak_memory_mb
}

// Float is an optional number reported by a server.
type Float struct {
	V  float64
	OK bool
}

// HasContent reports whether the chunk is a content response.
func (p *Parsed) HasContent() bool { return p.Text != "" || p.Reasoning != "" || p.Output }

// ChunkParser parses response chunks one at a time. Endpoints implement it
// statelessly; endpoint.Streamer hands out stateful ones for one response.
type ChunkParser interface {
	ParseResponse(data []byte) (Parsed, error)
}
