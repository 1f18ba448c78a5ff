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
	dst = append(dst, '[')
	first := len(dst)
	// item appends one or more comma-separated messages written by f; f
	// may write none (an empty recorded delta), and then no comma stays.
	item := func(f func([]byte) []byte) {
		mark := len(dst)
		if mark > first {
			dst = append(dst, ',')
		}
		body := len(dst)
		if dst = f(dst); len(dst) == body {
			dst = dst[:mark]
		}
	}
	own := t
	if sys, rest, ok := leadingSystem(t); ok {
		// A recorded leading system message absorbs the conversation's
		// system prompt, as AIPerf merges them into one message.
		item(func(b []byte) []byte { return appendRole(b, "system", joinSystem(t.System, sys)) })
		cp := *t
		cp.Messages, cp.System = rest, ""
		own = &cp
	} else if t.System != "" {
		item(func(b []byte) []byte { return appendRole(b, "system", t.System) })
	}
	if t.UserContext != "" {
		item(func(b []byte) []byte { return appendRole(b, "user", t.UserContext) })
	}
	for _, m := range h {
		if m.Turn != nil {
			ht := m.Turn
			if ht.HistoryMessages != nil {
				cp := *ht
				cp.Messages = ht.HistoryMessages
				ht = &cp
			}
			item(func(b []byte) []byte { return appendArrayItems(b, ht) })
			continue
		}
		role := m.Role
		if role == "" {
			role = "assistant"
		}
		item(func(b []byte) []byte { return appendRole(b, role, m.Text) })
	}
	item(func(b []byte) []byte { return appendArrayItems(b, own) })
	return append(dst, ']')
}

// appendRole writes {"role":role,"content":text}.
func appendRole(dst []byte, role, text string) []byte {
	dst = append(dst, `{"role":`...)
	dst = endpoint.AppendString(dst, role)
	dst = append(dst, `,"content":`...)
	dst = endpoint.AppendString(dst, text)
	return append(dst, '}')
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
