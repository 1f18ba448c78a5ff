package benchmark

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/builtin"
	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

func TestChatView(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		ok        bool
		msgs      []chattemplate.Message
		toolTexts []string
	}{
		{name: "string content", ok: true,
			body: `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"stream":true}`,
			msgs: []chattemplate.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "U"}}},
		{name: "content parts", ok: true,
			body: `{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}]}`,
			msgs: []chattemplate.Message{{Role: "user", Content: "ab"}}},
		{name: "tool calls and tools", ok: true,
			body: `{"messages":[{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{}"}}]}],` +
				`"tools":[{"type":"function","function":{"name":"get","description":"Get it","parameters":{"type":"object", "b":1,"a":2}}},{"name":"top","description":""}]}`,
			msgs: []chattemplate.Message{{Role: "assistant", Extra: []chattemplate.Field{{Key: "tool_calls",
				Value: json.RawMessage(`[{"type":"function","function":{"name":"f","arguments":"{}"}}]`)}}}},
			toolTexts: []string{"get", "Get it", `{"type":"object","b":1,"a":2}`, "top"}},
		{name: "empty tool_calls dropped", ok: true,
			body: `{"messages":[{"role":"user","content":"x","tool_calls":[]}]}`,
			msgs: []chattemplate.Message{{Role: "user", Content: "x"}}},
		{name: "responses input", ok: true,
			body: `{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},{"type":"function_call","name":"f"}]}`,
			msgs: []chattemplate.Message{{Role: "user", Content: "hi"}}},
		{name: "completions prompt", body: `{"prompt":"hello"}`},
		{name: "embeddings input of strings", body: `{"input":["a","b"]}`},
		{name: "empty messages", body: `{"messages":[]}`},
		{name: "not json", body: `{`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, toolTexts, ok := chatView([]byte(tt.body))
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(tt.msgs, msgs); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.toolTexts, toolTexts); diff != "" {
				t.Errorf("tool texts (-want +got):\n%s", diff)
			}
		})
	}
}

// chatMLConfig is a tokenizer_config.json with a ChatML template like
// Qwen's, used with the built-in tokenizer.
const chatMLConfig = `{"chat_template": "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"}`

// TestApplyChatTemplatePlan checks --apply-chat-template in the plan: the
// counted ISL is the rendered prompt's, and it equals the requested length
// because the synthetic prompts were shortened by the template's overhead.
func TestApplyChatTemplatePlan(t *testing.T) {
	cfg := baseConfig(t, "http://127.0.0.1:1")
	cfg.Tokenizer.ApplyChatTemplate = true
	cfg.Input.InputTokens.Mean = 80
	p, err := NewPlan(cfg, builtin.New(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.TokenizerConfig, p.TokenizerSource = []byte(chatMLConfig), "test"
	if err := p.BuildDataset(); err != nil {
		t.Fatal(err)
	}
	if p.ChatTemplate == nil {
		t.Fatalf("no template: %v", p.ChatTemplateErr)
	}
	for _, c := range p.Dataset.Conversations {
		turn := c.Turns[0]
		rendered, err := p.ChatTemplate.Render(chattemplate.Input{
			Messages:            []chattemplate.Message{{Role: "user", Content: strings.Join(turn.Texts, "")}},
			AddGenerationPrompt: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := p.Tokenizer.Count(rendered); turn.InputTokens != want {
			t.Errorf("%s: InputTokens %d, the rendered prompt has %d", c.ID, turn.InputTokens, want)
		}
		if turn.InputTokens != 80 {
			t.Errorf("%s: rendered ISL %d, want the requested 80", c.ID, turn.InputTokens)
		}
		if bare := p.Tokenizer.Count(turn.Texts[0]); bare >= 80 {
			t.Errorf("%s: the bare prompt has %d tokens; it was not shortened", c.ID, bare)
		}
	}
}

// TestApplyChatTemplateWithoutTemplate: the built-in tokenizer has no chat
// template; as in AIPerf the run goes on with bare-text counts, and the
// plan says why.
func TestApplyChatTemplateWithoutTemplate(t *testing.T) {
	for _, config := range []string{"", `{"bos_token": "<s>"}`} {
		cfg := baseConfig(t, "http://127.0.0.1:1")
		cfg.Tokenizer.ApplyChatTemplate = true
		p, err := NewPlan(cfg, builtin.New(), nil)
		if err != nil {
			t.Fatal(err)
		}
		p.TokenizerConfig = []byte(config)
		if err := p.BuildDataset(); err != nil {
			t.Fatal(err)
		}
		if p.ChatTemplate != nil || p.ChatTemplateErr == nil || !strings.Contains(p.ChatTemplateErr.Error(), "no chat template") {
			t.Fatalf("config %q: template %v, error %v", config, p.ChatTemplate, p.ChatTemplateErr)
		}
		p.Dataset.Expand() // the synthetic texts are built as they are asked for
		for _, c := range p.Dataset.Conversations {
			if c.Turns[0].InputTokens != 64 {
				t.Errorf("%s: InputTokens %d, want the bare 64", c.ID, c.Turns[0].InputTokens)
			}
		}
	}
}

// TestApplyChatTemplateRun runs a benchmark with a real model's tokenizer
// and chat template against the mock server: the reported ISL is the
// rendered prompt's and equals the requested length.
func TestApplyChatTemplateRun(t *testing.T) {
	url, _ := mock(t, nil)
	for _, model := range []string{"qwen3", "gemma3"} {
		t.Run(model, func(t *testing.T) {
			cfg := baseConfig(t, url)
			cfg.Tokenizer.Name = testmodels.Dir(t, model)
			cfg.Tokenizer.ApplyChatTemplate = true
			cfg.Input.InputTokens.Mean = 100
			if out, err := run(t, t.Context(), cfg); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			s := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			var isl struct{ Avg, Min, Max float64 }
			if err := json.Unmarshal(s["input_sequence_length"], &isl); err != nil {
				t.Fatal(err)
			}
			if isl.Avg != 100 || isl.Min != 100 || isl.Max != 100 {
				t.Errorf("ISL %+v, want exactly 100", isl)
			}
		})
	}
}

func FuzzChatView(f *testing.F) {
	for _, s := range []string{
		`{"messages":[{"role":"user","content":"U"}],"tools":[{"function":{"name":"f","parameters":{"a":1}}}]}`,
		`{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`,
		`{"messages":[1,"x",{"role":3}]}`, `{"prompt":"p"}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, _, ok := chatView(body)
		if !ok && msgs != nil {
			t.Fatalf("messages %v without a chat view", msgs)
		}
	})
}
