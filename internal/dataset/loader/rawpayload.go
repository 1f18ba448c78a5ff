package loader

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// rawTurn makes a turn that sends payload (a JSON object) verbatim. The
// payload's model and output limit are copied into the turn for
// reporting, and its prompt texts (chat message contents, or a completions
// prompt) feed the input token count.
func (l *loader) rawTurn(payload []byte) (dataset.Turn, error) {
	r, err := parseRow(payload)
	if err != nil {
		return dataset.Turn{}, err
	}
	t := dataset.Turn{Role: "user", RawPayload: payload}
	if t.Model, _, err = r.str("model"); err != nil {
		return t, &fieldErr{"model", err}
	}
	for _, k := range []string{"max_completion_tokens", "max_tokens"} {
		if n, ok, err := r.int(k); err == nil && ok {
			t.MaxTokens = n
			break
		}
	}
	t.Texts = payloadTexts(r)
	t.InputTokens = l.count(t.Texts)
	return t, nil
}

// payloadTexts extracts the text a payload sends: every chat message's
// string content or text parts, or the completions prompt.
func payloadTexts(r row) []string {
	var texts []string
	if raw := r.raw("messages"); raw != nil {
		var msgs []struct {
			Content jsontext.Value `json:"content"`
		}
		if json.Unmarshal(raw, &msgs) == nil {
			for _, m := range msgs {
				texts = append(texts, contentTexts(m.Content)...)
			}
		}
	}
	if raw := r.raw("prompt"); raw != nil {
		var s string
		var list []string
		if json.Unmarshal(raw, &s) == nil {
			texts = append(texts, s)
		} else if json.Unmarshal(raw, &list) == nil {
			texts = append(texts, list...)
		}
	}
	return texts
}

func contentTexts(v jsontext.Value) []string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var out []string
	if json.Unmarshal(v, &parts) == nil {
		for _, p := range parts {
			if p.Type == "text" {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// rawPayload reads a raw_payload dataset: JSONL request bodies, each with
// a "messages" array, sent byte for byte. A file gives one single-turn
// conversation per line; a directory gives one conversation per .jsonl
// file, its lines the turns in order.
func (l *loader) rawPayload() ([]dataset.Conversation, error) {
	dir := isDir(l.opts.Path)
	files := []string{l.opts.Path}
	if dir {
		var err error
		if files, err = dirFiles(l.opts.Path, ".jsonl"); err != nil {
			return nil, err
		}
	}
	var convs []dataset.Conversation
	var p problems
	for _, file := range files {
		var turns []dataset.Turn
		p.eachLine(file, func(_ int, line []byte) error {
			t, err := l.rawPayloadLine(line)
			if err != nil {
				return err
			}
			switch {
			case dir:
				turns = append(turns, t)
			case l.opts.Keep > 0 && len(convs) >= l.opts.Keep:
				// checked, not kept: it would never be sent
			default:
				convs = append(convs, dataset.Conversation{ID: l.sessionID(), Turns: []dataset.Turn{t}})
			}
			return nil
		})
		if dir && len(turns) > 0 {
			convs = append(convs, dataset.Conversation{ID: l.sessionID(), Turns: turns})
		}
	}
	return convs, p.err()
}

func (l *loader) rawPayloadLine(line []byte) (dataset.Turn, error) {
	r, err := parseRow(line)
	if err != nil {
		return dataset.Turn{}, err
	}
	if raw := r.raw("messages"); raw == nil {
		return dataset.Turn{}, &fieldErr{"messages", errors.New("missing: a raw payload must carry a messages array")}
	} else if jsontext.Value(raw).Kind() != '[' {
		return dataset.Turn{}, &fieldErr{"messages", typeErr(raw, "an array")}
	}
	return l.rawTurn(append([]byte(nil), line...))
}

// inputsJSON replays an inputs.json written by a previous run
// ({"data":[{"session_id":..., "payloads":[{...}, ...]}]}): each session
// is a conversation and each payload a turn sent verbatim (compacted).
// Session IDs must be unique.
func (l *loader) inputsJSON() ([]dataset.Conversation, error) {
	file := l.opts.Path
	data, err := readFile(file)
	if err != nil {
		return nil, err
	}
	top, err := parseRow(data)
	if err != nil {
		return nil, &dataset.InputError{File: file, Err: err}
	}
	raw := top.raw("data")
	if raw == nil {
		return nil, &dataset.InputError{File: file, Field: "data", Err: errors.New("missing")}
	}
	if jsontext.Value(raw).Kind() != '[' {
		return nil, &dataset.InputError{File: file, Field: "data", Err: typeErr(raw, "an array of sessions")}
	}
	var sessions []jsontext.Value
	if err := json.Unmarshal(raw, &sessions); err != nil {
		return nil, &dataset.InputError{File: file, Field: "data", Err: err}
	}
	var p problems
	seen := map[string]bool{}
	var convs []dataset.Conversation
	for i, s := range sessions {
		field := fmt.Sprintf("data[%d]", i)
		conv, err := l.inputsSession(s)
		if err != nil {
			var fe *fieldErr
			if errors.As(err, &fe) {
				p.add(&dataset.InputError{File: file, Field: field + "." + fe.field, Err: fe.err})
			} else {
				p.add(&dataset.InputError{File: file, Field: field, Err: err})
			}
			continue
		}
		if seen[conv.ID] {
			p.add(&dataset.InputError{File: file, Field: field + ".session_id", Err: fmt.Errorf("duplicate session_id %q", conv.ID)})
			continue
		}
		seen[conv.ID] = true
		convs = append(convs, conv)
	}
	return convs, p.err()
}

func (l *loader) inputsSession(s []byte) (dataset.Conversation, error) {
	r, err := parseRow(s)
	if err != nil {
		return dataset.Conversation{}, err
	}
	id, ok, err := r.str("session_id")
	if err != nil || !ok {
		if err == nil {
			err = errors.New("missing")
		}
		return dataset.Conversation{}, &fieldErr{"session_id", err}
	}
	raw := r.raw("payloads")
	if raw == nil {
		return dataset.Conversation{}, &fieldErr{"payloads", errors.New("missing")}
	}
	var payloads []jsontext.Value
	if jsontext.Value(raw).Kind() != '[' || json.Unmarshal(raw, &payloads) != nil {
		return dataset.Conversation{}, &fieldErr{"payloads", typeErr(raw, "an array of request bodies")}
	}
	if len(payloads) == 0 {
		return dataset.Conversation{}, &fieldErr{"payloads", errors.New("must not be empty")}
	}
	conv := dataset.Conversation{ID: id}
	for j, pl := range payloads {
		if pl.Kind() != '{' {
			return conv, &fieldErr{fmt.Sprintf("payloads[%d]", j), typeErr(pl, "an object")}
		}
		t, err := l.rawTurn([]byte(strings.Clone(string(pl))))
		if err != nil {
			return conv, &fieldErr{fmt.Sprintf("payloads[%d]", j), err}
		}
		conv.Turns = append(conv.Turns, t)
	}
	return conv, nil
}
