package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// Session is one dataset conversation as sent: its id and the request body
// the endpoint built for each turn, in turn order.
type Session struct {
	ID       string
	Payloads [][]byte // each a complete JSON request body
}

// Inputs renders inputs.json, {"data":[{"session_id", "payloads":[...]}]},
// indented by two spaces without a trailing newline, as AIPerf 0.13 writes
// it. Payload members keep the order the endpoint wrote them in, so the
// same sessions always give the same bytes. A payload that is not valid
// JSON is an error: inputs.json is meant to be replayed.
func Inputs(sessions []Session) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeInputs(&b, sessions); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteInputs writes Inputs(sessions) to path atomically, streaming: the
// file is never held in memory whole.
func WriteInputs(path string, sessions []Session) error {
	return writeAtomic(path, func(w io.Writer) error { return encodeInputs(w, sessions) })
}

// encodeInputs streams inputs.json to w.
func encodeInputs(w io.Writer, sessions []Session) error {
	nl := &noFinalNewline{w: w}
	enc := jsontext.NewEncoder(nl, jsontext.WithIndent("  "))
	tok := func(t jsontext.Token) error { return enc.WriteToken(t) }
	if err := errors.Join(tok(jsontext.BeginObject), tok(jsontext.String("data")), tok(jsontext.BeginArray)); err != nil {
		return err
	}
	for _, s := range sessions {
		if err := errors.Join(tok(jsontext.BeginObject), tok(jsontext.String("session_id")), tok(jsontext.String(s.ID)),
			tok(jsontext.String("payloads")), tok(jsontext.BeginArray)); err != nil {
			return err
		}
		for i, p := range s.Payloads {
			if !jsontext.Value(p).IsValid() {
				return fmt.Errorf("inputs.json: session %q payload %d is not valid JSON", s.ID, i)
			}
			if err := enc.WriteValue(jsontext.Value(p)); err != nil {
				return err
			}
		}
		if err := errors.Join(tok(jsontext.EndArray), tok(jsontext.EndObject)); err != nil {
			return err
		}
	}
	return errors.Join(tok(jsontext.EndArray), tok(jsontext.EndObject))
}

// noFinalNewline passes writes through but holds back a trailing newline
// until more follows: the encoder ends its top-level value with one, and
// AIPerf's inputs.json has none.
type noFinalNewline struct {
	w       io.Writer
	pending bool
}

func (n *noFinalNewline) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if n.pending {
		if _, err := n.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		n.pending = false
	}
	body := p
	if p[len(p)-1] == '\n' {
		body, n.pending = p[:len(p)-1], true
	}
	if _, err := n.w.Write(body); err != nil {
		return 0, err
	}
	return len(p), nil
}
