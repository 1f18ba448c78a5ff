// Package endpoint is the plugin host for API formats: it defines what an
// endpoint must do (build a request body from a dataset turn, parse a response
// chunk) and the metadata that decides which metrics apply.
//
// Implementations live in sub-packages (endpoint/openai, ...) and are
// registered explicitly in internal/builtin.
package endpoint

import (
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Metadata describes an endpoint type, as AIPerf's endpoint plugin metadata.
type Metadata struct {
	Type              string // --endpoint-type value, e.g. "chat"
	Path              string // default URL path, e.g. "/v1/chat/completions"
	ServiceKind       string // artifact-directory component, e.g. "openai"
	MetricsTitle      string // console title suffix, e.g. "LLM Metrics"
	SupportsStreaming bool
	ProducesTokens    bool
	TokenizesInput    bool
	// SupportsImages and SupportsAudio report that turns' images and audio
	// reach the server (chat content parts); they enable AIPerf's
	// SUPPORTS_IMAGE_ONLY and SUPPORTS_AUDIO_ONLY metrics.
	SupportsImages bool
	SupportsAudio  bool
}

// ExtraInput is one --extra-inputs entry: a body field and its JSON value.
type ExtraInput struct {
	Key   string
	Value []byte // valid JSON
}

// Options are the run-wide request settings an endpoint formats with.
type Options struct {
	Model              string
	Streaming          bool
	UseLegacyMaxTokens bool         // chat: send max_tokens instead of max_completion_tokens
	Extra              []ExtraInput // merged last into the body, in order; later keys win
	// History is the conversation before this turn, oldest first: earlier
	// user turns and the server's actual replies. Chat endpoints send it as
	// the messages before the turn's own; endpoints without a message list
	// ignore it. Empty for first turns, so bodies built before the run
	// (inputs.json) have none.
	History []Message
}

// Message is one entry of a conversation's history. Exactly one of Turn
// (an earlier dataset turn, rendered as the endpoint renders any turn) or
// Text (an assistant reply as parsed from its response) is set.
type Message struct {
	Role string        // "assistant" for replies; a Turn's own Role is used for turns
	Turn *dataset.Turn // an earlier turn of the conversation
	Text string        // the reply text, when Turn is nil
}

// Endpoint formats requests and parses responses for one API.
// Implementations are stateless and safe for concurrent use.
type Endpoint interface {
	Metadata() Metadata
	// AppendPayload appends the JSON request body for turn t to dst.
	AppendPayload(dst []byte, t *dataset.Turn, o *Options) ([]byte, error)
	// ParseResponse parses one SSE data payload, or a whole non-streaming
	// body. A payload that is not what the API promises (invalid JSON, wrong
	// shape) is an error; an in-band error object is reported in
	// Parsed.Error instead.
	ParseResponse(data []byte) (record.Parsed, error)
}
