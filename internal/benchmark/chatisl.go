package benchmark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/dataset/synthesis"
)

// loadChatTemplate compiles the chat template of a tokenizer_config.json
// for --apply-chat-template. source names the tokenizer in errors.
func loadChatTemplate(configJSON []byte, source string) (*chattemplate.Template, error) {
	if len(configJSON) == 0 {
		return nil, fmt.Errorf("tokenizer %s has no tokenizer_config.json, so no chat template", source)
	}
	cfg, err := chattemplate.ParseConfig(configJSON)
	if err != nil {
		return nil, err
	}
	tmpl, err := cfg.Template(false)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", source, err)
	}
	return tmpl, nil
}

// setUpChatTemplate resolves --apply-chat-template into p.ChatTemplate,
// or into p.ChatTemplateErr when the tokenizer has no usable template. As
// in AIPerf, that is not fatal: ISL is then counted on the bare text and
// prompts are not shortened.
func (p *Plan) setUpChatTemplate() {
	p.ChatTemplate, p.ChatTemplateErr = nil, nil
	if !p.Config.Tokenizer.ApplyChatTemplate {
		return
	}
	p.ChatTemplate, p.ChatTemplateErr = loadChatTemplate(p.TokenizerConfig, p.TokenizerSource)
}

// compensateSyntheticISL sets the synthetic-length compensation AIPerf
// applies: the special tokens the server prepends (always), and with a
// chat template its overhead, so that what the server tokenizes has the
// requested length.
func (p *Plan) compensateSyntheticISL(o *synthesis.SyntheticOptions) {
	o.PromptSpecialTokens = synthesis.PromptSpecialTokens(p.Tokenizer)
	if p.ChatTemplate != nil {
		o.ChatOverhead = synthesis.EstimateChatOverhead(p.ChatTemplate, p.Tokenizer, o.PromptSpecialTokens)
		o.ChatTemplate = p.ChatTemplate
	}
}

// countTemplatedISL recounts each turn's input tokens on its request body
// rendered with the chat template, as AIPerf does with
// --apply-chat-template: the body's chat view (role and text content of
// each message, replayed tool_calls) rendered with the generation prompt,
// plus the text of any tool schemas, which the view leaves out. A body
// without a chat-shaped messages array, or one the template cannot render,
// keeps its bare-text count.
func (p *Plan) countTemplatedISL() {
	if p.ChatTemplate == nil {
		return
	}
	for c := range p.Dataset.Conversations {
		conv := &p.Dataset.Conversations[c]
		for t := range conv.Turns {
			msgs, toolTexts, ok := chatView(p.Payloads[c][t])
			if !ok {
				continue
			}
			text, err := p.ChatTemplate.Render(chattemplate.Input{Messages: msgs, AddGenerationPrompt: true})
			if err != nil {
				continue
			}
			n := p.Tokenizer.Count(text)
			if len(toolTexts) > 0 {
				n += p.Tokenizer.Count(strings.Join(toolTexts, " "))
			}
			conv.Turns[t].InputTokens = n
		}
	}
}

// chatView extracts from a request body what AIPerf's chat-template ISL
// path renders: for each item of "messages" (or a Responses "input") that
// has a string role, the role and its text content (a string, or the text
// parts concatenated; media parts are dropped), with a non-empty
// tool_calls list passed through. toolTexts are the top-level tool
// schemas' names, descriptions and compact parameters. ok is false when
// the body has no chat-shaped array.
func chatView(body []byte) (msgs []chattemplate.Message, toolTexts []string, ok bool) {
	var payload struct {
		Messages json.RawMessage   `json:"messages"`
		Input    json.RawMessage   `json:"input"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &payload) != nil {
		return nil, nil, false
	}
	for _, field := range []json.RawMessage{payload.Messages, payload.Input} {
		var items []json.RawMessage
		if json.Unmarshal(field, &items) != nil || len(items) == 0 {
			continue
		}
		found, view := chatItems(items)
		if found {
			ok = true
			msgs = append(msgs, view...)
		}
	}
	if !ok {
		return nil, nil, false
	}
	for _, tool := range payload.Tools {
		toolTexts = append(toolTexts, toolSchemaTexts(tool)...)
	}
	return msgs, toolTexts, true
}

// chatItem is the part of a chat or Responses item the view reads.
type chatItem struct {
	Role      json.RawMessage `json:"role"`
	Type      json.RawMessage `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"`
}

// chatItems converts one items array. found is false when no item is an
// object with a role or a type (e.g. an embeddings input of strings).
func chatItems(items []json.RawMessage) (found bool, msgs []chattemplate.Message) {
	parsed := make([]*chatItem, len(items))
	for i, raw := range items {
		var it chatItem
		if json.Unmarshal(raw, &it) == nil && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			parsed[i] = &it
			if it.Role != nil || it.Type != nil {
				found = true
			}
		}
	}
	if !found {
		return false, nil
	}
	for _, it := range parsed {
		if it == nil {
			continue
		}
		var role string
		if json.Unmarshal(it.Role, &role) != nil {
			continue
		}
		m := chattemplate.Message{Role: role, Content: contentText(it.Content)}
		var calls []json.RawMessage
		if json.Unmarshal(it.ToolCalls, &calls) == nil && len(calls) > 0 {
			m.Extra = append(m.Extra, chattemplate.Field{Key: "tool_calls", Value: it.ToolCalls})
		}
		msgs = append(msgs, m)
	}
	return true, msgs
}

// contentText is a message's text: a string content, or its text parts
// concatenated.
func contentText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, part := range parts {
		if (part.Type == "text" || part.Type == "input_text") && part.Text != nil {
			b.WriteString(*part.Text)
		}
	}
	return b.String()
}

// toolSchemaTexts collects, from one tool schema, the strings a server
// tokenizes into the prompt: name and description, and the parameters as
// compact JSON, from the nested "function" object and from the tool itself.
func toolSchemaTexts(tool json.RawMessage) []string {
	type source struct {
		Name        json.RawMessage `json:"name"`
		Description json.RawMessage `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	var t struct {
		source
		Function json.RawMessage `json:"function"`
	}
	if json.Unmarshal(tool, &t) != nil {
		return nil
	}
	var fn source
	_ = json.Unmarshal(t.Function, &fn) // not an object: nothing from it
	var out []string
	for _, s := range []source{fn, t.source} {
		for _, f := range []json.RawMessage{s.Name, s.Description} {
			var str string
			if json.Unmarshal(f, &str) == nil && str != "" {
				out = append(out, str)
			}
		}
		if bytes.HasPrefix(bytes.TrimSpace(s.Parameters), []byte("{")) {
			var b bytes.Buffer
			if json.Compact(&b, s.Parameters) == nil {
				out = append(out, b.String())
			}
		}
	}
	return out
}
