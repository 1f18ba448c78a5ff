package openai

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// fastChatBodies are shapes the scanner must read itself: what the mock,
// vLLM and SGLang send in a plain run.
var fastChatBodies = []string{
	// mock-server --fast, non-streaming and its stream.
	`{"id":"chatcmpl-mock-1","object":"chat.completion","created":1796187831,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":" known period stone clear time role stone warm data early war"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":11,"total_tokens":14}}`,
	`{"id":"chatcmpl-mock-2","object":"chat.completion.chunk","created":1796187831,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-mock-2","object":"chat.completion.chunk","created":1796187831,"model":"m","choices":[{"index":0,"delta":{"content":" known"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-mock-2","object":"chat.completion.chunk","created":1796187831,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	`{"id":"chatcmpl-mock-2","object":"chat.completion.chunk","created":1796187831,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
	// vLLM 0.x non-streaming, with its nulls and empty tool_calls.
	`{"id":"chatcmpl-1f2e","object":"chat.completion","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":null,"content":"Hello! \"Quoted\"\nnew line \u00e9 \ud83d\ude00","tool_calls":[]},"logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":28,"completion_tokens":16,"prompt_tokens_details":null},"prompt_logprobs":null,"kv_transfer_params":null}`,
	// vLLM stream chunk, reasoning model delta, SGLang matched_stop.
	`{"id":"chatcmpl-8f1c2d3e4b5a","object":"chat.completion.chunk","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"think"},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok","reasoning":"r"},"finish_reason":"stop","matched_stop":2}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"completion_tokens_details":{"reasoning_tokens":1,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0},"prompt_tokens_details":{"cached_tokens":4}}}`,
	` {"object":"chat.completion","choices":null,"usage":null,"system_fingerprint":"fp_44709d6fcb","service_tier":"default","x":true,"y":false,"z":-1.5e+3} ` + "\n",
	`{"object":"chat.completion","usage":{}}`,
}

// slowChatBodies must go to the decoder: shapes the scanner does not
// reproduce, and broken ones.
var slowChatBodies = []string{
	`[DONE]`, ``, `{`, `{"object":"chat.completion",}`, `{"object":"chat.completion"} x`, `[1]`, `"s"`,
	`{"error":{"message":"bad","type":"BadRequestError","code":400}}`,
	`{"object":"error","message":"too long","type":"BadRequestError","code":400}`,
	`{"object":"chat.completion","choices":[{"message":{"content":"a"}},{"message":{"content":"b"}}]}`,
	`{"object":"chat.completion","choices":[{"message":{"content":"a"}}],"choices":[]}`,
	`{"object":"chat.completion","choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}}]}`,
	`{"object":"chat.completion","choices":[{"message":{"content":["part"]}}]}`,
	`{"object":"chat.completion","choices":[{"message":{"content":"a\x"}}]}`,
	"{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"bad \xff\"}}]}",
	"{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":\"raw \n newline\"}}]}",
	`{"obj\u0065ct":"chat.completion","choices":[{"message":{"content":"escaped key"}}]}`,
	`{"object":"chat.completion","usage":{"input_tokens":3}}`,
	`{"object":"chat.completion","usage":{"prompt_tokens":"3"}}`,
	`{"object":"chat.completion","choices":[{"message":null}]}`,
	`{"object":"chat.completion","extra":{"nested":1}}`,
	`{"object":"chat.completion","n":01}`, `{"object":"chat.completion","n":1.}`, `{"object":"chat.completion","n":-}`,
	`{"object":"chat.completion","n":nul}`, `{"object":"chat.completion" "n":1}`,
}

func TestScanChatTakesThePlainShapes(t *testing.T) {
	t.Parallel()
	for _, b := range fastChatBodies {
		var r chatResponse
		if !scanChat([]byte(b), &r) {
			t.Errorf("scanChat gave up on a plain shape: %s", b)
		}
		checkScanMatchesDecoder(t, []byte(b))
	}
	for _, b := range slowChatBodies {
		var r chatResponse
		if scanChat([]byte(b), &r) {
			t.Errorf("scanChat read a shape it must leave to the decoder: %q", b)
		}
	}
}

// checkScanMatchesDecoder: where scanChat answers, the decoder reads the
// same bytes without error into the same response and the same Parsed.
func checkScanMatchesDecoder(t *testing.T, data []byte) {
	t.Helper()
	checkScan(t, data, scanChat, parseChat, Chat{}.ParseResponse, decodeChat)
}

// checkCompletionScan is checkScanMatchesDecoder for completions.
func checkCompletionScan(t *testing.T, data []byte) {
	t.Helper()
	checkScan(t, data, scanCompletion, parseCompletion, Completions{}.ParseResponse, decodeCompletion)
}

func checkScan[T any](t *testing.T, data []byte, scan func([]byte, *T) bool, parse func(*T) record.Parsed,
	parseResponse, decode func([]byte) (record.Parsed, error)) {
	t.Helper()
	var fast T
	if !scan(data, &fast) {
		return
	}
	var full T
	done, err := endpoint.DecodeEvent(data, &full)
	if err != nil || done {
		t.Fatalf("the scanner read %q, which the decoder rejects: done %v, %v", data, done, err)
	}
	if !reflect.DeepEqual(fast, full) {
		t.Fatalf("scan(%q) = %+v; the decoder reads %+v", data, fast, full)
	}
	if a, b := parse(&fast), parse(&full); !reflect.DeepEqual(a, b) {
		t.Fatalf("scan(%q) parses to %+v; the decoder's to %+v", data, a, b)
	}
	p, err := parseResponse(data)
	if want, _ := decode(data); err != nil || !reflect.DeepEqual(p, want) {
		t.Fatalf("ParseResponse(%q) = %+v, %v; want %+v", data, p, err, want)
	}
}

// fastCompletionBodies are the completions shapes the scanner reads.
var fastCompletionBodies = []string{
	`{"id":"cmpl-mock-1","object":"text_completion","created":1796187831,"model":"m","choices":[{"index":0,"text":" known period stone","finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`,
	`{"id":"cmpl-8f1c2d3e4b5a","object":"text_completion","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
	`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"a \"b\"\n\u00e9","logprobs":null,"finish_reason":"length","stop_reason":null,"prompt_logprobs":null}],"usage":{"prompt_tokens":5,"total_tokens":21,"completion_tokens":16,"prompt_tokens_details":null}}`,
	`{"object":"completion","choices":[]}`,
}

// slowCompletionBodies go to the decoder.
var slowCompletionBodies = []string{
	`[DONE]`, `{"object":"text_completion","choices":[{"text":"a"},{"text":"b"}]}`,
	`{"object":"text_completion","choices":[{"text":"a","text":"b"}]}`,
	`{"object":"text_completion","choices":[{"text":"a","logprobs":{"tokens":["a"]}}]}`,
	`{"error":{"message":"bad"}}`,
}

func TestScanCompletionTakesThePlainShapes(t *testing.T) {
	t.Parallel()
	for _, b := range fastCompletionBodies {
		var r completionResponse
		if !scanCompletion([]byte(b), &r) {
			t.Errorf("scanCompletion gave up on a plain shape: %s", b)
		}
		checkCompletionScan(t, []byte(b))
		for i := range len(b) { // every one-byte deletion
			checkCompletionScan(t, []byte(b[:i]+b[i+1:]))
		}
	}
	for _, b := range slowCompletionBodies {
		var r completionResponse
		if scanCompletion([]byte(b), &r) {
			t.Errorf("scanCompletion read a shape it must leave to the decoder: %q", b)
		}
	}
}

func FuzzScanCompletionMatchesDecoder(f *testing.F) {
	for _, b := range append(append([]string{}, fastCompletionBodies...), slowCompletionBodies...) {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkCompletionScan(t, data) })
}

// FuzzScanChatMatchesDecoder: for any bytes, the fast path either gives
// up or agrees with the full decoder exactly.
func FuzzScanChatMatchesDecoder(f *testing.F) {
	for _, b := range append(append([]string{}, fastChatBodies...), slowChatBodies...) {
		f.Add([]byte(b))
	}
	f.Add([]byte(`{"Object":"chat.completion","Choices":[{"Message":{"Content":"case"}}]}`))
	f.Add([]byte(`{"object":"chat.completion","choices":[{"message":{"CONTENT":"case","content":"x"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkScanMatchesDecoder(t, data) })
}

// TestScanChatMutations runs the fuzz property in the default test run on
// every one-byte deletion and a few substitutions of the plain shapes.
func TestScanChatMutations(t *testing.T) {
	t.Parallel()
	for _, b := range fastChatBodies {
		for i := range len(b) {
			checkScanMatchesDecoder(t, []byte(b[:i]+b[i+1:]))
			for _, c := range []string{`"`, `\`, `,`, `}`, `]`, `0`, `n`, "\x01", "\xc3"} {
				checkScanMatchesDecoder(t, []byte(b[:i]+c+b[i+1:]))
			}
		}
	}
}

func BenchmarkChatParseResponseNonStreaming(b *testing.B) {
	body := []byte(fastChatBodies[0])
	for _, c := range []struct {
		name  string
		parse func([]byte) (any, error)
	}{
		{"scan", func(d []byte) (any, error) { return Chat{}.ParseResponse(d) }},
		{"decoder", func(d []byte) (any, error) { return decodeChat(d) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.parse(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
