package export

import (
	"fmt"

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
	var w jsonw
	w.open('{')
	w.key("data")
	w.open('[')
	for _, s := range sessions {
		w.open('{')
		w.key("session_id")
		w.str(s.ID)
		w.key("payloads")
		w.open('[')
		for i, p := range s.Payloads {
			if !jsontext.Value(p).IsValid() {
				return nil, fmt.Errorf("inputs.json: session %q payload %d is not valid JSON", s.ID, i)
			}
			w.raw(p)
		}
		w.close(']')
		w.close('}')
	}
	w.close(']')
	w.close('}')
	v := jsontext.Value(w.b)
	if err := v.Indent(jsontext.WithIndent("  ")); err != nil {
		return nil, fmt.Errorf("format inputs.json: %w", err)
	}
	return v, nil
}

// WriteInputs writes Inputs(sessions) to path atomically.
func WriteInputs(path string, sessions []Session) error {
	b, err := Inputs(sessions)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}
