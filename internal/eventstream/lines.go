package eventstream

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// StreamError is an error or exception message in the stream (a
// container failure SageMaker reports mid-stream, such as
// ModelStreamError), or a stream that ended inside a message.
type StreamError struct {
	// Type is AWS's label (:exception-type or :error-code), else the
	// message type; AIPerf reports it as the error's type.
	Type    string
	Message string
}

func (e *StreamError) Error() string { return e.Message }

// Lines turns an event stream's PayloadPart messages into the lines of
// the response they carry: SageMaker relays the container's output in
// arbitrary pieces, and a line (one SSE "data:" line or one JSON object)
// may span several messages, so bytes are joined across messages and
// split on newlines only. A leading "data:" is removed, as some
// containers send SSE lines and others bare JSON; empty lines are
// dropped. Messages of other event types are skipped.
type Lines struct {
	dec  Decoder
	line []byte
}

// Feed decodes one network read and calls emit with each line it
// completes, in order; the line is valid during the call only. An error
// or exception message, a framing error, or a line that is not UTF-8
// ends the stream with an error (a *StreamError or *FrameError).
func (l *Lines) Feed(p []byte, emit func(line []byte)) error {
	_, _ = l.dec.Write(p)
	for {
		m, ok, err := l.dec.Next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch mt := m.String(":message-type"); mt {
		case "error", "exception":
			return l.streamError(mt, &m)
		}
		if m.String(":event-type") != "PayloadPart" {
			continue
		}
		l.line = append(l.line, m.Payload...)
		rest := l.line
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			if err := emitLine(rest[:i], emit); err != nil {
				return err
			}
			rest = rest[i+1:]
		}
		l.line = append(l.line[:0], rest...)
	}
}

// Close ends the stream: the last line, when it has no newline, is
// emitted, and a stream that stopped inside a message is an error.
func (l *Lines) Close(emit func(line []byte)) error {
	if err := emitLine(l.line, emit); err != nil {
		return err
	}
	l.line = l.line[:0]
	if n := l.dec.Buffered(); n > 0 {
		return &StreamError{Type: "AwsEventStreamError", Message: fmt.Sprintf(
			"AWS eventstream ended inside an incomplete frame: %d trailing byte(s) after the last complete frame", n)}
	}
	return nil
}

func emitLine(line []byte, emit func([]byte)) error {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	if !utf8.Valid(t) {
		return &StreamError{Type: "AwsEventStreamError", Message: fmt.Sprintf("AWS eventstream PayloadPart line is not valid UTF-8: %q", truncate(t, 64))}
	}
	if rest, ok := bytes.CutPrefix(t, []byte("data:")); ok {
		t = bytes.TrimSpace(rest)
	}
	emit(t)
	return nil
}

// streamError describes an error or exception message as AIPerf does,
// keeping the part of a line buffered when it came (often the most
// telling thing about a failure mid-token).
func (l *Lines) streamError(messageType string, m *Message) error {
	label := m.String(":exception-type")
	if label == "" {
		label = m.String(":error-code")
	}
	detail := m.String(":error-message")
	if detail == "" {
		detail = string(bytes.ToValidUTF8(m.Payload, []byte("\uFFFD")))
	}
	typ := label
	if label == "" {
		label, typ = messageType, messageType
	}
	text := fmt.Sprintf("AWS eventstream %s (%s): %s", messageType, label, detail)
	if p := bytes.TrimSpace(l.line); len(p) > 0 {
		text += fmt.Sprintf(" [partial line buffered at failure: %q]", bytes.ToValidUTF8(l.line, []byte("\uFFFD")))
	}
	return &StreamError{Type: typ, Message: text}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
