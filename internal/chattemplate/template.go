package chattemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ardanlabs/jinja"
)

// Template is a compiled chat template with the special tokens it renders
// with. It is immutable and safe for concurrent use.
type Template struct {
	tmpl    *jinja.Template
	special map[string]jinja.Value
}

// Message is one chat message as HF passes it to a template.
type Message struct {
	// Role is "system", "user", "assistant", "tool", ...
	Role string
	// Content is the message text. AIPerf's chat-template view always has a
	// string content: the text parts of a message, concatenated.
	Content string
	// Extra holds further keys of the message (tool_calls, tool_call_id,
	// name, reasoning_content, ...) in order, after role and content.
	Extra []Field
}

// Field is one key of a JSON object with its raw JSON value.
type Field struct {
	Key   string
	Value json.RawMessage // valid JSON
}

// Input is what one rendering sees, as apply_chat_template's arguments.
type Input struct {
	// Messages is the conversation; HF refuses an empty one and so does
	// Render.
	Messages []Message
	// Tools is a JSON array of tool schemas, or nil for none (the template
	// then sees tools = none).
	Tools json.RawMessage
	// AddGenerationPrompt appends the assistant header the template emits
	// for a reply (HF's add_generation_prompt).
	AddGenerationPrompt bool
	// Vars are further template variables (e.g. enable_thinking), as
	// apply_chat_template's extra keyword arguments; they override the
	// special tokens.
	Vars []Field
	// Now is the clock strftime_now reads; nil means time.Now. Tests pin it.
	Now func() time.Time
}

// Compile compiles a chat template's Jinja source. special maps the
// special-token variables (bos_token, ...) to their text.
func Compile(src string, special map[string]string) (t *Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("compiling the chat template: the Jinja engine panicked: %v", r)
		}
	}()
	tmpl, err := jinja.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("compiling the chat template: %w", err)
	}
	t = &Template{tmpl: tmpl, special: make(map[string]jinja.Value, len(special))}
	for k, v := range special {
		t.special[k] = jinja.NewString(v)
	}
	return t, nil
}

// Render renders in with HF apply_chat_template semantics. A template's
// raise_exception, an undefined operation or an engine panic is an error,
// never a partial rendering.
func (t *Template) Render(in Input) (out string, err error) {
	if len(in.Messages) == 0 {
		return "", errors.New("rendering the chat template: the conversation is empty")
	}
	data, err := in.values(t.special)
	if err != nil {
		return "", fmt.Errorf("rendering the chat template: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("rendering the chat template: the Jinja engine panicked: %v", r)
		}
	}()
	out, err = t.tmpl.RenderValues(data)
	if err != nil {
		return "", fmt.Errorf("rendering the chat template: %w", err)
	}
	return out, nil
}

// values builds the template's variables: the special tokens, then
// messages, tools, documents, add_generation_prompt, strftime_now and Vars.
func (in *Input) values(special map[string]jinja.Value) (map[string]jinja.Value, error) {
	data := make(map[string]jinja.Value, len(special)+6+len(in.Vars))
	for k, v := range special {
		data[k] = v
	}
	var errs []error
	msgs := make([]jinja.Value, len(in.Messages))
	for i, m := range in.Messages {
		v, err := m.value()
		if err != nil {
			errs = append(errs, fmt.Errorf("message %d: %w", i, err))
		}
		msgs[i] = v
	}
	data["messages"] = jinja.NewList(msgs)
	data["tools"] = jinja.None()
	if in.Tools != nil {
		v, err := jsonValue(in.Tools)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("tools: %w", err))
		case !v.IsList() && !v.IsNone():
			errs = append(errs, errors.New("tools: want a JSON array"))
		default:
			data["tools"] = v
		}
	}
	data["documents"] = jinja.None()
	data["add_generation_prompt"] = jinja.NewBool(in.AddGenerationPrompt)
	now := in.Now
	if now == nil {
		now = time.Now
	}
	data["strftime_now"] = jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) != 1 || !args[0].IsString() {
			return jinja.Undefined(), errors.New("strftime_now: want one format string")
		}
		return jinja.NewString(strftime(now(), args[0].AsString())), nil
	})
	for _, f := range in.Vars {
		v, err := jsonValue(f.Value)
		if err != nil {
			errs = append(errs, fmt.Errorf("variable %s: %w", f.Key, err))
			continue
		}
		data[f.Key] = v
	}
	return data, errors.Join(errs...)
}

// value is the message as the ordered dictionary a template indexes.
func (m *Message) value() (jinja.Value, error) {
	d := jinja.NewDict()
	dict := d.AsDict()
	dict.Set("role", jinja.NewString(m.Role))
	dict.Set("content", jinja.NewString(m.Content))
	var errs []error
	for _, f := range m.Extra {
		v, err := jsonValue(f.Value)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Key, err))
			continue
		}
		if v.IsNone() { // HF drops keys whose value is None
			continue
		}
		dict.Set(f.Key, v)
	}
	return d, errors.Join(errs...)
}
