package rankings

import (
	"errors"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestParseDocumentedResponses reads the answers of NVIDIA NIM's, TEI's
// and Cohere's documentation: each is one content response with no text
// with its own dialect's endpoint, and no output with another's (AIPerf
// reads only the list its API names).
func TestParseDocumentedResponses(t *testing.T) {
	t.Parallel()
	eps := map[string]endpoint.Endpoint{"docs_nim.json": NewNIM(), "docs_tei.json": NewTEI(), "docs_cohere.json": NewCohere()}
	for fx, own := range eps {
		for _, ep := range []endpoint.Endpoint{NewNIM(), NewTEI(), NewCohere()} {
			r := endpointtest.Parse(t, ep, endpointtest.Body(t, endpointtest.Fixture(fx)))
			want := 0
			if ep.Metadata().Type == own.Metadata().Type {
				want = 1
			}
			if ep.Metadata().Type == "hf_tei_rankings" && fx == "docs_cohere.json" {
				want = 1 // TEI's parser also takes a "results" list
			}
			if r.Content != want || r.Text != "" || len(r.Errors) > 0 {
				t.Errorf("%s read by %s: %+v; want %d content responses", fx, ep.Metadata().Type, r, want)
			}
		}
	}
	r := endpointtest.Parse(t, NewNIM(), endpointtest.Body(t, endpointtest.Fixture("docs_nim.json")))
	if r.Usage == nil || *r.Usage != (record.Usage{PromptTokens: endpointtest.Count(172), TotalTokens: endpointtest.Count(172)}) {
		t.Errorf("nim usage %+v", r.Usage)
	}
	r = endpointtest.Parse(t, NewTEI(), endpointtest.Body(t, endpointtest.Fixture("docs_tei_error.json")))
	if len(r.Errors) != 1 || r.Content != 0 {
		t.Errorf("tei error read as %+v", r)
	}
}

// TestPayloads pins each dialect's body for one query and two passages,
// with the turn's model winning and extras last.
func TestPayloads(t *testing.T) {
	t.Parallel()
	turn := &dataset.Turn{Texts: []string{"what is ai", "p1", "p \"2\""}, TextNames: []string{"query", "passages", "passages"}}
	o := &endpoint.Options{Model: "rr", Extra: endpointtest.Extras("truncate", `"END"`)}
	for ep, want := range map[endpoint.Endpoint]string{
		NewNIM():    `{"model":"rr","query":{"text":"what is ai"},"passages":[{"text":"p1"},{"text":"p \"2\""}],"truncate":"END"}`,
		NewTEI():    `{"query":"what is ai","texts":["p1","p \"2\""],"truncate":"END"}`,
		NewCohere(): `{"model":"rr","query":"what is ai","documents":["p1","p \"2\""],"truncate":"END"}`,
	} {
		got, err := ep.AppendPayload(nil, turn, o)
		if err != nil {
			t.Fatal(err)
		}
		endpointtest.SameBody(t, ep.Metadata().Type, got, []byte(want))
	}
	got, _ := NewCohere().AppendPayload(nil, &dataset.Turn{Texts: []string{"q"}, TextNames: []string{"queries"}, Model: "own"}, &endpoint.Options{Model: "rr"})
	endpointtest.SameBody(t, "no passages", got, []byte(`{"model":"own","query":"q","documents":[]}`))
	if _, err := NewNIM().AppendPayload(nil, &dataset.Turn{Texts: []string{"unnamed"}}, o); !errors.Is(err, ErrNoQuery) {
		t.Errorf("turn without a query: %v", err)
	}
}
