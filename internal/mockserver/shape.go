package mockserver

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"time"
)

// A shaped chat stream is what reasoning models and tool-calling servers
// send: several tokens per chunk, reasoning deltas first, a tool call's
// deltas last, and usage-only chunks in between. Its layout is a pure
// function of the configuration and the output length (ChunkLayout), so
// a client's every count and timing can be checked against it.

// Part is the kind of text a chunk carries.
type Part uint8

const (
	// PartReasoning: delta.reasoning_content (vLLM's and DeepSeek's
	// field), counted in usage as reasoning tokens.
	PartReasoning Part = iota
	// PartContent: delta.content.
	PartContent
	// PartTool: one tool call's deltas (tool_calls[0]); its first token is
	// the function's name, the rest its arguments.
	PartTool
)

// Chunk is one content-bearing chunk of a shaped stream: its part, its
// tokens, and the index of its last token, whose deadline it is sent at
// (TTFT + Last x ITL after arrival, without jitter).
type Chunk struct {
	Part   Part
	Tokens int
	Last   int
}

// Shaped reports whether chat streams are shaped.
func (c *Config) Shaped() bool {
	return c.ChunkTokens > 1 || c.ReasoningTokens > 0 || c.ToolCallTokens > 0 || c.UsageChunks
}

// partOf is the part of output token i of n: the first ReasoningTokens
// are reasoning, the last ToolCallTokens (of what is left) the tool call.
func (c *Config) partOf(i, n int) Part {
	r := min(c.ReasoningTokens, n)
	switch {
	case i < r:
		return PartReasoning
	case i >= n-min(c.ToolCallTokens, n-r):
		return PartTool
	}
	return PartContent
}

// ChunkLayout is the chunks of a shaped answer of n tokens: runs of one
// part, each cut into chunks of ChunkTokens (the last of a run may be
// shorter).
func (c *Config) ChunkLayout(n int) []Chunk {
	k := max(c.ChunkTokens, 1)
	var out []Chunk
	for i := 0; i < n; i++ {
		p := c.partOf(i, n)
		if l := len(out); l > 0 && out[l-1].Part == p && out[l-1].Tokens < k {
			out[l-1].Tokens++
			out[l-1].Last = i
			continue
		}
		out = append(out, Chunk{Part: p, Tokens: 1, Last: i})
	}
	return out
}

// Fixed pieces of the shaped chunks.
const (
	chatReasoningPrefix = `{"index":0,"delta":{"reasoning_content":`
	chatToolPrefix      = `{"index":0,"delta":{"tool_calls":[{"index":0,`
	chatToolSuffix      = `}}]},"finish_reason":null}]}`
)

// streamShaped writes the content chunks of a shaped chat answer, each at
// its last token's deadline, and a usage-only chunk after each when
// UsageChunks. It returns when the first and the last chunk left, and
// false when the client went away or the server closed.
func (s *Server) streamShaped(ctx context.Context, e *sseWriter, resp *response, wt *waiter) (first, last time.Time, ok bool) {
	words := resp.plan.words
	sent := 0
	var text strings.Builder
	for _, ch := range s.cfg.ChunkLayout(resp.plan.Count) {
		text.Reset()
		text.WriteByte('"')
		name := ""
		for j := range ch.Tokens {
			w := s.wordJSON[words.next(len(s.wordJSON))]
			if ch.Part == PartTool && sent == resp.plan.Count-s.toolTokens(resp.plan.Count) && j == 0 {
				name = w // the call's first token is its name
			} else {
				text.WriteString(w[1 : len(w)-1])
			}
			if !s.awaitToken(ctx, resp, wt) {
				return first, last, false
			}
		}
		text.WriteByte('"')
		var err error
		switch {
		case ch.Part == PartReasoning:
			err = e.event(chatReasoningPrefix, text.String(), chatTokenSuffix)
		case ch.Part == PartContent:
			err = e.event(chatTokenPrefix, text.String(), chatTokenSuffix)
		case name != "":
			id, _ := json.Marshal("call_" + resp.id)
			err = e.event(chatToolPrefix, `"id":`, string(id), `,"type":"function","function":{"name":`, name, `,"arguments":`, text.String(), chatToolSuffix)
		default:
			err = e.event(chatToolPrefix, `"function":{"arguments":`, text.String(), chatToolSuffix)
		}
		if err != nil {
			return first, last, false
		}
		last = time.Now()
		if first.IsZero() {
			first = last
		}
		resp.track.token(last, ch.Tokens)
		sent += ch.Tokens
		if s.cfg.UsageChunks {
			u, _ := json.Marshal(resp.usageAfter(sent))
			if e.event(`],"usage":`, string(u), "}") != nil {
				return first, last, false
			}
		}
	}
	return first, last, true
}

// toolTokens is how many of n output tokens are the tool call's.
func (s *Server) toolTokens(n int) int {
	return min(s.cfg.ToolCallTokens, n-min(s.cfg.ReasoningTokens, n))
}

// awaitToken waits for the next token's deadline (or the batched engine's
// step); false when the client went away or the server closed.
func (s *Server) awaitToken(ctx context.Context, resp *response, wt *waiter) bool {
	switch {
	case resp.batch != nil:
		return resp.batch.await(ctx, s.done) == nil
	case resp.clock != nil:
		return wt.until(ctx, resp.arrival.Add(resp.clock.next())) == nil
	}
	return ctx.Err() == nil
}

// usageAfter is the usage once n output tokens were written: the
// reasoning ones among them reported as reasoning tokens.
func (r *response) usageAfter(n int) usage {
	u := usage{PromptTokens: r.plan.PromptTokens, CompletionTokens: n, TotalTokens: r.plan.PromptTokens + n}
	if r.reasoning > 0 {
		u.CompletionDetails = &completionDetails{Reasoning: min(r.reasoning, n)}
	}
	return u
}

// registerShapeFlags binds the shape options.
func (c *Config) registerShapeFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.ChunkTokens, "chunk-tokens", c.ChunkTokens, "tokens per streamed chat chunk (0 or 1: one)")
	fs.IntVar(&c.ReasoningTokens, "reasoning-tokens", c.ReasoningTokens, "the first N output tokens of a streamed chat answer are reasoning_content deltas, reported as usage reasoning tokens")
	fs.IntVar(&c.ToolCallTokens, "tool-call-tokens", c.ToolCallTokens, "the last N output tokens of a streamed chat answer are one tool call's deltas (its name, then its arguments)")
	fs.BoolVar(&c.UsageChunks, "usage-chunks", c.UsageChunks, "a usage-only chunk (choices: []) after every content chunk of a streamed chat answer")
}

// The recorder's kinds of the chunks that carry output text
// (RecordedChunk.Kind).
const (
	ChunkToken     = chunkToken  // content
	ChunkReasoning = "reasoning" // reasoning_content
	ChunkTool      = "tool"      // a tool call's delta
)
