package openai

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/record"
)

func usageOf(prompt, completion, total int64) *record.Usage {
	return &record.Usage{
		PromptTokens:     record.Some(prompt),
		CompletionTokens: record.Some(completion),
		TotalTokens:      record.Some(total),
	}
}

type parseCase struct {
	name string
	data string
	want record.Parsed
}

func runParseCases(t *testing.T, parse func([]byte) (record.Parsed, error), tests []parseCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parse([]byte(tt.data))
			if err != nil {
				t.Fatalf("ParseResponse(%s) error: %v", tt.data, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseResponse(%s) (-want +got):\n%s", tt.data, diff)
			}
		})
	}
}

func TestChatParseResponse(t *testing.T) {
	t.Parallel()
	runParseCases(t, NewChat().ParseResponse, []parseCase{
		// vLLM streaming, in order: role-only first chunk, content, finish,
		// usage-only trailer (stream_options.include_usage), terminator.
		{"vllm role only", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1749678185,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
			record.Parsed{}},
		{"vllm content", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1749678185,"model":"m","choices":[{"index":0,"delta":{"content":" Hello"},"logprobs":null,"finish_reason":null}]}`,
			record.Parsed{Text: " Hello"}},
		{"vllm finish", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1749678185,"model":"m","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`,
			record.Parsed{Finished: true}},
		{"vllm usage only", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1749678185,"model":"m","choices":[],"usage":{"prompt_tokens":550,"total_tokens":558,"completion_tokens":8,"prompt_tokens_details":null}}`,
			record.Parsed{Usage: usageOf(550, 8, 558)}},
		{"done", `[DONE]`, record.Parsed{Done: true}},
		{"done padded", " [DONE]\n", record.Parsed{Done: true}},
		// OpenAI streaming with include_usage sends "usage":null on content chunks.
		{"openai usage null", `{"id":"chatcmpl-A","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}],"usage":null}`,
			record.Parsed{Text: "Hi"}},
		{"openai usage with details", `{"id":"chatcmpl-A","object":"chat.completion.chunk","created":1,"model":"o3-mini","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":100,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":16,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":64,"audio_tokens":0}}}`,
			record.Parsed{Usage: &record.Usage{
				PromptTokens: record.Some(20), CompletionTokens: record.Some(100), TotalTokens: record.Some(120),
				ReasoningTokens: record.Some(64), CachedPromptTokens: record.Some(16),
			}}},
		{"openai predicted outputs", `{"object":"chat.completion","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30,"completion_tokens_details":{"accepted_prediction_tokens":7,"rejected_prediction_tokens":3}}}`,
			record.Parsed{Usage: &record.Usage{
				PromptTokens: record.Some(20), CompletionTokens: record.Some(10), TotalTokens: record.Some(30),
				AcceptedPredictionTokens: record.Some(7), RejectedPredictionTokens: record.Some(3),
			}}},
		{"predicted outputs in output_tokens_details", `{"object":"response","choices":[],"usage":{"prompt_tokens":1,"output_tokens_details":{"accepted_prediction_tokens":0}}}`,
			record.Parsed{Usage: &record.Usage{PromptTokens: record.Some(1), AcceptedPredictionTokens: record.Some(0)}}},
		{"usage partial and null counts", `{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":null}}`,
			record.Parsed{Usage: &record.Usage{PromptTokens: record.Some(5)}}},
		{"usage float counts", `{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5.0,"completion_tokens":2e1,"total_tokens":"25"}}`,
			record.Parsed{Usage: &record.Usage{PromptTokens: record.Some(5), CompletionTokens: record.Some(20)}}},
		{"usage empty object is no usage", `{"object":"chat.completion.chunk","choices":[],"usage":{}}`, record.Parsed{}},
		{"usage unknown fields only", `{"object":"chat.completion.chunk","choices":[],"usage":{"foo":1}}`,
			record.Parsed{Usage: &record.Usage{}}},
		// SGLang: usage on the final content chunk.
		{"sglang content with usage", `{"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":null,"content":"end","reasoning_content":null,"tool_calls":null},"logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":{"prompt_tokens":10,"total_tokens":13,"completion_tokens":3,"prompt_tokens_details":null,"reasoning_tokens":0}}`,
			record.Parsed{Text: "end", Usage: usageOf(10, 3, 13), Finished: true}},
		// Reasoning variants.
		{"reasoning_content", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"Let me think","content":null}}]}`,
			record.Parsed{Reasoning: "Let me think"}},
		{"reasoning field", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}`,
			record.Parsed{Reasoning: "hmm"}},
		{"reasoning_content wins over reasoning", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning":"b"}}]}`,
			record.Parsed{Reasoning: "a"}},
		{"empty reasoning_content falls back to reasoning", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"b"}}]}`,
			record.Parsed{Reasoning: "b"}},
		{"reasoning and content", `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"42","reasoning_content":"6*7"}}]}`,
			record.Parsed{Text: "42", Reasoning: "6*7"}},
		{"reasoning beats tool calls", `{"object":"chat.completion.chunk","choices":[{"delta":{"reasoning":"r","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}}]}`,
			record.Parsed{Reasoning: "r"}},
		// Tool calls, streamed as OpenAI and vLLM do.
		{"tool call start", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
			record.Parsed{Text: "get_weather"}},
		{"tool call arguments", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Par"}}]}}]}`,
			record.Parsed{Text: `{"city": "Par`}},
		{"tool calls and content", `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Checking. ","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			record.Parsed{Text: `Checking. f{"x":1}g{}`, Finished: true}},
		{"empty tool calls", `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"x","tool_calls":[]}}]}`,
			record.Parsed{Text: "x"}},
		// Non-streaming.
		{"chat.completion", `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there","refusal":null},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`,
			record.Parsed{Text: "Hello there", Usage: usageOf(9, 2, 11), Finished: true}},
		{"message read only for chat.completion", `{"object":"chat.completion.chunk","choices":[{"message":{"content":"no"}}]}`, record.Parsed{}},
		{"delta read only for chunks", `{"object":"chat.completion","choices":[{"delta":{"content":"no"}}]}`, record.Parsed{}},
		{"unknown object keeps usage", `{"object":"text_completion","choices":[{"text":"no","delta":{"content":"no"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			record.Parsed{Usage: usageOf(1, 1, 2)}},
		{"missing object", `{"choices":[{"delta":{"content":"no"}}]}`, record.Parsed{}},
		{"only first choice", `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}},7]}`,
			record.Parsed{Text: "a"}},
		{"null choices", `{"object":"chat.completion.chunk","choices":null}`, record.Parsed{}},
		{"content array ignored", `{"object":"chat.completion","choices":[{"message":{"content":[{"type":"text","text":"x"}]}}]}`, record.Parsed{}},
		{"escapes and unicode", `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"a\"b\\c\n\u00e9\ud83d\ude00 é"}}]}`,
			record.Parsed{Text: "a\"b\\c\né😀 é"}},
		{"duplicate names last wins", `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"a","content":"b"}}]}`,
			record.Parsed{Text: "b"}},
		// Errors in a 200 response.
		{"openai error object", `{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}`,
			record.Parsed{Error: &record.ErrorDetails{Type: "server_error", Message: "The server had an error"}}},
		{"error with numeric code", `{"error":{"message":"overloaded","type":"OverloadedError","code":503}}`,
			record.Parsed{Error: &record.ErrorDetails{Code: 503, Type: "OverloadedError", Message: "overloaded"}}},
		{"error with string code", `{"error":{"message":"too long","type":"invalid_request_error","code":"context_length_exceeded"}}`,
			record.Parsed{Error: &record.ErrorDetails{Type: "invalid_request_error", Message: "too long"}}},
		{"error numeric string code, no type", `{"error":{"message":"x","code":"429"}}`,
			record.Parsed{Error: &record.ErrorDetails{Code: 429, Type: record.TypeServerReported, Message: "x"}}},
		{"error string", `{"error":"boom"}`,
			record.Parsed{Error: &record.ErrorDetails{Type: record.TypeServerReported, Message: "boom"}}},
		{"error null", `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"ok"}}],"error":null}`,
			record.Parsed{Text: "ok"}},
		{"vllm flat error", `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`,
			record.Parsed{Error: &record.ErrorDetails{Code: 400, Type: "BadRequestError", Message: "This model's maximum context length is 4096 tokens."}}},
	})
}

func TestCompletionsParseResponse(t *testing.T) {
	t.Parallel()
	runParseCases(t, NewCompletions().ParseResponse, []parseCase{
		{"vllm stream chunk", `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
			record.Parsed{Text: " the"}},
		{"vllm usage only", `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":30,"total_tokens":46,"completion_tokens":16}}`,
			record.Parsed{Usage: usageOf(30, 16, 46)}},
		{"non-streaming", `{"id":"x","object":"text_completion","created":1,"model":"mock-model","choices":[{"index":0,"text":" the of and","finish_reason":"length"}],"usage":{"prompt_tokens":100,"completion_tokens":3,"total_tokens":103}}`,
			record.Parsed{Text: " the of and", Usage: usageOf(100, 3, 103), Finished: true}},
		{"object completion", `{"object":"completion","choices":[{"text":"x"}]}`, record.Parsed{Text: "x"}},
		{"chat object ignored", `{"object":"chat.completion.chunk","choices":[{"text":"x","delta":{"content":"y"}}]}`, record.Parsed{}},
		{"null text", `{"object":"text_completion","choices":[{"text":null}]}`, record.Parsed{}},
		{"done", "[DONE]", record.Parsed{Done: true}},
		{"error", `{"error":{"message":"bad","type":"invalid_request_error","code":400}}`,
			record.Parsed{Error: &record.ErrorDetails{Code: 400, Type: "invalid_request_error", Message: "bad"}}},
		{"sglang flat error", `{"object":"error","message":"bad","type":"BadRequest","param":null,"code":400}`,
			record.Parsed{Error: &record.ErrorDetails{Code: 400, Type: "BadRequest", Message: "bad"}}},
	})
}

func TestParseResponseRejects(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		``, `   `, `{`, `{"object":`, `not json`, `[1,2]`, `"text"`, `42`, `null`, `{"a":1} trailing`,
		`{"object":"chat.completion.chunk","choices":[7]}`, `data: {"a":1}`,
	} {
		for _, ep := range []interface {
			ParseResponse([]byte) (record.Parsed, error)
		}{NewChat(), NewCompletions()} {
			if p, err := ep.ParseResponse([]byte(data)); err == nil {
				t.Errorf("%T.ParseResponse(%q) = %+v, nil; want an error", ep, data, p)
			}
		}
	}
}

func fuzzParse(f *testing.F, parse func([]byte) (record.Parsed, error), seeds []string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse(data)
		if err != nil {
			return
		}
		trimmed := bytes.TrimSpace(data)
		if p.Done {
			if string(trimmed) != "[DONE]" {
				t.Fatalf("Done for %q", data)
			}
			return
		}
		// Whatever was accepted is a JSON object (with the tolerances the
		// parser allows).
		v := jsontext.Value(trimmed)
		if !v.IsValid(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true)) || v.Kind() != '{' {
			t.Fatalf("accepted %q, which is not a JSON object", data)
		}
		if p.Error != nil && !strings.Contains(string(data), "error") && !bytes.ContainsRune(data, '\\') {
			t.Fatalf("error %+v from %q, which mentions none", p.Error, data)
		}
	})
}

var chatSeeds = []string{
	`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" Hello"}}]}`,
	`{"object":"chat.completion","choices":[{"message":{"content":"a","reasoning_content":"b","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}}],"usage":{"prompt_tokens":1,"completion_tokens_details":{"reasoning_tokens":2}}}`,
	`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1.5e3,"total_tokens":null}}`,
	`{"error":{"message":"m","type":"t","code":"500"}}`,
	`{"object":"error","message":"m","code":400}`,
	`[DONE]`,
	`{"choices":[{"delta":{"tool_calls":[{"function":null},{}]}}],"object":"chat.completion.chunk"}`,
}

func FuzzChatParseResponse(f *testing.F) { fuzzParse(f, NewChat().ParseResponse, chatSeeds) }

func FuzzCompletionsParseResponse(f *testing.F) {
	fuzzParse(f, NewCompletions().ParseResponse, []string{
		`{"object":"text_completion","choices":[{"text":" the"}],"usage":null}`,
		`{"object":"completion","choices":[{"text":"x"},{"text":"y"}],"usage":{"prompt_tokens":3}}`,
		`{"error":"boom"}`,
		` [DONE] `,
	})
}
