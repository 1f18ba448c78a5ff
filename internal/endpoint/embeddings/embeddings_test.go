package embeddings

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestParseDocumentedResponses reads the answers of OpenAI's, NVIDIA
// NIM's and vLLM's documentation with each endpoint that reads them: the
// answer is output (a content response) without text, and its usage is
// kept; vLLM's flat error object is the record's error.
func TestParseDocumentedResponses(t *testing.T) {
	t.Parallel()
	c := endpointtest.Count
	for _, tt := range []struct {
		ep      endpoint.Endpoint
		fixture string
		usage   record.Usage
	}{
		{New(), "docs_openai.json", record.Usage{PromptTokens: c(8), TotalTokens: c(8)}},
		{New(), "docs_openai_base64.json", record.Usage{PromptTokens: c(5), TotalTokens: c(5)}},
		{NewNIM(), "docs_nim.json", record.Usage{PromptTokens: c(14), TotalTokens: c(14)}},
		{NewChatEmbeddings(), "docs_vllm_chat_embeddings.json", record.Usage{PromptTokens: c(771), TotalTokens: c(771), CompletionTokens: c(0)}},
		{NewChatEmbeddings(), "docs_openai.json", record.Usage{PromptTokens: c(8), TotalTokens: c(8)}},
	} {
		r := endpointtest.Parse(t, tt.ep, endpointtest.Body(t, endpointtest.Fixture(tt.fixture)))
		if r.Text != "" || r.Content != 1 || len(r.Errors) > 0 {
			t.Errorf("%s %s: %+v; want one content response without text", tt.ep.Metadata().Type, tt.fixture, r)
		}
		if r.Usage == nil || *r.Usage != tt.usage {
			t.Errorf("%s %s: usage %+v; want %+v", tt.ep.Metadata().Type, tt.fixture, r.Usage, tt.usage)
		}
	}
	for _, ep := range []endpoint.Endpoint{New(), NewNIM(), NewChatEmbeddings()} {
		r := endpointtest.Parse(t, ep, endpointtest.Body(t, endpointtest.Fixture("docs_vllm_error.json")))
		if len(r.Errors) != 1 || r.Errors[0].Code != 400 || r.Errors[0].Type != "BadRequestError" || r.Content != 0 {
			t.Errorf("%s: error body read as %+v (errors %+v)", ep.Metadata().Type, r, r.Errors)
		}
	}
	// An answer with no vectors is no output.
	if r := endpointtest.Parse(t, New(), [][]byte{[]byte(`{"object":"list","data":[],"usage":{"prompt_tokens":3}}`)}); r.Content != 0 {
		t.Errorf("empty data counted as output: %+v", r)
	}
	if _, err := New().ParseResponse([]byte(`{"data":[{"object":"chat.completion"}]}`)); err == nil {
		t.Error("data that is not embeddings accepted")
	}
}

// TestPayloads: a batch of texts is one input list (empty texts dropped);
// NIM embeds images, or text and image pairs; chat embeddings send a chat
// body; extras go last and the turn's model wins.
func TestPayloads(t *testing.T) {
	t.Parallel()
	o := &endpoint.Options{Model: "emb", Extra: endpointtest.Extras("encoding_format", `"float"`)}
	got, err := New().AppendPayload(nil, &dataset.Turn{Texts: []string{"a", "", "b"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	endpointtest.SameBody(t, "embeddings", got, []byte(`{"model":"emb","input":["a","b"],"encoding_format":"float"}`))

	img := "data:image/png;base64,iVBO"
	got, _ = NewNIM().AppendPayload(nil, &dataset.Turn{Texts: []string{"cat"}, Images: []string{img}, Model: "nim"}, &endpoint.Options{Model: "emb"})
	endpointtest.SameBody(t, "nim pair", got, []byte(`{"model":"nim","input":["cat `+img+`"]}`))
	got, _ = NewNIM().AppendPayload(nil, &dataset.Turn{Images: []string{img, img}}, &endpoint.Options{Model: "emb"})
	endpointtest.SameBody(t, "nim images", got, []byte(`{"model":"emb","input":["`+img+`","`+img+`"]}`))
	if _, err := NewNIM().AppendPayload(nil, &dataset.Turn{Texts: []string{"a", "b"}, Images: []string{img}}, o); err == nil {
		t.Error("unpaired texts and images accepted")
	}

	got, _ = NewChatEmbeddings().AppendPayload(nil, &dataset.Turn{Texts: []string{"describe"}, Images: []string{img}}, &endpoint.Options{Model: "vlm"})
	endpointtest.SameBody(t, "chat embeddings", got, []byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"describe"},`+
		`{"type":"image_url","image_url":{"url":"`+img+`"}}]}],"model":"vlm","stream":false}`))
	for _, ep := range []endpoint.Endpoint{New(), NewNIM(), NewChatEmbeddings()} {
		if m := ep.Metadata(); m.ProducesTokens || m.SupportsStreaming || m.Path != "/v1/embeddings" {
			t.Errorf("%s metadata %+v", m.Type, m)
		}
	}
}
