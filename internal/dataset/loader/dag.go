package loader

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// TypeDagJSONL is AIPerf's DAG-shaped conversation JSONL: one session per
// line, turns carrying chat messages, with fork and spawn branches between
// sessions.
const TypeDagJSONL = "dag_jsonl"

var (
	dagConversationKeys = []string{"session_id", "turns", "orchestrator", "spawns", "think_time_ms", "think_time_sigma",
		"think_time_min_ms", "think_time_max_ms", "rounds", "context_mode", "pre_session_spawns"}
	dagTurnKeys = []string{"messages", "model", "max_tokens", "tools", "extra", "forks", "spawns", "delay"}
)

// dagSession is one parsed line.
type dagSession struct {
	id           string
	line         int
	turns        []dataset.Turn
	forks        []dagEdge // per turn index
	spawns       []dagEdge
	orchestrator bool
	children     []string // conversation-level spawns and pre-session spawns
	context      dataset.ContextMode
}

// dagEdge is a branch from turn `turn` of a session to child sessions.
type dagEdge struct {
	turn     int
	children []string
}

// dagJSONL reads a DAG JSONL file. Every session that sends requests
// becomes a conversation: its turns send their authored messages,
// appended to the history (earlier turns and live replies, or, with
// "context_mode": "message_array_with_responses", each turn alone); a
// fork child's first turn starts from its parent's authored messages up
// to the fork. References to unknown sessions and branch cycles are
// errors. The branch scheduling itself (children dispatched by their
// parent, joins) is not reproduced: sessions run as independent
// conversations.
func (l *loader) dagJSONL() ([]dataset.Conversation, error) {
	file := l.opts.Path
	var list []*dagSession
	byID := map[string]*dagSession{}
	var p problems
	p.eachLine(file, func(n int, line []byte) error {
		s, err := parseDagSession(line)
		if err != nil {
			return err
		}
		s.line = n
		if prev, dup := byID[s.id]; dup {
			return &fieldErr{"session_id", fmt.Errorf("duplicate session %q (first on line %d)", s.id, prev.line)}
		}
		byID[s.id] = s
		list = append(list, s)
		return nil
	})
	if err := p.err(); err != nil {
		return nil, err
	}
	// Every branch target must exist; the branch graph must be acyclic.
	for _, s := range list {
		for _, c := range s.allChildren() {
			if _, ok := byID[c]; !ok {
				p.add(&dataset.InputError{File: file, Line: s.line, Field: "turns", Err: fmt.Errorf("session %q branches to unknown session %q", s.id, c)})
			}
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	if cyc := dagCycle(list, byID); cyc != "" {
		return nil, &dataset.InputError{File: file, Err: fmt.Errorf("branch cycle: %s", cyc)}
	}
	forkParent := map[string][]byte{} // child -> the parent's authored messages up to the fork
	for _, s := range list {
		var acc []jsontext.Value
		for t, turn := range s.turns {
			var msgs []jsontext.Value
			json.Unmarshal(turn.Messages, &msgs)
			acc = append(acc, msgs...)
			for _, f := range s.forks {
				if f.turn == t {
					for _, c := range f.children {
						forkParent[c] = joinJSONArray(acc)
					}
				}
			}
		}
	}
	var convs []dataset.Conversation
	for _, s := range list {
		if s.orchestrator || len(s.turns) == 0 {
			continue
		}
		c := dataset.Conversation{ID: s.id, Context: s.context, Turns: append([]dataset.Turn(nil), s.turns...)}
		if prefix, ok := forkParent[s.id]; ok {
			var a, b []jsontext.Value
			json.Unmarshal(prefix, &a)
			json.Unmarshal(c.Turns[0].Messages, &b)
			c.Turns[0].Messages = joinJSONArray(append(a, b...))
		}
		for t := range c.Turns {
			c.Turns[t].InputTokens = l.count(c.Turns[t].Texts)
		}
		convs = append(convs, c)
	}
	return convs, nil
}

func (s *dagSession) allChildren() []string {
	out := append([]string(nil), s.children...)
	for _, e := range append(append([]dagEdge(nil), s.forks...), s.spawns...) {
		out = append(out, e.children...)
	}
	return out
}

// dagCycle returns a description of a branch cycle, "" when none.
func dagCycle(list []*dagSession, byID map[string]*dagSession) string {
	state := map[string]int{} // 1 visiting, 2 done
	var path []string
	var visit func(id string) string
	visit = func(id string) string {
		switch state[id] {
		case 1:
			return strings.Join(append(path, id), " -> ")
		case 2:
			return ""
		}
		state[id] = 1
		path = append(path, id)
		for _, c := range byID[id].allChildren() {
			if cyc := visit(c); cyc != "" {
				return cyc
			}
		}
		path = path[:len(path)-1]
		state[id] = 2
		return ""
	}
	for _, s := range list {
		if cyc := visit(s.id); cyc != "" {
			return cyc
		}
	}
	return ""
}

func joinJSONArray(items []jsontext.Value) []byte {
	out := []byte{'['}
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

func parseDagSession(line []byte) (*dagSession, error) {
	r, err := parseRow(line)
	if err != nil {
		return nil, err
	}
	if err := checkKeys(r, dagConversationKeys); err != nil {
		return nil, err
	}
	s := &dagSession{}
	var ok bool
	if s.id, ok, err = r.str("session_id"); err != nil || !ok || s.id == "" {
		return nil, &fieldErr{"session_id", orMissing(err, ok && s.id != "")}
	}
	if raw := r.raw("orchestrator"); raw != nil {
		s.orchestrator = string(raw) == "true"
		if !s.orchestrator && string(raw) != "false" {
			return nil, &fieldErr{"orchestrator", typeErr(raw, "a boolean")}
		}
	}
	for _, k := range []string{"spawns", "pre_session_spawns"} {
		ids, _, err := r.strs(k)
		if err != nil {
			return nil, &fieldErr{k, err}
		}
		s.children = append(s.children, ids...)
	}
	if len(r.strsOr("spawns")) > 0 && !s.orchestrator {
		return nil, &fieldErr{"spawns", errors.New("conversation-level spawns need \"orchestrator\": true (use a turn's spawns otherwise)")}
	}
	switch cm, _, err := r.str("context_mode"); {
	case err != nil:
		return nil, &fieldErr{"context_mode", err}
	case cm == "", cm == "deltas_without_responses":
	case cm == string(dataset.ContextMessageArray), cm == string(dataset.ContextDeltasWithResponses):
		s.context = dataset.ContextMode(cm)
	default:
		return nil, &fieldErr{"context_mode", fmt.Errorf("unknown context mode %q", cm)}
	}
	var turns []jsontext.Value
	if raw := r.raw("turns"); raw != nil {
		if jsontext.Value(raw).Kind() != '[' || json.Unmarshal(raw, &turns) != nil {
			return nil, &fieldErr{"turns", typeErr(raw, "an array of turns")}
		}
	}
	if s.orchestrator {
		if len(turns) > 0 {
			return nil, &fieldErr{"turns", errors.New("an orchestrator sends no requests: its turns must be empty")}
		}
		if len(r.strsOr("spawns")) == 0 {
			return nil, &fieldErr{"spawns", errors.New("an orchestrator needs spawns")}
		}
		return s, nil
	}
	if len(turns) == 0 {
		return nil, &fieldErr{"turns", errors.New("must not be empty")}
	}
	for i, tv := range turns {
		prefix := fmt.Sprintf("turns[%d]", i)
		t, forks, spawns, err := parseDagTurn(tv, i)
		if err != nil {
			var fe *fieldErr
			if errors.As(err, &fe) {
				return nil, &fieldErr{prefix + "." + fe.field, fe.err}
			}
			return nil, &fieldErr{prefix, err}
		}
		s.turns = append(s.turns, t)
		if len(forks) > 0 {
			s.forks = append(s.forks, dagEdge{turn: i, children: forks})
		}
		if len(spawns) > 0 {
			s.spawns = append(s.spawns, dagEdge{turn: i, children: spawns})
		}
	}
	return s, nil
}

// strsOr returns key's strings, nil when absent or invalid.
func (r row) strsOr(key string) []string {
	v, _, _ := r.strs(key)
	return v
}

func parseDagTurn(tv jsontext.Value, index int) (dataset.Turn, []string, []string, error) {
	var t dataset.Turn
	r, err := parseRow(tv)
	if err != nil {
		return t, nil, nil, err
	}
	if err := checkKeys(r, dagTurnKeys); err != nil {
		return t, nil, nil, err
	}
	raw := r.raw("messages")
	if raw == nil {
		return t, nil, nil, &fieldErr{"messages", errors.New("missing")}
	}
	if err := checkMessages(raw); err != nil {
		return t, nil, nil, &fieldErr{"messages", err}
	}
	if index > 0 {
		var msgs []struct {
			Role string `json:"role"`
		}
		json.Unmarshal(raw, &msgs)
		for i, m := range msgs {
			if m.Role == "system" {
				return t, nil, nil, &fieldErr{fmt.Sprintf("messages[%d].role", i), errors.New("a system message is only allowed on the first turn")}
			}
		}
	}
	t.Messages = append([]byte(nil), raw...)
	t.Texts = payloadTexts(row{fields: []dataset.Field{{Key: "messages", Value: raw}}})
	if t.Model, _, err = r.str("model"); err != nil {
		return t, nil, nil, &fieldErr{"model", err}
	}
	if v := r.raw("max_tokens"); v != nil {
		if k := jsontext.Value(v).Kind(); k == 't' || k == 'f' {
			return t, nil, nil, &fieldErr{"max_tokens", errors.New("must be an integer, not a boolean")}
		}
		if t.MaxTokens, _, err = r.int("max_tokens"); err != nil || t.MaxTokens < 1 {
			if err == nil {
				err = fmt.Errorf("must be at least 1, got %d", t.MaxTokens)
			}
			return t, nil, nil, &fieldErr{"max_tokens", err}
		}
	}
	if tools := r.raw("tools"); tools != nil {
		if jsontext.Value(tools).Kind() != '[' {
			return t, nil, nil, &fieldErr{"tools", typeErr(tools, "an array")}
		}
		t.Tools = tools
	}
	if t.Extra, _, err = r.object("extra"); err != nil {
		return t, nil, nil, &fieldErr{"extra", err}
	}
	if d, ok, err := r.num("delay"); err != nil {
		return t, nil, nil, &fieldErr{"delay", err}
	} else if ok {
		if err := checkMs(d); err != nil {
			return t, nil, nil, &fieldErr{"delay", err}
		}
		t.Delay = msDuration(d)
	}
	forks, err := dagTargets(r, "forks", "child")
	if err != nil {
		return t, nil, nil, err
	}
	spawns, err := dagTargets(r, "spawns", "children")
	return t, forks, spawns, err
}

// dagTargets reads a turn's forks or spawns: bare session ids or objects
// naming them (fork: {"child": id}; spawn: {"children": [ids]}).
func dagTargets(r row, key, member string) ([]string, error) {
	raw := r.raw(key)
	if raw == nil {
		return nil, nil
	}
	var items []jsontext.Value
	if jsontext.Value(raw).Kind() != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, &fieldErr{key, typeErr(raw, "an array")}
	}
	var out []string
	for i, it := range items {
		field := fmt.Sprintf("%s[%d]", key, i)
		if it.Kind() == '"' {
			var s string
			json.Unmarshal(it, &s)
			out = append(out, s)
			continue
		}
		o, err := parseRow(it)
		if err != nil {
			return nil, &fieldErr{field, err}
		}
		if member == "child" {
			c, ok, err := o.str("child")
			if err != nil || !ok {
				return nil, &fieldErr{field + ".child", orMissing(err, ok)}
			}
			out = append(out, c)
			continue
		}
		cs, ok, err := o.strs("children")
		if err != nil || !ok || len(cs) == 0 {
			return nil, &fieldErr{field + ".children", orMissing(err, ok && len(cs) > 0)}
		}
		out = append(out, cs...)
	}
	return out, nil
}

// isDagRow reports whether a first line looks like a DAG session.
func isDagRow(r row) bool {
	if !r.has("session_id") {
		return false
	}
	if r.has("orchestrator") {
		return true
	}
	var turns []jsontext.Value
	if json.Unmarshal(r.raw("turns"), &turns) != nil || len(turns) == 0 {
		return false
	}
	t, err := parseRow(turns[0])
	return err == nil && t.has("messages")
}
