package openai

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// objectType is the response's "object" member, decoded without
// allocating: only the values the endpoints branch on are recognised.
type objectType uint8

const (
	objOther objectType = iota
	objChatCompletion
	objChatChunk
	objCompletion // "completion" or "text_completion"
	objError
)

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (o *objectType) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch string(v) {
	case `"chat.completion"`:
		*o = objChatCompletion
	case `"chat.completion.chunk"`:
		*o = objChatChunk
	case `"completion"`, `"text_completion"`:
		*o = objCompletion
	case `"error"`:
		*o = objError
	default:
		*o = objOther
	}
	return nil
}

// common holds the members every OpenAI response may carry: usage and the
// in-band error shapes (endpoint.Envelope).
type common struct {
	endpoint.Envelope `json:",inline"`
}

// parsed converts the common members of a response whose object type is
// obj; the caller fills content.
func (c *common) parsed(obj objectType) record.Parsed {
	return c.Envelope.Parsed(obj == objError)
}

// chatChoices keeps choices[0] only, as AIPerf reads no other choice, and
// skips the rest without decoding them.
type chatChoices struct {
	first chatChoice
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *chatChoices) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return endpoint.FirstElement(dec, &c.first)
}

// completionChoices keeps choices[0] only.
type completionChoices struct {
	first completionChoice
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (c *completionChoices) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return endpoint.FirstElement(dec, &c.first)
}

// toolCallText is a tool_calls array reduced to what AIPerf counts as
// output: every call's function name then arguments, concatenated.
type toolCallText struct {
	text string
}

// UnmarshalJSONFrom implements json.UnmarshalerFrom.
func (t *toolCallText) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '[' {
		return dec.SkipValue()
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != ']' {
		var call struct {
			Function struct {
				Name      endpoint.String `json:"name"`
				Arguments endpoint.String `json:"arguments"`
			} `json:"function"`
		}
		if err := json.UnmarshalDecode(dec, &call, endpoint.DecodeOptions); err != nil {
			return err
		}
		t.text += call.Function.Name.S + call.Function.Arguments.S
	}
	_, err := dec.ReadToken()
	return err
}
