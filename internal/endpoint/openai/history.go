package openai

import (
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// appendConversation writes the chat "messages" array of a turn that may
// follow a history: every history message in order, then the turn's own
// message(s). Earlier turns render exactly as they did when they were sent
// (appendMessages, media parts included); replies are plain
// {"role":"assistant","content":text} messages.
//
// appendMessages always writes one JSON array, so each rendering is spliced
// in without its brackets; that keeps one renderer for turns whatever
// content parts it learns.
func appendConversation(dst []byte, h []endpoint.Message, t *dataset.Turn) []byte {
	if len(h) == 0 && !hasLeadingMessages(t) {
		return appendMessages(dst, t)
	}
	dst = appendLeadingMessages(append(dst, '['), t)
	for _, m := range h {
		if m.Turn != nil {
			dst = appendArrayItems(dst, m.Turn)
		} else {
			role := m.Role
			if role == "" {
				role = "assistant"
			}
			dst = append(dst, `{"role":`...)
			dst = appendString(dst, role)
			dst = append(dst, `,"content":`...)
			dst = appendString(dst, m.Text)
			dst = append(dst, '}')
		}
		dst = append(dst, ',')
	}
	dst = appendArrayItems(dst, t)
	return append(dst, ']')
}

// appendArrayItems appends the items of the array appendMessages writes for
// t, without the enclosing brackets.
func appendArrayItems(dst []byte, t *dataset.Turn) []byte {
	start := len(dst)
	dst = appendMessages(dst, t)
	// dst[start] is '[' and the last byte ']': drop both.
	n := copy(dst[start:], dst[start+1:len(dst)-1])
	return dst[:start+n]
}
