package public

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// rawList returns an attribute holding a JSON array of objects: a JSON
// string (as OpenTelemetry records gen_ai.* attributes; member order is
// kept) or an already decoded list.
func rawList(v any, field string) ([]jsontext.Value, error) {
	var raw []byte
	switch x := v.(type) {
	case string:
		raw = []byte(x)
	default:
		b, err := json.Marshal(x, json.Deterministic(true))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		raw = b
	}
	var items []jsontext.Value
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", field, err)
	}
	for _, it := range items {
		if it.Kind() != '{' {
			return nil, fmt.Errorf("%s must be a JSON array of objects", field)
		}
	}
	return items, nil
}

// jsonString is Python's `v if isinstance(v, str) else orjson.dumps(v)`
// for a raw JSON value.
func jsonString(v jsontext.Value) string {
	if len(v) == 0 {
		return "null"
	}
	if v.Kind() == '"' {
		var s string
		json.Unmarshal(v, &s)
		return s
	}
	c := v.Clone()
	if c.Compact() != nil {
		return string(v)
	}
	return string(c)
}

// textOf is Python's str(v or "") for a raw JSON value.
func textOf(v jsontext.Value) string {
	if len(v) == 0 {
		return ""
	}
	var x any
	if json.Unmarshal(v, &x) != nil || x == nil || isEmptyValue(normalizeJSON(x)) {
		return ""
	}
	return pyStr(normalizeJSON(x))
}

// normalizeJSON maps encoding/json-style numbers onto Row's int64/float64.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
			return int64(x)
		}
	case []any:
		for i := range x {
			x[i] = normalizeJSON(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeJSON(x[k])
		}
	}
	return v
}

// exgenticPart is one part of a recorded message.
type exgenticPart struct {
	Type      string         `json:"type"`
	Content   jsontext.Value `json:"content"`
	Thinking  jsontext.Value `json:"thinking"`
	ID        jsontext.Value `json:"id"`
	Name      jsontext.Value `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
	Result    jsontext.Value `json:"result"`
}

// message is a chat message being built.
type message struct {
	role       string
	content    string
	reasoning  string
	toolCalls  [][]byte
	toolCallID jsontext.Value // set for role "tool"
}

func (m *message) append(dst []byte) []byte {
	dst = append(dst, `{"role":`...)
	dst, _ = jsontext.AppendQuote(dst, m.role)
	if m.role == "tool" {
		dst = append(dst, `,"tool_call_id":`...)
		dst = appendRaw(dst, m.toolCallID)
	}
	dst = append(dst, `,"content":`...)
	dst, _ = jsontext.AppendQuote(dst, m.content)
	if m.reasoning != "" {
		dst = append(dst, `,"reasoning_content":`...)
		dst, _ = jsontext.AppendQuote(dst, m.reasoning)
	}
	if len(m.toolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i, c := range m.toolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, c...)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendRaw(dst []byte, v jsontext.Value) []byte {
	if len(v) == 0 {
		return append(dst, "null"...)
	}
	c := v.Clone()
	if c.Compact() != nil {
		return append(dst, "null"...)
	}
	return append(dst, c...)
}

// normalizeMessage flattens one recorded message's parts into chat
// messages: text parts join into content, thinking into
// reasoning_content, tool calls into tool_calls, and each tool result
// becomes its own "tool" message (a "developer" role becomes "system").
func normalizeMessage(item jsontext.Value) ([]message, error) {
	var m struct {
		Role  string           `json:"role"`
		Parts []jsontext.Value `json:"parts"`
	}
	var raw struct {
		Role  jsontext.Value `json:"role"`
		Parts jsontext.Value `json:"parts"`
	}
	if json.Unmarshal(item, &raw) != nil || raw.Role.Kind() != '"' || raw.Parts.Kind() != '[' || json.Unmarshal(item, &m) != nil {
		return nil, errors.New("each input message requires a string role and parts array")
	}
	role := m.Role
	if role == "developer" {
		role = "system"
	}
	var out []message
	cur := message{role: role}
	dirty := false
	flush := func() {
		out = append(out, cur)
		cur = message{role: role}
		dirty = false
	}
	for _, pv := range m.Parts {
		var p exgenticPart
		if pv.Kind() != '{' || json.Unmarshal(pv, &p) != nil {
			return nil, errors.New("message parts must be objects")
		}
		switch p.Type {
		case "tool_call_response":
			if dirty {
				flush()
			}
			out = append(out, message{role: "tool", toolCallID: p.ID, content: jsonString(p.Result)})
		case "text":
			cur.content += textOf(p.Content)
			dirty = true
		case "thinking":
			cur.reasoning += textOf(p.Thinking)
			dirty = true
		case "tool_call":
			var call []byte
			call = append(call, `{"id":`...)
			call = appendRaw(call, p.ID)
			call = append(call, `,"type":"function","function":{"name":`...)
			call = appendRaw(call, p.Name)
			call = append(call, `,"arguments":`...)
			call, _ = jsontext.AppendQuote(call, jsonString(p.Arguments))
			call = append(call, "}}"...)
			cur.toolCalls = append(cur.toolCalls, call)
			dirty = true
		default:
			return nil, fmt.Errorf("unsupported %q message part %q", role, p.Type)
		}
	}
	if dirty || len(out) == 0 {
		flush()
	}
	return out, nil
}

// exgenticMessages normalizes gen_ai.input.messages; texts are the message
// contents, for the input token count.
func exgenticMessages(v any) ([]message, []string, error) {
	items, err := rawList(v, "gen_ai.input.messages")
	if err != nil {
		return nil, nil, err
	}
	var out []message
	for _, it := range items {
		ms, err := normalizeMessage(it)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, ms...)
	}
	if len(out) == 0 {
		return nil, nil, errors.New("gen_ai.input.messages must contain at least one message")
	}
	var texts []string
	for _, m := range out {
		if m.content != "" {
			texts = append(texts, m.content)
		}
	}
	return out, texts, nil
}

// exgenticSystem normalizes gen_ai.system_instructions: a JSON array of
// parts, or plain text as one system message.
func exgenticSystem(v any) ([]message, error) {
	if v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, errors.New("gen_ai.system_instructions must be a string")
	}
	if s == "" {
		return nil, nil
	}
	parts, err := rawList(s, "gen_ai.system_instructions")
	if err != nil {
		return []message{{role: "system", content: s}}, nil
	}
	var b []byte
	b = append(b, `{"role":"system","parts":[`...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	b = append(b, "]}"...)
	return normalizeMessage(b)
}

// exgenticTools normalizes gen_ai.tool.definitions into chat "tools".
func exgenticTools(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	items, err := rawList(v, "gen_ai.tool.definitions")
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, nil
	}
	out := []byte{'['}
	for i, it := range items {
		var tool struct {
			Type        string         `json:"type"`
			Name        jsontext.Value `json:"name"`
			Description jsontext.Value `json:"description"`
			Parameters  jsontext.Value `json:"parameters"`
		}
		if err := json.Unmarshal(it, &tool); err != nil {
			return nil, fmt.Errorf("gen_ai.tool.definitions: %w", err)
		}
		if tool.Type != "function" {
			return nil, fmt.Errorf("unsupported tool type %q", tool.Type)
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"type":"function","function":{"name":`...)
		out = appendRaw(out, tool.Name)
		out = append(out, `,"description":`...)
		out = appendRaw(out, tool.Description)
		out = append(out, `,"parameters":`...)
		out = appendRaw(out, tool.Parameters)
		out = append(out, "}}"...)
	}
	return append(out, ']'), nil
}

// jsonArray writes messages as a JSON array.
func jsonArray(ms []message) []byte {
	out := []byte{'['}
	for i := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = ms[i].append(out)
	}
	return append(out, ']')
}

// compactJSON marshals a Row value compactly.
func compactJSON(v any) []byte {
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return []byte("null")
	}
	return b
}
