// Package openai implements the OpenAI-compatible endpoints: chat
// completions (/v1/chat/completions) and text completions (/v1/completions),
// the APIs served by vLLM, SGLang, TensorRT-LLM, NIM and OpenAI itself.
//
// Request bodies match AIPerf 0.13 byte for byte in field names, order and
// presence (compact JSON, as orjson writes it). Response parsing follows
// AIPerf's rules for which field is content, reasoning or tool-call text.
package openai

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Chat is the OpenAI Chat Completions endpoint. It is stateless.
type Chat struct{}

var _ endpoint.Endpoint = Chat{}

// NewChat returns the chat endpoint (--endpoint-type chat).
func NewChat() endpoint.Endpoint { return Chat{} }

// Metadata describes the chat endpoint as AIPerf's plugin metadata does.
func (Chat) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "chat",
		Description: "OpenAI Chat Completions (/v1/chat/completions), what vLLM, SGLang, TensorRT-LLM, NIM and OpenAI " +
			"serve: messages with text, image, audio and video parts; streamed chunks carry content, reasoning " +
			"and tool-call deltas, and the final usage.",
		Path:                  "/v1/chat/completions",
		ServiceKind:           "openai",
		MetricsTitle:          "LLM Metrics",
		SupportsStreaming:     true,
		ProducesTokens:        true,
		TokenizesInput:        true,
		SupportsImages:        true,
		SupportsAudio:         true,
		SupportsVideos:        true,
		ConsumesSystemMessage: true,
		SupportsCacheBust:     true,
		ImagePart:             "image_url",
	}
}

// AppendPayload appends the request body for t:
//
//	{"messages":[{"role":..,"content":..}],"model":..,"stream":..,"tools":.. (when the turn has tools),
//	 "max_completion_tokens":.. (or "max_tokens" with UseLegacyMaxTokens,
//	 only when t.MaxTokens > 0), <extras>, "stream_options":{"include_usage":true}}
//
// Extras are merged in order with dict-update semantics (an existing key is
// replaced in place, a new one appended); stream_options is added when the
// merged body streams. The error is non-nil only for an extra input whose
// value is not valid JSON.
func (Chat) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	if err := chatParts.Check(t); err != nil {
		return dst, err
	}
	base := [...]member{
		{key: "messages", kind: kindMessages},
		{key: "model", kind: kindModel},
		{key: "stream", kind: kindStream},
		{},
		{},
	}
	n := 3
	if t.Tools != nil {
		base[n] = member{key: "tools", kind: kindTools}
		n++
	}
	if t.MaxTokens > 0 {
		key := "max_completion_tokens"
		if o.UseLegacyMaxTokens {
			key = "max_tokens"
		}
		base[n] = member{key: key, kind: kindMaxTokens}
		n++
	}
	return appendBody(dst, base[:n], t, o, o.PerChunkUsage)
}

// ReportsStreamEnd says Parsed.Done and Parsed.Finished mark a chat
// stream's end ([DONE], finish_reason).
func (Chat) ReportsStreamEnd() bool { return true }

// ParseResponse parses one chat.completion body or chat.completion.chunk
// event.
//
// The content comes from choices[0].message (chat.completion) or
// choices[0].delta (chat.completion.chunk); other object types carry no
// content, as in AIPerf. Precedence: reasoning_content, else reasoning, is
// Reasoning (with content, if any, as Text); else tool calls' names and
// arguments (after any content) are Text; else content is Text. usage is
// read from any chunk. An "error" member, or a top-level "object":"error"
// body, is reported in Parsed.Error. Invalid JSON or a non-object is an
// error; "[DONE]" is Done.
func (Chat) ParseResponse(data []byte) (record.Parsed, error) {
	var r chatResponse // on the stack: only the scanner sees it
	if scanChat(data, &r) {
		return parseChat(&r), nil
	}
	return decodeChat(data)
}

// decodeChat is ParseResponse through the full decoder.
func decodeChat(data []byte) (record.Parsed, error) {
	var r chatResponse
	if done, err := endpoint.DecodeEvent(data, &r); err != nil {
		return record.Parsed{}, fmt.Errorf("openai chat response: %w", err)
	} else if done {
		return record.Parsed{Done: true}, nil
	}
	return parseChat(&r), nil
}

// chatResponse is the part of a chat response AIPerf reads. Unknown fields
// are ignored.
type chatResponse struct {
	common  `json:",inline"`
	Object  objectType  `json:"object"`
	Choices chatChoices `json:"choices"`
}

// chatChoice holds both shapes; the object type decides which is read.
type chatChoice struct {
	Message      chatMessage     `json:"message"`
	Delta        chatMessage     `json:"delta"`
	FinishReason endpoint.String `json:"finish_reason"`
}

// chatMessage is a message or a delta. Fields of an unexpected JSON type
// are treated as absent.
type chatMessage struct {
	Content          endpoint.String `json:"content"`
	ReasoningContent endpoint.String `json:"reasoning_content"`
	Reasoning        endpoint.String `json:"reasoning"`
	ToolCalls        toolCallText    `json:"tool_calls"`
}
