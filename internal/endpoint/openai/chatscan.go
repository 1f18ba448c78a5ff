package openai

import (
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// scanChat is Chat.ParseResponse's fast path for the plain shapes of a
// chat.completion body and a chat.completion.chunk event: an object whose
// members are scalars, "choices" with at most one choice (its message or
// delta, finish_reason, scalars) and an OpenAI "usage". It builds the
// chatResponse the decoder would and reports ok; anything else (an error
// member, tool calls, several choices, nested extras, escaped names,
// duplicates, invalid UTF-8, broken JSON) is not ok, and the caller
// decodes the bytes in full. FuzzScanChatMatchesDecoder holds the two
// equal wherever scanChat answers.
func scanChat(data []byte, r *chatResponse) bool {
	return scanResponse(data, &r.common, &r.Object, &r.Choices.first, nil)
}

// scanCompletion is scanChat for a text_completion body or chunk: its one
// choice holds text and finish_reason.
func scanCompletion(data []byte, r *completionResponse) bool {
	return scanResponse(data, &r.common, &r.Object, nil, &r.Choices.first)
}

// scanResponse reads the members every OpenAI response shares ("object",
// "choices", "usage", scalars) into c and obj, and the first choice into
// chat or completion, whichever is not nil (direct calls, not a func
// value, so that the scanner stays on the stack); the error shapes, and
// anything else the scanner does not read, are not ok.
func scanResponse(data []byte, c *common, obj *objectType, chat *chatChoice, completion *completionChoice) bool {
	s := endpoint.NewScanner(data)
	if !s.Open('{') {
		return false
	}
	var seen uint32
	for s.More('}') {
		switch string(s.Key()) {
		case "object":
			s.Seen(&seen, 1<<0)
			*obj = scanObjectType(&s)
		case "choices":
			s.Seen(&seen, 1<<1)
			scanFirstChoice(&s, chat, completion)
		case "usage":
			s.Seen(&seen, 1<<2)
			s.ScanUsage(&c.Usage)
		case "error", "message", "type", "code":
			return false // the error shapes: rare, and the decoder's
		default: // id, created, model, system_fingerprint, service_tier, ...
			s.SkipScalar()
		}
		if s.Bad() {
			return false
		}
	}
	return s.End()
}

// scanObjectType reads "object" as objectType.UnmarshalJSONFrom does: the
// raw value decides, so an escaped spelling or a non-string is objOther.
func scanObjectType(s *endpoint.Scanner) objectType {
	if s.Peek() != '"' {
		s.SkipScalar()
		return objOther
	}
	switch string(s.RawString()) {
	case `"chat.completion"`:
		return objChatCompletion
	case `"chat.completion.chunk"`:
		return objChatChunk
	case `"completion"`, `"text_completion"`:
		return objCompletion
	case `"error"`:
		return objError
	}
	return objOther
}

// scanFirstChoice reads "choices" as endpoint.FirstElement does, for
// null, [] and a single object; a second choice gives up.
func scanFirstChoice(s *endpoint.Scanner, chat *chatChoice, completion *completionChoice) {
	if s.Null() || !s.Open('[') {
		return
	}
	for i := 0; s.More(']'); i++ {
		if i > 0 {
			s.GiveUp() // a second choice
			return
		}
		if chat != nil {
			scanChatChoice(s, chat)
		} else {
			scanCompletionChoice(s, completion)
		}
	}
}

// scanCompletionChoice reads a completionChoice.
func scanCompletionChoice(s *endpoint.Scanner, c *completionChoice) {
	if !s.Open('{') {
		return
	}
	var seen uint32
	for s.More('}') {
		switch string(s.Key()) {
		case "text":
			s.Seen(&seen, 1<<0)
			s.StringMember(&c.Text)
		case "finish_reason":
			s.Seen(&seen, 1<<1)
			s.StringMember(&c.FinishReason)
		default: // index, logprobs (null), stop_reason, prompt_logprobs, ...
			s.SkipScalar()
		}
	}
}

func scanChatChoice(s *endpoint.Scanner, c *chatChoice) {
	if !s.Open('{') {
		return
	}
	var seen uint32
	for s.More('}') {
		switch string(s.Key()) {
		case "message":
			s.Seen(&seen, 1<<0)
			scanChatMessage(s, &c.Message)
		case "delta":
			s.Seen(&seen, 1<<1)
			scanChatMessage(s, &c.Delta)
		case "finish_reason":
			s.Seen(&seen, 1<<2)
			s.StringMember(&c.FinishReason)
		default: // index, logprobs (null), stop_reason, matched_stop, ...
			s.SkipScalar()
		}
	}
}

func scanChatMessage(s *endpoint.Scanner, m *chatMessage) {
	if !s.Open('{') {
		return
	}
	var seen uint32
	for s.More('}') {
		switch string(s.Key()) {
		case "content":
			s.Seen(&seen, 1<<0)
			s.StringMember(&m.Content)
		case "reasoning_content":
			s.Seen(&seen, 1<<1)
			s.StringMember(&m.ReasoningContent)
		case "reasoning":
			s.Seen(&seen, 1<<2)
			s.StringMember(&m.Reasoning)
		case "tool_calls":
			s.Seen(&seen, 1<<3)
			if s.Peek() == '[' { // [] is no tool call; calls go to the decoder
				s.Open('[')
				if s.More(']') {
					s.GiveUp()
				}
				continue
			}
			s.SkipScalar()
		default: // role, refusal, annotations (null), ...
			s.SkipScalar()
		}
	}
}

// parseChat is ParseResponse on a decoded (or scanned) chat response.
func parseChat(r *chatResponse) record.Parsed {
	p := r.common.parsed(r.Object)
	p.Finished = r.Choices.first.FinishReason.S != ""
	var msg *chatMessage
	switch r.Object {
	case objChatCompletion:
		msg = &r.Choices.first.Message
	case objChatChunk:
		msg = &r.Choices.first.Delta
	default:
		return p
	}
	content := msg.Content.S
	switch {
	case msg.ReasoningContent.S != "":
		p.Reasoning, p.Text = msg.ReasoningContent.S, content
	case msg.Reasoning.S != "":
		p.Reasoning, p.Text = msg.Reasoning.S, content
	case msg.ToolCalls.text != "":
		p.Text = content + msg.ToolCalls.text
	default:
		p.Text = content
	}
	return p
}
