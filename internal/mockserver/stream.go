package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Fixed pieces of the SSE chunks, in vLLM's layout. A chunk is
//
//	data: {"id":ID,"object":OBJ,"created":N,"model":M,"choices":[CHOICE]}\n\n
//
// and the usage chunk has "choices":[] followed by "usage".
const (
	chatRoleChoice   = `{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
	chatTokenPrefix  = `{"index":0,"delta":{"content":`
	chatTokenSuffix  = `},"finish_reason":null}]}`
	chatFinishPrefix = `{"index":0,"delta":{},"finish_reason":"`
	textTokenPrefix  = `{"index":0,"text":`
	textTokenSuffix  = `,"finish_reason":null}]}`
	textFinishPrefix = `{"index":0,"text":"","finish_reason":"`
	finishSuffix     = `"}]}`
	sseDone          = "data: [DONE]\n\n"
)

// sseWriter writes server-sent events, flushing after each one so every
// token leaves at its own deadline.
type sseWriter struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	head []byte // `data: {"id":...,"model":...,"choices":[`
	buf  []byte
}

// newSSEWriter prepares the common chunk head for r.
func newSSEWriter(w http.ResponseWriter, r *response) *sseWriter {
	object := "chat.completion.chunk"
	if r.api == completionAPI {
		object = "text_completion"
	}
	id, _ := json.Marshal(r.id) // strings always marshal
	model, _ := json.Marshal(r.model)
	head := []byte(`data: {"id":`)
	head = append(head, id...)
	head = append(head, `,"object":"`+object+`","created":`...)
	head = strconv.AppendInt(head, r.created, 10)
	head = append(head, `,"model":`...)
	head = append(head, model...)
	head = append(head, `,"choices":[`...)
	return &sseWriter{w: w, rc: http.NewResponseController(w), head: head, buf: make([]byte, 0, 256)}
}

// event writes one chunk: the head, then parts, then the blank line.
func (e *sseWriter) event(parts ...string) error {
	e.buf = append(e.buf[:0], e.head...)
	for _, p := range parts {
		e.buf = append(e.buf, p...)
	}
	e.buf = append(e.buf, "\n\n"...)
	return e.write(e.buf)
}

// write sends b and flushes it.
func (e *sseWriter) write(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	return e.rc.Flush()
}

// stream answers with server-sent events: headers (and, for chat, the role
// chunk) at once; content token i at arrival + the clock's i-th deadline;
// then the finish chunk, the usage chunk when asked for, and [DONE]. It
// returns early, without error, when the client goes away or the server
// closes.
// tokenEvent writes one token's chunk, spoiled as the fault asks when it
// is the last chunk before the fault's cut (atCut).
func tokenEvent(e *sseWriter, fault Fault, atCut bool, prefix, word, suffix string) error {
	switch {
	case fault == FaultEmptyChoices:
		return e.event(suffix)
	case atCut && fault == FaultHugeChunk:
		chunk := padChunk(string(e.head[len("data: "):]) + prefix + word + suffix)
		return e.write([]byte("data: " + chunk + "\n\n"))
	case atCut && fault == FaultInvalidUTF8:
		return e.event(prefix, withInvalidUTF8(word), suffix)
	default:
		return e.event(prefix, word, suffix)
	}
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, resp *response, wt *waiter, includeUsage bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := newSSEWriter(w, resp)

	chat := resp.api == chatAPI
	var err error
	if chat {
		// vLLM's first chunk carries only the role; AIPerf ignores it for TTFT.
		err = e.event(chatRoleChoice)
	} else {
		err = e.rc.Flush()
	}
	if err != nil {
		return
	}

	tokenPrefix, tokenSuffix, finishPrefix := chatTokenPrefix, chatTokenSuffix, chatFinishPrefix
	if !chat {
		tokenPrefix, tokenSuffix, finishPrefix = textTokenPrefix, textTokenSuffix, textFinishPrefix
	}
	if resp.fault == FaultEmptyChoices {
		tokenPrefix, tokenSuffix, finishPrefix = "", "]}", "" // "choices":[]
	}
	words := resp.plan.words
	ctx := r.Context()
	cut := faultCut(resp.plan.Count)
	var first, last time.Time // when the first and the last token left
	plain := resp.plan.Count  // tokens written one per chunk below
	if chat && resp.fault == FaultNone && s.cfg.Shaped() {
		resp.reasoning = min(s.cfg.ReasoningTokens, resp.plan.Count)
		var ok bool
		if first, last, ok = s.streamShaped(ctx, e, resp, wt); !ok {
			return
		}
		plain = 0
	}
	for i := range plain {
		word := s.wordJSON[words.next(len(s.wordJSON))]
		if !s.awaitToken(ctx, resp, wt) {
			return
		}
		if i == cut && s.streamFault(w, r, e, resp.fault) {
			return
		}
		if tokenEvent(e, resp.fault, i == cut-1, tokenPrefix, word, tokenSuffix) != nil {
			return
		}
		last = time.Now()
		if first.IsZero() {
			first = last
		}
		resp.track.token(last, 1)
	}
	if cut == resp.plan.Count && s.streamFault(w, r, e, resp.fault) {
		return
	}
	// Finished before the closing chunks: see request.finish.
	resp.track.finish(time.Now(), resp.plan.Finish)
	if resp.fault == FaultEmptyChoices {
		if e.event(tokenSuffix) != nil {
			return
		}
	} else if e.event(s.finishChunk(r, resp, finishPrefix, first, last)...) != nil {
		return
	}
	if includeUsage {
		u, _ := json.Marshal(resp.usage()) // ints always marshal
		if e.event(`],"usage":`, string(u), "}") != nil {
			return
		}
	}
	_ = e.write([]byte(sseDone))
}

// streamFault applies a mid-stream fault once the first faultCut tokens
// have been sent, and reports whether the stream must end here.
func (s *Server) streamFault(w http.ResponseWriter, r *http.Request, e *sseWriter, f Fault) bool {
	switch f {
	case FaultResetMidStream:
		resetConn(w)
	case FaultTruncatedStream:
		// Return normally: net/http ends the chunked body cleanly, without
		// a finish chunk or [DONE].
	case FaultStall:
		s.holdUntilGone(r)
	case FaultMalformedChunk:
		// An extra, invalid data line; the stream then goes on normally.
		return e.write([]byte("data: "+malformedData+"\n\n")) != nil
	default:
		return false
	}
	return true
}
