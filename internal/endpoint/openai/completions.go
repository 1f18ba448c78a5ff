package openai

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Completions is the OpenAI (legacy) Completions endpoint. It is stateless.
type Completions struct{}

var _ endpoint.Endpoint = Completions{}

// NewCompletions returns the completions endpoint (--endpoint-type
// completions).
func NewCompletions() endpoint.Endpoint { return Completions{} }

// Metadata describes the completions endpoint as AIPerf's plugin metadata
// does.
func (Completions) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "completions",
		Description: "OpenAI (legacy) Completions (/v1/completions): a text prompt continued as text, streamed " +
			"or whole; for base models and servers without chat templates.",
		Path:              "/v1/completions",
		ServiceKind:       "openai",
		MetricsTitle:      "LLM Metrics",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
	}
}

// AppendPayload appends the request body for t:
//
//	{"prompt":..,"model":..,"stream":..,"max_tokens":.. (only when
//	 t.MaxTokens > 0), <extras>, "stream_options":{"include_usage":true}}
//
// prompt is the bare string for one non-empty text, else the list of
// non-empty texts. Extras and stream_options merge as for chat; the
// legacy-max-tokens option does not apply (completions always sends
// max_tokens).
func (Completions) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	base := [...]member{
		{key: "prompt", kind: kindPrompt},
		{key: "model", kind: kindModel},
		{key: "stream", kind: kindStream},
		{},
	}
	n := 3
	if t.MaxTokens > 0 {
		base[n] = member{key: "max_tokens", kind: kindMaxTokens}
		n++
	}
	return appendBody(dst, base[:n], t, o, false)
}

// ReportsStreamEnd: as Chat's.
func (Completions) ReportsStreamEnd() bool { return true }

// ParseResponse parses one completion body or streamed event: Text is
// choices[0].text when the object is "completion" or "text_completion"
// (AIPerf ignores other object types). usage, errors, [DONE] and invalid
// input are handled as for chat.
func (Completions) ParseResponse(data []byte) (record.Parsed, error) {
	var r completionResponse // on the stack: only the scanner sees it
	if scanCompletion(data, &r) {
		return parseCompletion(&r), nil
	}
	return decodeCompletion(data)
}

// decodeCompletion is ParseResponse through the full decoder.
func decodeCompletion(data []byte) (record.Parsed, error) {
	var r completionResponse
	if done, err := endpoint.DecodeEvent(data, &r); err != nil {
		return record.Parsed{}, fmt.Errorf("openai completions response: %w", err)
	} else if done {
		return record.Parsed{Done: true}, nil
	}
	return parseCompletion(&r), nil
}

// parseCompletion is ParseResponse on a decoded (or scanned) response.
func parseCompletion(r *completionResponse) record.Parsed {
	p := r.common.parsed(r.Object)
	p.Finished = r.Choices.first.FinishReason.S != ""
	if r.Object == objCompletion {
		p.Text = r.Choices.first.Text.S
	}
	return p
}

// completionResponse is the part of a completions response AIPerf reads.
type completionResponse struct {
	common  `json:",inline"`
	Object  objectType        `json:"object"`
	Choices completionChoices `json:"choices"`
}

type completionChoice struct {
	Text         endpoint.String `json:"text"`
	FinishReason endpoint.String `json:"finish_reason"`
}
