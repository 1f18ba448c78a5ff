package tgi

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
)

// TestParseDocumentedResponses reads the responses of TGI's documentation:
// a stream's token texts (special ones included, as AIPerf reads them, and
// never the final event's generated_text), a /generate body, the Inference
// API's list of results, and an error event mid-stream.
func TestParseDocumentedResponses(t *testing.T) {
	t.Parallel()
	ep := New()
	for _, tt := range []struct {
		fixture string
		chunks  func(t testing.TB, path string) [][]byte
		text    string
		content int
	}{
		{"docs_generate_stream.sse", endpointtest.Events, " Deep learning is a</s>", 5},
		{"docs_generate.json", endpointtest.Body, "Deep learning is a subset of machine learning.", 1},
		{"docs_inference_api.json", endpointtest.Body, "The answer to the universe is 42.", 1},
	} {
		r := endpointtest.Parse(t, ep, tt.chunks(t, endpointtest.Fixture(tt.fixture)))
		if r.Text != tt.text || r.Content != tt.content || len(r.Errors) > 0 || r.Usage != nil {
			t.Errorf("%s: %+v; want text %q in %d responses", tt.fixture, r, tt.text, tt.content)
		}
	}
	r := endpointtest.Parse(t, ep, endpointtest.Events(t, endpointtest.Fixture("docs_error_stream.sse")))
	if r.Text != " Deep" || len(r.Errors) != 1 || r.Errors[0].Type != "generation" ||
		r.Errors[0].Message != "Request failed during generation: Server error: CUDA out of memory" {
		t.Errorf("error stream: %+v (errors %+v)", r, r.Errors)
	}
	if p, err := ep.ParseResponse([]byte("[DONE]")); err != nil || !p.Done {
		t.Errorf("[DONE] = %+v, %v", p, err)
	}
	if _, err := ep.ParseResponse([]byte("{not json")); err == nil {
		t.Error("malformed body accepted")
	}
}

// TestPayload: run extras are generation parameters, a turn's own extras
// go at the top level, and empty texts are left out of the join.
func TestPayload(t *testing.T) {
	t.Parallel()
	o := &endpoint.Options{Model: "m", Streaming: true, Extra: endpointtest.Extras("temperature", "0.5", "do_sample", "true")}
	o.Extra = append(o.Extra, endpoint.ExtraInput{Key: "details", Value: []byte("true"), Turn: true})
	got, err := New().AppendPayload(nil, &dataset.Turn{Texts: []string{"a", "", "b"}, MaxTokens: 3}, o)
	if err != nil {
		t.Fatal(err)
	}
	endpointtest.SameBody(t, "tgi", got, []byte(`{"inputs":"a b","parameters":{"max_new_tokens":3,"temperature":0.5,"do_sample":true},"details":true}`))
	m := New().Metadata()
	if m.Path != "/generate" || m.StreamingPath != "/generate_stream" {
		t.Errorf("paths %q, %q", m.Path, m.StreamingPath)
	}
}
