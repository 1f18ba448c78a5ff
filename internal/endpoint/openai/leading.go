package openai

import "github.com/aiperf-go/aiperf/internal/dataset"

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
		dst = appendString(dst, t.System)
		dst = append(dst, "},"...)
	}
	if t.UserContext != "" {
		dst = append(dst, `{"role":"user","content":`...)
		dst = appendString(dst, t.UserContext)
		dst = append(dst, "},"...)
	}
	return dst
}
