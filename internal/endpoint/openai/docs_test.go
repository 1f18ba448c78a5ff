package openai

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestParseDocumentedResponses reads the examples of OpenAI's API
// reference with the endpoint that reads them: a Responses body and its
// streams (the text once although response.output_text.done repeats it,
// reasoning and function-call argument deltas, usage from
// response.completed, a failed response as the record's error) and a chat
// completion whole and streamed.
func TestParseDocumentedResponses(t *testing.T) {
	t.Parallel()
	c := endpointtest.Count
	for _, tt := range []struct {
		ep        endpoint.Endpoint
		fixture   string
		text      string
		reasoning string
		content   int
		usage     record.Usage // the fields compared
	}{
		{NewResponses(), "responses.json", "In a peaceful grove beneath a silver moon, a unicorn named Lumina discovered a hidden pool that reflected the stars.", "", 1,
			record.Usage{PromptTokens: c(36), CompletionTokens: c(87), TotalTokens: c(123), ReasoningTokens: c(0), CachedPromptTokens: c(0)}},
		// Two deltas and the done event, which counts as a content
		// response (its timing) without its text, as in AIPerf.
		{NewResponses(), "responses_stream.sse", "Hi there!", "", 3,
			record.Usage{PromptTokens: c(37), CompletionTokens: c(11), TotalTokens: c(48), ReasoningTokens: c(0), CachedPromptTokens: c(0)}},
		{NewResponses(), "responses_tool_stream.sse", `{"location":"Paris, France"}`, "The user wants the weather.", 3,
			record.Usage{PromptTokens: c(291), CompletionTokens: c(23), TotalTokens: c(314), ReasoningTokens: c(7), CachedPromptTokens: c(256)}},
		{NewChat(), "chat_completion.json", "The image shows a wooden boardwalk path running through a lush green field or meadow.", "", 1,
			record.Usage{PromptTokens: c(1117), CompletionTokens: c(46), TotalTokens: c(1163), ReasoningTokens: c(0), CachedPromptTokens: c(0)}},
		{NewChat(), "chat_stream.sse", "Hello!", "", 2,
			record.Usage{PromptTokens: c(9), CompletionTokens: c(2), TotalTokens: c(11)}},
	} {
		chunks := endpointtest.Events
		if tt.fixture[len(tt.fixture)-5:] == ".json" {
			chunks = endpointtest.Body
		}
		r := endpointtest.Parse(t, tt.ep, chunks(t, endpointtest.Fixture("docs/"+tt.fixture)))
		if r.Text != tt.text || r.Reasoning != tt.reasoning || r.Content != tt.content || len(r.Errors) > 0 {
			t.Errorf("%s: text %q reasoning %q content %d errors %v; want %q, %q, %d", tt.fixture, r.Text, r.Reasoning, r.Content, r.Errors, tt.text, tt.reasoning, tt.content)
		}
		u := r.Usage
		if u == nil || u.PromptTokens != tt.usage.PromptTokens || u.CompletionTokens != tt.usage.CompletionTokens ||
			u.TotalTokens != tt.usage.TotalTokens || u.ReasoningTokens != tt.usage.ReasoningTokens || u.CachedPromptTokens != tt.usage.CachedPromptTokens {
			t.Errorf("%s: usage %+v; want %+v", tt.fixture, u, tt.usage)
		}
	}
	r := endpointtest.Parse(t, NewResponses(), endpointtest.Events(t, endpointtest.Fixture("docs/responses_failed_stream.sse")))
	if len(r.Errors) != 1 || r.Errors[0].Message != "The model failed to generate a response." || r.Content != 0 {
		t.Errorf("failed response: %+v errors %+v", r, r.Errors)
	}
}
