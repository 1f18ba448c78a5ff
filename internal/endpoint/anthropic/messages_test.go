package anthropic

import (
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestParseDocumentedResponses reads the responses of Anthropic's API
// documentation (streaming, extended thinking, tool use, prompt caching):
// text, reasoning and tool-call text as AIPerf reads them, usage completed
// across message_start and message_delta, and cache tokens re-totalled
// into the prompt count.
func TestParseDocumentedResponses(t *testing.T) {
	t.Parallel()
	ep := New()
	for _, tt := range []struct {
		fixture   string
		chunks    func(t testing.TB, path string) [][]byte
		text      string
		reasoning string
		content   int
		usage     record.Usage
	}{
		{"docs_stream.sse", endpointtest.Events, "Hello!", "", 2,
			record.Usage{PromptTokens: endpointtest.Count(25), CompletionTokens: endpointtest.Count(15)}},
		{"docs_thinking_stream.sse", endpointtest.Events, "27 * 453 = 12,231",
			"Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3", 3,
			record.Usage{PromptTokens: endpointtest.Count(2679 + 1024), CompletionTokens: endpointtest.Count(100),
				CachedPromptTokens: endpointtest.Count(1024), CacheWriteTokens: endpointtest.Count(0)}},
		{"docs_tool_use_stream.sse", endpointtest.Events, `Okay, let's check the weather.{"location": "San Francisco, CA"}`, "", 4,
			record.Usage{PromptTokens: endpointtest.Count(472), CompletionTokens: endpointtest.Count(89)}},
		{"docs_message.json", endpointtest.Body, "Hi! My name is Claude.", "", 1,
			record.Usage{PromptTokens: endpointtest.Count(2095 + 2051), CompletionTokens: endpointtest.Count(503),
				CachedPromptTokens: endpointtest.Count(0), CacheWriteTokens: endpointtest.Count(2051)}},
		{"docs_tool_use.json", endpointtest.Body, `I'll check the current weather in San Francisco for you.get_weather{"location":"San Francisco, CA","unit":"celsius"}`, "", 1,
			record.Usage{PromptTokens: endpointtest.Count(384), CompletionTokens: endpointtest.Count(95)}},
	} {
		r := endpointtest.Parse(t, ep, tt.chunks(t, endpointtest.Fixture(tt.fixture)))
		if r.Text != tt.text || r.Reasoning != tt.reasoning || r.Content != tt.content {
			t.Errorf("%s: text %q reasoning %q content %d; want %q, %q, %d", tt.fixture, r.Text, r.Reasoning, r.Content, tt.text, tt.reasoning, tt.content)
		}
		if r.Usage == nil || *r.Usage != tt.usage {
			t.Errorf("%s: usage %+v; want %+v", tt.fixture, r.Usage, tt.usage)
		}
		if len(r.Errors) > 0 {
			t.Errorf("%s: errors %v", tt.fixture, r.Errors)
		}
	}
	r := endpointtest.Parse(t, ep, endpointtest.Events(t, endpointtest.Fixture("error_stream.sse")))
	if len(r.Errors) != 1 || r.Errors[0].Type != "overloaded_error" || r.Errors[0].Message != "Overloaded" {
		t.Errorf("error event: %+v", r.Errors)
	}
}

// TestStatelessParseKeepsEventUsage: without the stream reader each event
// reports its own usage only (message_delta has no input count), which is
// why the pipeline reads Anthropic streams through NewStream.
func TestStatelessParseKeepsEventUsage(t *testing.T) {
	t.Parallel()
	chunks := endpointtest.Events(t, endpointtest.Fixture("docs_stream.sse"))
	p, err := New().ParseResponse(chunks[len(chunks)-2]) // message_delta
	if err != nil {
		t.Fatal(err)
	}
	if p.Usage == nil || p.Usage.PromptTokens.OK || p.Usage.CompletionTokens != endpointtest.Count(15) {
		t.Errorf("message_delta usage = %+v; want output only", p.Usage)
	}
}

// TestSetHeaders: the API key goes out as x-api-key (never as a bearer
// token) and anthropic-version is set unless the user set one.
func TestSetHeaders(t *testing.T) {
	t.Parallel()
	var hs endpoint.HeaderSetter = Messages{}
	h := http.Header{}
	hs.SetHeaders(h, "sk-ant")
	if h.Get("X-Api-Key") != "sk-ant" || h.Get("Anthropic-Version") != Version || h.Get("Authorization") != "" {
		t.Errorf("headers = %v", h)
	}
	h = http.Header{"Anthropic-Version": {"2024-10-22"}}
	hs.SetHeaders(h, "")
	if h.Get("Anthropic-Version") != "2024-10-22" || h.Get("X-Api-Key") != "" {
		t.Errorf("user headers not kept: %v", h)
	}
}

// TestPayloadShapes covers what the AIPerf fixtures do not: images as
// base64 and url sources, the conversation's system and user-context
// prompts, a history, and the refusal of audio.
func TestPayloadShapes(t *testing.T) {
	t.Parallel()
	turn := &dataset.Turn{Texts: []string{"what is this"}, Images: []string{"data:image/jpeg;base64,/9j/AA", "https://x/y.png"},
		System: "be brief", UserContext: "ctx", MaxTokens: 9}
	o := &endpoint.Options{Model: "claude", Streaming: true, History: []endpoint.Message{
		{Turn: &dataset.Turn{Texts: []string{"hi"}}}, {Role: "assistant", Text: "hello"},
	}}
	got, err := New().AppendPayload(nil, turn, o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"claude","messages":[{"role":"user","content":"ctx"},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},` +
		`{"role":"user","content":[{"type":"text","text":"what is this"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/AA"}},` +
		`{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}],"max_tokens":9,"stream":true,"system":"be brief"}`
	endpointtest.SameBody(t, "images and history", got, []byte(want))
	if endpoint.CountParts(got, New().Metadata().ImagePart) != 2 {
		t.Errorf("image parts not counted in %s", got)
	}
	if _, err := New().AppendPayload(nil, &dataset.Turn{Texts: []string{"x"}, Audios: []string{"wav,AAA"}}, o); err == nil {
		t.Error("audio accepted")
	}
}
