package solido

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/endpoint/endpointtest"
)

// TestParse: the answer's "content" is the output text (whole or per
// streamed event); sources are not measured; an error object is the
// record's error.
func TestParse(t *testing.T) {
	t.Parallel()
	ep := New()
	whole := []byte(`{"content":"Use the SDE sweep tool.","sources":[{"title":"SDE guide","page":3}]}`)
	if r := endpointtest.Parse(t, ep, [][]byte{whole}); r.Text != "Use the SDE sweep tool." || r.Content != 1 {
		t.Errorf("whole answer: %+v", r)
	}
	stream := [][]byte{[]byte(`{"content":"Use "}`), []byte(`{"content":"the tool."}`), []byte(`{"sources":[]}`), []byte("[DONE]")}
	if r := endpointtest.Parse(t, ep, stream); r.Text != "Use the tool." || r.Content != 2 || !r.Done {
		t.Errorf("stream: %+v", r)
	}
	if r := endpointtest.Parse(t, ep, [][]byte{[]byte(`{"error":{"message":"no index","type":"not_found","code":404}}`)}); len(r.Errors) != 1 || r.Errors[0].Code != 404 {
		t.Errorf("error: %+v", r.Errors)
	}
}

// TestPayload: the turn's model wins over the run's, empty texts are
// dropped, and extras (run and turn) may replace the default filters.
func TestPayload(t *testing.T) {
	t.Parallel()
	o := &endpoint.Options{Model: "run-model", Extra: endpointtest.Extras("filters", `{"family":"Other"}`, "top_k", "4")}
	got, err := New().AppendPayload(nil, &dataset.Turn{Texts: []string{"", "q1", "q2"}, Model: "turn-model"}, o)
	if err != nil {
		t.Fatal(err)
	}
	endpointtest.SameBody(t, "solido", got, []byte(`{"query":["q1","q2"],"filters":{"family":"Other"},"inference_model":"turn-model","top_k":4}`))
	got, _ = New().AppendPayload(nil, &dataset.Turn{}, &endpoint.Options{Model: "m"})
	endpointtest.SameBody(t, "empty turn", got, []byte(`{"query":[],"filters":{"family":"Solido","tool":"SDE"},"inference_model":"m"}`))
}
