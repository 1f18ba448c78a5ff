package openai

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// typicalChunk is a typical vLLM chat stream chunk (217 bytes).
var typicalChunk = []byte(`{"id":"chatcmpl-8f1c2d3e4b5a","object":"chat.completion.chunk","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" hello"},"logprobs":null,"finish_reason":null}]}`)

func BenchmarkChatParseResponse(b *testing.B) {
	e := NewChat()
	b.SetBytes(int64(len(typicalChunk)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := e.ParseResponse(typicalChunk)
		if err != nil || p.Text != " hello" {
			b.Fatalf("%+v, %v", p, err)
		}
	}
}

func BenchmarkCompletionsParseResponse(b *testing.B) {
	chunk := []byte(`{"id":"cmpl-8f1c2d3e4b5a","object":"text_completion","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`)
	e := NewCompletions()
	b.ReportAllocs()
	for b.Loop() {
		if p, err := e.ParseResponse(chunk); err != nil || p.Text != " hello" {
			b.Fatalf("%+v, %v", p, err)
		}
	}
}

func BenchmarkChatAppendPayload(b *testing.B) {
	e := NewChat()
	turn := &dataset.Turn{Texts: []string{strings.Repeat("lorem ipsum dolor ", 110)}, MaxTokens: 128}
	o := &endpoint.Options{Model: "meta-llama/Llama-3.1-8B-Instruct", Streaming: true}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		buf, err = e.AppendPayload(buf[:0], turn, o)
		if err != nil {
			b.Fatal(err)
		}
	}
}
