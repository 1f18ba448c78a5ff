// Package anthropic implements Anthropic's Messages API (/v1/messages), the
// API Claude clients and agent frameworks speak: x-api-key and
// anthropic-version headers, the system prompt as a top-level field, a
// required max_tokens, and streamed message_start / content_block_delta /
// message_delta events whose usage is split between the first and the last
// of them (cache reads and writes included).
package anthropic

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Version is the anthropic-version header sent unless the user sets one.
const Version = "2023-06-01"

// DefaultMaxTokens is sent when a turn requests no output length: the API
// requires max_tokens, and this is AIPerf's choice.
const DefaultMaxTokens = 1024

// Messages is the Anthropic Messages endpoint. It is stateless; NewStream
// reads one streamed response.
type Messages struct{}

var (
	_ endpoint.Endpoint     = Messages{}
	_ endpoint.Streamer     = Messages{}
	_ endpoint.HeaderSetter = Messages{}
)

// New returns the messages endpoint (--endpoint-type messages).
func New() endpoint.Endpoint { return Messages{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (Messages) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "messages",
		Description: "Anthropic Messages API (/v1/messages): text and image input, the system prompt as a " +
			"top-level field, extended thinking and tool use; authenticated with x-api-key and " +
			"anthropic-version headers.",
		Path:                  "/v1/messages",
		ServiceKind:           "openai",
		MetricsTitle:          "LLM Metrics",
		SupportsStreaming:     true,
		ProducesTokens:        true,
		TokenizesInput:        true,
		SupportsImages:        true,
		ConsumesSystemMessage: true,
		SupportsCacheBust:     true,
		ImagePart:             "image",
	}
}

// SetHeaders authenticates with x-api-key instead of a bearer token and
// sets anthropic-version unless the user's headers already did.
func (Messages) SetHeaders(h http.Header, apiKey string) {
	if apiKey != "" {
		h.Set("X-Api-Key", apiKey)
	}
	if h.Get("Anthropic-Version") == "" {
		h.Set("Anthropic-Version", Version)
	}
}

// parts renders content blocks: text blocks, and images as a base64 source
// (a data URL, its media type parsed) or a url source. The API takes no
// audio or video.
var parts = endpoint.Parts{
	API:   "the Anthropic Messages API",
	Text:  endpoint.TextPart("text"),
	Image: imageBlock,
}

func imageBlock(dst []byte, url, _ string) []byte {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		header, data, _ := strings.Cut(rest, ",")
		media, _, _ := strings.Cut(header, ";")
		if media == "" {
			media = "image/png"
		}
		dst = append(dst, `{"type":"image","source":{"type":"base64","media_type":`...)
		dst = endpoint.AppendString(dst, media)
		dst = append(dst, `,"data":`...)
		dst = endpoint.AppendString(dst, data)
		return append(dst, "}}"...)
	}
	dst = append(dst, `{"type":"image","source":{"type":"url","url":`...)
	dst = endpoint.AppendString(dst, url)
	return append(dst, "}}"...)
}

// AppendPayload appends the request body for t:
//
//	{"model":..,"messages":[<user context>,<history>,<turn>],"max_tokens":<n or 1024>,
//	 "stream":true (streaming only, as Claude clients send it),"system":<system prompt>,<extras>}
func (Messages) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	if err := parts.Check(t); err != nil {
		return dst, err
	}
	msgs := []byte{'['}
	msg := func(role string, content []byte) {
		if len(msgs) > 1 {
			msgs = append(msgs, ',')
		}
		msgs = append(msgs, `{"role":`...)
		msgs = endpoint.AppendString(msgs, role)
		msgs = append(msgs, `,"content":`...)
		msgs = append(msgs, content...)
		msgs = append(msgs, '}')
	}
	if t.UserContext != "" {
		msg("user", endpoint.AppendString(nil, t.UserContext))
	}
	for _, m := range o.History {
		if m.Turn != nil {
			if err := parts.Check(m.Turn); err != nil {
				return dst, err
			}
			msg(role(m.Turn.Role, "user"), parts.AppendContent(nil, m.Turn))
		} else {
			msg(role(m.Role, "assistant"), endpoint.AppendString(nil, m.Text))
		}
	}
	msg(role(t.Role, "user"), parts.AppendContent(nil, t))
	msgs = append(msgs, ']')

	var body endpoint.Object
	model := t.Model
	if model == "" {
		model = o.Model
	}
	body.SetString("model", model)
	body.Set("messages", msgs)
	maxTokens := t.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	body.SetInt("max_tokens", maxTokens)
	if o.Streaming {
		body.SetBool("stream", true)
	}
	if t.System != "" {
		body.SetString("system", t.System)
	}
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	return body.AppendTo(dst), nil
}

func role(r, def string) string {
	if r == "" {
		return def
	}
	return r
}

// event is a streamed event or a whole message; "type" tells them apart.
type event struct {
	Type    endpoint.String      `json:"type"`
	Message *messageObject       `json:"message"` // message_start
	Usage   endpoint.Usage       `json:"usage"`   // message (whole), message_delta
	Content []block              `json:"content"` // message (whole)
	Delta   delta                `json:"delta"`   // content_block_delta
	Error   endpoint.ErrorObject `json:"error"`   // error
}

type messageObject struct {
	Usage endpoint.Usage `json:"usage"`
}

type block struct {
	Type     endpoint.String `json:"type"`
	Text     endpoint.String `json:"text"`
	Thinking endpoint.String `json:"thinking"`
	Name     endpoint.String `json:"name"`
	Input    jsontext.Value  `json:"input"`
}

type delta struct {
	Type        endpoint.String `json:"type"`
	Text        endpoint.String `json:"text"`
	Thinking    endpoint.String `json:"thinking"`
	PartialJSON endpoint.String `json:"partial_json"`
}

// ParseResponse parses one event or a whole message, as AIPerf's messages
// endpoint does:
//
//   - "message" (not streaming): text blocks are text, thinking blocks
//     reasoning, tool_use blocks their name and compact input JSON (tool
//     text, which counts as output); precedence thinking (with the text),
//     then text with tool calls, then text; the usage;
//   - message_start: the message's usage (input and cache counts);
//   - content_block_delta: text_delta text, thinking_delta reasoning,
//     input_json_delta tool-call text; signature deltas carry nothing;
//   - message_delta: its usage (the output count);
//   - error: the record's error (AIPerf only logs it).
//
// A stream reader from NewStream completes each usage with the fields the
// earlier events reported.
func (Messages) ParseResponse(data []byte) (record.Parsed, error) {
	p, _, err := parse(data)
	return p, err
}

func parse(data []byte) (record.Parsed, *endpoint.Usage, error) {
	var ev event
	done, err := endpoint.DecodeEvent(data, &ev)
	if err != nil {
		return record.Parsed{}, nil, fmt.Errorf("anthropic messages response: %w", err)
	}
	if done {
		return record.Parsed{Done: true}, nil, nil
	}
	var p record.Parsed
	var usage *endpoint.Usage
	switch ev.Type.S {
	case "message":
		usage = &ev.Usage
		var text, thinking, tools strings.Builder
		for _, b := range ev.Content {
			switch b.Type.S {
			case "text":
				text.WriteString(b.Text.S)
			case "thinking":
				thinking.WriteString(b.Thinking.S)
			case "tool_use":
				tools.WriteString(b.Name.S)
				if ok, _ := endpoint.Truthy(b.Input); ok {
					c, err := endpoint.Compact(b.Input)
					if err == nil {
						tools.Write(c)
					}
				}
			}
		}
		switch {
		case thinking.Len() > 0:
			p.Reasoning, p.Text = thinking.String(), text.String()
		default:
			p.Text = text.String() + tools.String()
		}
	case "message_start":
		if ev.Message != nil {
			usage = &ev.Message.Usage
		}
	case "message_delta":
		usage = &ev.Usage
	case "content_block_delta":
		switch ev.Delta.Type.S {
		case "text_delta":
			p.Text = ev.Delta.Text.S
		case "thinking_delta":
			p.Reasoning = ev.Delta.Thinking.S
		case "input_json_delta":
			p.Text = ev.Delta.PartialJSON.S
		}
	case "error":
		if ev.Error.Present {
			p.Error = ev.Error.Details()
		} else {
			p.Error = endpoint.ErrorDetails(0, "", "error event")
		}
	}
	if usage != nil {
		p.Usage = usage.Record()
	}
	return p, usage, nil
}

// NewStream returns a reader for one response that folds every usage
// into the next one (message_delta may omit message_start's input and
// cache counts), as AIPerf merges them.
func (Messages) NewStream() record.ChunkParser { return &stream{} }

type stream struct {
	usage endpoint.Usage // the fold of every usage so far
}

func (s *stream) ParseResponse(data []byte) (record.Parsed, error) {
	p, u, err := parse(data)
	if err != nil || u == nil || !u.Present() {
		return p, err
	}
	folded := *u
	folded.Fold(&s.usage)
	s.usage = folded
	p.Usage = folded.Record()
	return p, nil
}
