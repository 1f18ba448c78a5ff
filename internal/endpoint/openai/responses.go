package openai

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Responses is the OpenAI Responses API endpoint (/v1/responses), the
// API agent frameworks use. It is stateless; NewStream reads one streamed
// response.
type Responses struct{}

var (
	_ endpoint.Endpoint = Responses{}
	_ endpoint.Streamer = Responses{}
)

// NewResponses returns the Responses endpoint (--endpoint-type responses).
func NewResponses() endpoint.Endpoint { return Responses{} }

// Metadata describes the endpoint as AIPerf's plugin metadata does.
func (Responses) Metadata() endpoint.Metadata {
	return endpoint.Metadata{
		Type: "responses",
		Description: "OpenAI Responses API: the conversation goes in \"input\" as message items, the system " +
			"prompt in \"instructions\"; streamed answers are response.* events (output text, reasoning and " +
			"tool-call argument deltas, usage in response.completed).",
		Path:                  "/v1/responses",
		ServiceKind:           "openai",
		MetricsTitle:          "LLM Metrics",
		SupportsStreaming:     true,
		ProducesTokens:        true,
		TokenizesInput:        true,
		SupportsImages:        true,
		SupportsAudio:         true,
		ConsumesSystemMessage: true,
		SupportsCacheBust:     true,
		ImagePart:             "input_image",
	}
}

// responsesParts renders input content with the Responses API's part
// types: input_text, input_image (image_url a plain string) and OpenAI's
// input_audio; the API takes no video.
var responsesParts = endpoint.Parts{
	API:  "the Responses API",
	Text: endpoint.TextPart("input_text"),
	Image: func(dst []byte, url, _ string) []byte {
		dst = append(dst, `{"type":"input_image","image_url":`...)
		dst = endpoint.AppendString(dst, url)
		return append(dst, '}')
	},
	Audio: endpoint.InputAudioPart,
}

// AppendPayload appends the request body for t:
//
//	{"input":[<user context item>, <history items>, {"role":..,"content":..,"type":"message"}],
//	 "model":..,"stream":..,"instructions":<system prompt>,"max_output_tokens":..,<extras>}
//
// With --use-server-token-count a streaming request also asks for usage
// (stream_options.include_usage), as AIPerf does; otherwise the usage in
// response.completed is what the server sends anyway. Replies in the
// history are {"role":"assistant","content":text,"type":"message"} items.
func (Responses) AppendPayload(dst []byte, t *dataset.Turn, o *endpoint.Options) ([]byte, error) {
	if err := responsesParts.Check(t); err != nil {
		return dst, err
	}
	for _, m := range o.History {
		if m.Turn != nil {
			if err := responsesParts.Check(m.Turn); err != nil {
				return dst, err
			}
		}
	}
	input := []byte{'['}
	item := func(role string, content []byte) {
		if len(input) > 1 {
			input = append(input, ',')
		}
		input = append(input, `{"role":`...)
		input = endpoint.AppendString(input, role)
		input = append(input, `,"content":`...)
		input = append(input, content...)
		input = append(input, `,"type":"message"}`...)
	}
	if t.UserContext != "" {
		// AIPerf puts "type" first in this item alone.
		input = append(input, `{"type":"message","role":"user","content":`...)
		input = endpoint.AppendString(input, t.UserContext)
		input = append(input, '}')
	}
	for _, m := range o.History {
		if m.Turn != nil {
			item(roleOf(m.Turn), responsesParts.AppendContent(nil, m.Turn))
		} else {
			item(defaultRole(m.Role, "assistant"), endpoint.AppendString(nil, m.Text))
		}
	}
	item(roleOf(t), responsesParts.AppendContent(nil, t))
	input = append(input, ']')

	var body endpoint.Object
	body.Set("input", input)
	body.SetString("model", model(t, o))
	body.SetBool("stream", o.Streaming)
	if t.System != "" {
		body.SetString("instructions", t.System)
	}
	if t.MaxTokens > 0 {
		body.SetInt("max_output_tokens", t.MaxTokens)
	}
	if err := body.Merge(o.Extra, nil); err != nil {
		return dst, err
	}
	if o.Streaming && o.UseServerTokenCount {
		if err := includeUsage(&body); err != nil {
			return dst, err
		}
	}
	return body.AppendTo(dst), nil
}

// includeUsage sets stream_options.include_usage unless the author set it:
// a stream_options that is not an object is replaced.
func includeUsage(body *endpoint.Object) error {
	raw, ok := body.Get("stream_options")
	if !ok || len(raw) == 0 || raw[0] != '{' {
		body.Set("stream_options", []byte(`{"include_usage":true}`))
		return nil
	}
	so, err := endpoint.ParseObject(raw)
	if err != nil {
		return fmt.Errorf("extra input stream_options: %w", err)
	}
	if !so.Has("include_usage") {
		so.SetBool("include_usage", true)
		body.SetObject("stream_options", so)
	}
	return nil
}

func roleOf(t *dataset.Turn) string { return defaultRole(t.Role, "user") }

func defaultRole(role, def string) string {
	if role == "" {
		return def
	}
	return role
}

// responsesEvent is a streamed event or a whole response object.
type responsesEvent struct {
	endpoint.Envelope `json:",inline"`
	EventType         endpoint.String `json:"type"`
	Object            endpoint.String `json:"object"`
	Delta             endpoint.String `json:"delta"`
	Text              endpoint.String `json:"text"`
	OutputIndex       jsontext.Value  `json:"output_index"`
	ContentIndex      jsontext.Value  `json:"content_index"`
	Response          *responseObject `json:"response"`
	// Members of a whole (non-streaming) response object.
	Output     []outputItem    `json:"output"`
	OutputText endpoint.String `json:"output_text"`
}

// responseObject is the response carried by lifecycle events
// (response.completed, response.failed).
type responseObject struct {
	Usage  endpoint.Usage       `json:"usage"`
	Error  endpoint.ErrorObject `json:"error"`
	Status endpoint.String      `json:"status"`
}

// outputItem is one item of a response's output[].
type outputItem struct {
	Type      endpoint.String `json:"type"`
	Content   []contentPart   `json:"content"`
	Summary   []contentPart   `json:"summary"`
	Name      endpoint.String `json:"name"`
	Arguments endpoint.String `json:"arguments"`
}

type contentPart struct {
	Type endpoint.String `json:"type"`
	Text endpoint.String `json:"text"`
}

// ParseResponse parses one streamed event or a whole response, as
// AIPerf's Responses endpoint does:
//
//   - response.output_text.delta and .done: output text (a stream reader
//     from NewStream drops the .done text its deltas already carried);
//   - response.reasoning_text.delta: reasoning;
//   - response.function_call_arguments.delta: tool-call text, output;
//   - response.completed: the response's usage;
//   - an "error" event or response.failed: the record's error;
//   - a whole response ("object":"response"): precedence reasoning
//     summaries (with the message text as text), message output_text,
//     then function calls' name and arguments; output_text as fallback.
//
// Other events (created, in_progress, item and part envelopes) carry
// nothing.
func (Responses) ParseResponse(data []byte) (record.Parsed, error) {
	p, _, err := parseResponsesEvent(data)
	return p, err
}

// deltaPart identifies an output/content part of a stream.
type deltaPart struct{ output, content string }

// parseResponsesEvent parses one event and also returns its kind and
// part, for the stream reader.
func parseResponsesEvent(data []byte) (record.Parsed, responsesEventInfo, error) {
	var ev responsesEvent
	var info responsesEventInfo
	done, err := endpoint.DecodeEvent(data, &ev)
	if err != nil {
		return record.Parsed{}, info, fmt.Errorf("openai responses: %w", err)
	}
	if done {
		return record.Parsed{Done: true}, info, nil
	}
	p := ev.Envelope.Parsed(ev.Object.S == "error")
	info.typ = ev.EventType.S
	info.part = deltaPart{string(ev.OutputIndex), string(ev.ContentIndex)}
	if ev.EventType.S != "" {
		p.Usage = nil // only response.completed's usage counts, as in AIPerf
		switch ev.EventType.S {
		case "response.output_text.delta", "response.function_call_arguments.delta":
			p.Text = ev.Delta.S
		case "response.reasoning_text.delta":
			p.Reasoning = ev.Delta.S
		case "response.output_text.done":
			p.Text = ev.Text.S
		case "response.completed":
			if ev.Response != nil {
				p.Usage = ev.Response.Usage.Record()
			}
		case "response.failed":
			if ev.Response != nil && ev.Response.Error.Present {
				p.Error = ev.Response.Error.Details()
			} else {
				p.Error = endpoint.ErrorDetails(0, "", "response.failed")
			}
		case "error":
			if p.Error == nil {
				p.Error = endpoint.ErrorDetails(0, "", ev.Message.S)
			}
		}
		return p, info, nil
	}
	if ev.Object.S != "response" {
		return p, info, nil
	}
	var text, reasoning, tools string
	for _, it := range ev.Output {
		switch it.Type.S {
		case "reasoning":
			for _, s := range it.Summary {
				if s.Type.S == "summary_text" {
					reasoning += s.Text.S
				}
			}
		case "message":
			for _, c := range it.Content {
				if c.Type.S == "output_text" {
					text += c.Text.S
				}
			}
		case "function_call":
			tools += it.Name.S + it.Arguments.S
		}
	}
	switch {
	case reasoning != "":
		p.Reasoning, p.Text = reasoning, text
	case text != "":
		p.Text = text
	case tools != "":
		p.Text = tools
	default:
		p.Text = ev.OutputText.S
	}
	return p, info, nil
}

type responsesEventInfo struct {
	typ  string
	part deltaPart
}

// NewStream returns a reader for one response's events that drops the
// text of a response.output_text.done event whose part already streamed
// deltas, so the output is tokenized once, not twice. The dropped event
// stays a content response (with no text) so request latency and
// inter-chunk gaps are as AIPerf measures them. A part that only sent its
// done event keeps its text.
func (Responses) NewStream() record.ChunkParser { return &responsesStream{} }

type responsesStream struct {
	streamed map[deltaPart]bool
}

func (s *responsesStream) ParseResponse(data []byte) (record.Parsed, error) {
	p, info, err := parseResponsesEvent(data)
	if err != nil {
		return p, err
	}
	switch info.typ {
	case "response.output_text.delta":
		if p.Text != "" {
			if s.streamed == nil {
				s.streamed = map[deltaPart]bool{}
			}
			s.streamed[info.part] = true
		}
	case "response.output_text.done":
		if s.streamed[info.part] {
			p.Text, p.Output = "", true
		}
	}
	return p, nil
}
