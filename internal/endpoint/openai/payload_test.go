package openai

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

func extras(kv ...string) []endpoint.ExtraInput {
	var out []endpoint.ExtraInput
	for i := 0; i < len(kv); i += 2 {
		out = append(out, endpoint.ExtraInput{Key: kv[i], Value: []byte(kv[i+1])})
	}
	return out
}

// checkValid asserts the body is one valid JSON object with no duplicate
// names and valid UTF-8 (jsontext's default, strict checks).
func checkValid(t *testing.T, body []byte) {
	t.Helper()
	if !jsontext.Value(body).IsValid() {
		t.Fatalf("body is not strictly valid JSON: %s", body)
	}
}

// TestAppendPayloadMatchesAIPerf compares our bodies with payloads that the
// real AIPerf 0.13 wrote to inputs.json (testdata/aiperf), for the same
// text and options: same members, same order, same values.
func TestAppendPayloadMatchesAIPerf(t *testing.T) {
	t.Parallel()
	chat, completions := NewChat(), NewCompletions()
	tests := []struct {
		fixture string
		ep      endpoint.Endpoint
		opts    endpoint.Options
		osl     int
	}{
		{"chat_stream", chat, endpoint.Options{Model: "mock-model", Streaming: true}, 8},
		{"chat_nonstream", chat, endpoint.Options{Model: "mock-model"}, 8},
		{"completions", completions, endpoint.Options{Model: "mock-model"}, 0},
		{"chat_extras", chat, endpoint.Options{Model: "mock-model", Streaming: true, Extra: extras(
			"model", `"other"`, "temperature", "0.5", "stream_options", `{"continuous_usage_stats":true}`, "max_completion_tokens", "99",
		)}, 8},
		{"completions_stream_extras", completions, endpoint.Options{Model: "mock-model", Streaming: true, Extra: extras(
			"echo", "false", "stream_options", "null",
		)}, 8},
		{"chat_legacy_stream_extra", chat, endpoint.Options{Model: "mock-model", UseLegacyMaxTokens: true, Extra: extras(
			"stream", "true", "ignore_eos", "true",
		)}, 8},
		{"chat_stream_overridden", chat, endpoint.Options{Model: "mock-model", Streaming: true, Extra: extras("stream", "0")}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("testdata", "aiperf", tt.fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := jsontext.AppendFormat(nil, raw) // compact, order kept
			if err != nil {
				t.Fatal(err)
			}
			var in struct {
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
				Prompt string `json:"prompt"`
			}
			if err := json.Unmarshal(raw, &in); err != nil {
				t.Fatal(err)
			}
			text := in.Prompt
			if len(in.Messages) > 0 {
				text = in.Messages[0].Content
			}
			turn := &dataset.Turn{Texts: []string{text}, MaxTokens: tt.osl}
			got, err := tt.ep.AppendPayload(nil, turn, &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("AppendPayload =\n%s\nAIPerf sent\n%s", got, want)
			}
			checkValid(t, got)
		})
	}
}

func TestAppendPayloadGolden(t *testing.T) {
	t.Parallel()
	chat, completions := NewChat(), NewCompletions()
	stream := endpoint.Options{Model: "m", Streaming: true}
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("k%02d", i), fmt.Sprint(i))
	}
	tests := []struct {
		name string
		ep   endpoint.Endpoint
		turn dataset.Turn
		opts endpoint.Options
	}{
		{"chat_multi_text", chat, dataset.Turn{Texts: []string{"first", "", "second"}, MaxTokens: 4}, stream},
		{"chat_no_texts", chat, dataset.Turn{}, stream},
		{"chat_one_empty_text", chat, dataset.Turn{Texts: []string{""}}, stream},
		{"chat_role_and_model_override", chat, dataset.Turn{Role: "system", Model: "turn-model", Texts: []string{"x"}}, stream},
		{"chat_escaping", chat, dataset.Turn{Texts: []string{
			"quote\" backslash\\ nl\n cr\r tab\t ctl\x01\x1f del\x7f <>& sep\u2028\u2029 emoji\U0001F600 bad\xff\xfe end",
		}}, endpoint.Options{Model: "m\"odel"}},
		{"chat_legacy_max_tokens", chat, dataset.Turn{Texts: []string{"x"}, MaxTokens: 10}, endpoint.Options{Model: "m", UseLegacyMaxTokens: true}},
		{"chat_extras_formatting_and_repeats", chat, dataset.Turn{Texts: []string{"x"}, MaxTokens: 3}, endpoint.Options{
			Model: "m", Streaming: true, Extra: extras(
				"temperature", "0.7", "nested", "{ \"a\" : [ 1, 2 ],\n \"b\": {\"c\": null} }",
				"temperature", "0.1", "key \"quoted\"", `"v"`,
			),
		}},
		{"chat_stream_options_kept", chat, dataset.Turn{Texts: []string{"x"}}, endpoint.Options{
			Model: "m", Streaming: true, Extra: extras("stream_options", `{"include_usage": false, "x": 1}`),
		}},
		{"chat_stream_options_empty_object", chat, dataset.Turn{Texts: []string{"x"}}, endpoint.Options{
			Model: "m", Streaming: true, Extra: extras("stream_options", `{ }`),
		}},
		{"chat_stream_options_not_object", chat, dataset.Turn{Texts: []string{"x"}}, endpoint.Options{
			Model: "m", Streaming: true, Extra: extras("stream_options", `"off"`),
		}},
		{"chat_stream_options_without_stream", chat, dataset.Turn{Texts: []string{"x"}}, endpoint.Options{
			Model: "m", Extra: extras("stream_options", `{"include_usage":true}`),
		}},
		{"chat_many_extras", chat, dataset.Turn{Texts: []string{"x"}}, endpoint.Options{Model: "m", Extra: extras(many...)}},
		{"completions_stream", completions, dataset.Turn{Texts: []string{"p"}, MaxTokens: 16}, stream},
		{"completions_multi_prompt", completions, dataset.Turn{Texts: []string{"a", "", "b"}}, endpoint.Options{Model: "m"}},
		{"completions_one_nonempty", completions, dataset.Turn{Texts: []string{"", "only"}}, endpoint.Options{Model: "m"}},
		{"completions_no_prompt", completions, dataset.Turn{}, endpoint.Options{Model: "m"}},
		{"completions_legacy_flag_ignored", completions, dataset.Turn{Texts: []string{"p"}, MaxTokens: 2}, endpoint.Options{Model: "m", UseLegacyMaxTokens: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			prefix := []byte("prefix:")
			got, err := tt.ep.AppendPayload(prefix, &tt.turn, &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, prefix) {
				t.Fatalf("AppendPayload did not append to dst: %q", got)
			}
			got = got[len(prefix):]
			checkValid(t, got)
			path := filepath.Join("testdata", "golden", tt.name+".json")
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if want = bytes.TrimSuffix(want, []byte("\n")); !bytes.Equal(got, want) {
				t.Errorf("body =\n%s\nwant (%s)\n%s", got, path, want)
			}
		})
	}
}

func TestAppendPayloadErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		extra []endpoint.ExtraInput
		want  string
	}{
		{"invalid extra", extras("temperature", "0.7.1"), `extra input "temperature"`},
		{"duplicate names in extra", extras("o", `{"a":1,"a":2}`), `extra input "o"`},
		{"invalid stream", extras("stream", "tru"), "invalid JSON value"},
		{"invalid stream_options", extras("stream_options", `{"a":}`), "extra input stream_options"},
	} {
		for _, ep := range []endpoint.Endpoint{NewChat(), NewCompletions()} {
			_, err := ep.AppendPayload(nil, &dataset.Turn{Texts: []string{"x"}}, &endpoint.Options{Model: "m", Streaming: true, Extra: tt.extra})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s/%s: err = %v; want it to mention %q", ep.Metadata().Type, tt.name, err, tt.want)
			}
		}
	}
}

// FuzzAppendPayload checks that any text and model produce a strictly valid
// body whose content decodes back to the text (invalid UTF-8 bytes each
// becoming U+FFFD), and that the chat parser reads such a text back intact.
func FuzzAppendPayload(f *testing.F) {
	f.Add("hello", "m", "temperature")
	f.Add("q\"\\\n\u2028\xff", "m\x00", "stream")
	f.Add("", "", "")
	f.Fuzz(func(t *testing.T, text, model, key string) {
		valid := string([]rune(text))
		turn := &dataset.Turn{Texts: []string{text}, MaxTokens: len(text)}
		opts := &endpoint.Options{Model: model, Streaming: len(text)%2 == 0, Extra: extras(key, "1")}
		for _, ep := range []endpoint.Endpoint{NewChat(), NewCompletions()} {
			body, err := ep.AppendPayload(nil, turn, opts)
			if err != nil {
				if key == "stream_options" {
					continue // 1 is a valid, non-object stream_options: no error expected
				}
				t.Fatalf("%s: %v", ep.Metadata().Type, err)
			}
			if !jsontext.Value(body).IsValid() {
				t.Fatalf("%s: invalid body %q", ep.Metadata().Type, body)
			}
			var got struct {
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
				Prompt jsontext.Value `json:"prompt"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%s: %v in %s", ep.Metadata().Type, err, body)
			}
			var back string
			switch {
			case len(got.Messages) > 0:
				back = got.Messages[0].Content
			case text == "" && string(got.Prompt) == "[]":
				// completions sends no empty prompt texts
			default:
				if err := json.Unmarshal(got.Prompt, &back); err != nil {
					t.Fatalf("%s: prompt %s: %v", ep.Metadata().Type, got.Prompt, err)
				}
			}
			if back != valid && key != "messages" && key != "prompt" {
				t.Fatalf("%s: text %q came back as %q", ep.Metadata().Type, valid, back)
			}
		}
		chunk := append([]byte(`{"object":"chat.completion.chunk","choices":[{"delta":{"content":`), endpoint.AppendString(nil, text)...)
		chunk = append(chunk, "}}]}"...)
		p, err := NewChat().ParseResponse(chunk)
		if err != nil || p.Text != valid {
			t.Fatalf("ParseResponse(%s) = %q, %v; want %q", chunk, p.Text, err, valid)
		}
	})
}
