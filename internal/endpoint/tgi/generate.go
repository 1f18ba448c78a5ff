// Package tgi implements Hugging Face Text Generation Inference's native
// API: /generate answers with the whole text, /generate_stream streams one
// token per event.
package tgi

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Generate is the huggingface_generate endpoint. It is stateless.
type Generate struct{}

var _ endpoint.Endpoint = Generate{}

// New returns the huggingface_generate endpoint.
func New() endpoint.Endpoint { return Generate{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (Generate) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "huggingface_generate",
		Description: "Hugging Face TGI native API: POST /generate ({\"inputs\":..,\"parameters\":{..}}) " +
			"answers with generated_text; with --streaming, /generate_stream sends one token per event.",
		Path:              "/generate",
		StreamingPath:     "/generate_stream",
		ServiceKind:       "openai",
		MetricsTitle:      "LLM Metrics",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
	}
}

// AppendPayload appends {"inputs":<non-empty texts joined by a
// space>,"parameters":{"max_new_tokens":..,<run extras>},<turn extras>}.
// The run's --extra-inputs are generation parameters; a dataset turn's own
// extra fields go at the top level, as AIPerf sends them. TGI picks
// streaming by path, so the body names no stream flag, nor a model.
func (Generate) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	var texts []string
	for _, s := range t.Texts {
		if s != "" {
			texts = append(texts, s)
		}
	}
	var params endpoint.Object
	if t.MaxTokens > 0 {
		params.SetInt("max_new_tokens", t.MaxTokens)
	}
	if err := params.Merge(o.Extra, func(e endpoint.ExtraInput) bool { return e.Turn }); err != nil {
		return dst, err
	}
	var body endpoint.Object
	body.SetString("inputs", strings.Join(texts, " "))
	body.SetObject("parameters", &params)
	if err := body.Merge(o.Extra, func(e endpoint.ExtraInput) bool { return !e.Turn }); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

// response is a /generate body (or the first element of a list of them)
// or a /generate_stream event.
type response struct {
	Token *struct {
		Text endpoint.String `json:"text"`
	} `json:"token"`
	GeneratedText endpoint.String      `json:"generated_text"`
	Error         endpoint.ErrorObject `json:"error"`
	ErrorType     endpoint.String      `json:"error_type"`
}

// ParseResponse reads a stream event's token.text (never its final
// generated_text, the whole text again) or a whole body's generated_text;
// a list body is read from its first element. TGI's errors,
// {"error":..,"error_type":..}, are the record's error.
func (Generate) ParseResponse(data []byte) (record.Parsed, error) {
	trimmed := bytes.TrimSpace(data)
	var r response
	var err error
	if len(trimmed) > 0 && trimmed[0] == '[' && string(trimmed) != "[DONE]" {
		var list []response
		if err = endpoint.DecodeValue(trimmed, &list); err == nil && len(list) > 0 {
			r = list[0]
		}
	} else {
		var done bool
		done, err = endpoint.DecodeEvent(trimmed, &r)
		if done {
			return record.Parsed{Done: true}, nil
		}
	}
	if err != nil {
		return record.Parsed{}, fmt.Errorf("tgi generate response: %w", err)
	}
	var p record.Parsed
	if r.Error.Present {
		p.Error = endpoint.ErrorDetails(0, r.ErrorType.S, r.Error.Message.S)
		return p, nil
	}
	if r.Token != nil {
		p.Text = r.Token.Text.S
	} else {
		p.Text = r.GeneratedText.S
	}
	return p, nil
}
