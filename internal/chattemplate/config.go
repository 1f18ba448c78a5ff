// Package chattemplate renders a model's chat template the way HuggingFace
// transformers' apply_chat_template does, so that --apply-chat-template
// counts the prompt the server actually tokenizes.
//
// A model's tokenizer_config.json carries its Jinja chat_template and the
// special tokens the template refers to (bos_token, eos_token, ...).
// ParseConfig reads them; Config.Template picks and compiles the template;
// Template.Render renders messages with HF's variables: messages, tools,
// documents, add_generation_prompt, the special tokens, raise_exception and
// strftime_now. Rendering uses github.com/ardanlabs/jinja, which always has
// trim_blocks and lstrip_blocks on, as HF sets them. Every call into the
// engine is guarded by recover, because some of its filters panic on inputs
// they do not expect; a panic becomes an error.
//
// The package is isolated: it imports no other internal package.
package chattemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// ErrNoTemplate is returned when a tokenizer_config.json has no chat
// template (base models such as Llama-2 or gpt-oss's tokenizer package).
var ErrNoTemplate = errors.New("the tokenizer has no chat template (tokenizer_config.json has no chat_template)")

// specialTokenNames are the named special tokens HF passes to every chat
// template (transformers' SPECIAL_TOKENS_ATTRIBUTES), in its order.
func specialTokenNames() []string {
	return []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}
}

// Config is the chat-template part of a tokenizer_config.json.
//
// Invariant: every Templates value is non-empty; Special holds only the
// special tokens the file sets to a non-null string.
type Config struct {
	// Templates maps template names to their Jinja source. A chat_template
	// given as a single string is stored under "default".
	Templates map[string]string
	// Special maps special-token variable names (bos_token, eos_token, ...)
	// to their text.
	Special map[string]string
}

// ParseConfig reads the chat template and special tokens of a
// tokenizer_config.json. chat_template may be a string or a list of
// {"name", "template"} objects; special tokens may be strings or
// AddedToken objects ({"content": ...}). A file without a chat_template
// parses fine (HasTemplate reports false); one whose fields have the wrong
// shape is an error naming every bad field.
func ParseConfig(data []byte) (*Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("tokenizer_config.json: %w", err)
	}
	c := &Config{Templates: map[string]string{}, Special: map[string]string{}}
	var errs []error
	if t, ok := raw["chat_template"]; ok {
		if err := c.parseTemplates(t); err != nil {
			errs = append(errs, fmt.Errorf("chat_template: %w", err))
		}
	}
	for _, name := range specialTokenNames() {
		v, ok := raw[name]
		if !ok {
			continue
		}
		text, set, err := parseSpecialToken(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		} else if set {
			c.Special[name] = text
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("tokenizer_config.json: %w", errors.Join(errs...))
	}
	return c, nil
}

// parseTemplates fills c.Templates from chat_template's JSON value.
func (c *Config) parseTemplates(v json.RawMessage) error {
	var s *string
	if err := json.Unmarshal(v, &s); err == nil {
		if s != nil && *s != "" {
			c.Templates["default"] = *s
		}
		return nil
	}
	var list []struct {
		Name     *string `json:"name"`
		Template *string `json:"template"`
	}
	if err := json.Unmarshal(v, &list); err != nil {
		return errors.New("want a string or a list of {\"name\", \"template\"} objects")
	}
	var errs []error
	for i, t := range list {
		if t.Name == nil || t.Template == nil {
			errs = append(errs, fmt.Errorf("entry %d lacks a name or a template", i))
			continue
		}
		if *t.Template != "" {
			c.Templates[*t.Name] = *t.Template
		}
	}
	return errors.Join(errs...)
}

// parseSpecialToken reads a special token given as null, a string or an
// AddedToken object; set is false for null.
func parseSpecialToken(v json.RawMessage) (text string, set bool, err error) {
	var s *string
	if err := json.Unmarshal(v, &s); err == nil {
		if s == nil {
			return "", false, nil
		}
		return *s, true, nil
	}
	var added struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(v, &added); err != nil || added.Content == nil {
		return "", false, errors.New("want a string, null or an object with a \"content\" string")
	}
	return *added.Content, true, nil
}

// HasTemplate reports whether the configuration has any chat template.
func (c *Config) HasTemplate() bool { return len(c.Templates) > 0 }

// Source returns the template source HF's get_chat_template picks: the
// only template, or among named templates "tool_use" when tools are given
// and it exists, else "default". It is ErrNoTemplate when there is none,
// and an error listing the names when several exist and none is "default".
func (c *Config) Source(withTools bool) (string, error) {
	if !c.HasTemplate() {
		return "", ErrNoTemplate
	}
	if withTools {
		if s, ok := c.Templates["tool_use"]; ok {
			return s, nil
		}
	}
	if s, ok := c.Templates["default"]; ok {
		return s, nil
	}
	names := make([]string, 0, len(c.Templates))
	for n := range c.Templates {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", fmt.Errorf("the tokenizer has several chat templates and none is named \"default\": %q", names)
}

// Template picks the template (see Source) and compiles it with the
// configuration's special tokens.
func (c *Config) Template(withTools bool) (*Template, error) {
	src, err := c.Source(withTools)
	if err != nil {
		return nil, err
	}
	return Compile(src, c.Special)
}
