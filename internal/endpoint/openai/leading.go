package openai

import (
	"bytes"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// hasLeadingMessages reports whether t's conversation starts with a system
// or user-context message.
func hasLeadingMessages(t *dataset.Turn) bool { return t.System != "" || t.UserContext != "" }

// appendLeadingMessages writes the conversation's leading messages, each
// followed by a comma, inside an open messages array: the system prompt as
// {"role":"system",...}, then the user-context prompt as
// {"role":"user",...}, as AIPerf's chat endpoint puts its system_message and
// user_context_message ahead of the history and the turn. They come from
// the turn being sent, so every request of a conversation starts with them
// once, whatever its history.
func appendLeadingMessages(dst []byte, t *dataset.Turn) []byte {
	if t.System != "" {
		dst = append(dst, `{"role":"system","content":`...)
		dst = endpoint.AppendString(dst, t.System)
		dst = append(dst, "},"...)
	}
	if t.UserContext != "" {
		dst = append(dst, `{"role":"user","content":`...)
		dst = endpoint.AppendString(dst, t.UserContext)
		dst = append(dst, "},"...)
	}
	return dst
}

// systemJoin separates a --system-prompt from a recorded system message it
// is merged into (AIPerf's SYSTEM_PROMPT_JOIN_SEP).
const systemJoin = "\n\n"

func joinSystem(prompt, recorded string) string {
	switch {
	case prompt == "":
		return recorded
	case recorded == "":
		return prompt
	}
	return prompt + systemJoin + recorded
}

// leadingSystem splits a turn's recorded messages when the conversation has
// a system prompt and the recording starts with a system message whose
// content is a string: that content and the remaining messages.
func leadingSystem(t *dataset.Turn) (content string, rest []byte, ok bool) {
	if t.Messages == nil || t.System == "" {
		return "", nil, false
	}
	var msgs []jsontext.Value
	if json.Unmarshal(t.Messages, &msgs) != nil || len(msgs) == 0 {
		return "", nil, false
	}
	var head struct {
		Role    string         `json:"role"`
		Content jsontext.Value `json:"content"`
	}
	if json.Unmarshal(msgs[0], &head) != nil || head.Role != "system" || head.Content.Kind() != '"' {
		return "", nil, false
	}
	if json.Unmarshal(head.Content, &content) != nil {
		return "", nil, false
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, m := range msgs[1:] {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteByte(']')
	return content, b.Bytes(), true
}
