package raw

import (
	"errors"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

func newRaw(t *testing.T, field string) endpoint.Endpoint {
	t.Helper()
	var s endpoint.Settings
	if field != "" {
		s.Extra = []endpoint.ExtraInput{{Key: "response_field", Value: endpoint.AppendString(nil, field)}}
	}
	ep, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// TestPayloadVerbatim: the turn's raw payload is the body byte for byte
// (key order, spacing, numbers), and a turn without one is refused.
func TestPayloadVerbatim(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"z": 1.50, "a" : ["x"], "custom": {"deep": true}}`)
	got, err := newRaw(t, "").AppendPayload(nil, &dataset.Turn{RawPayload: raw}, &endpoint.Options{Model: "ignored"})
	if err != nil || string(got) != string(raw) {
		t.Errorf("payload %s, %v", got, err)
	}
	if _, err := newRaw(t, "").AppendPayload(nil, &dataset.Turn{Texts: []string{"x"}}, &endpoint.Options{}); !errors.Is(err, ErrNoRawPayload) {
		t.Errorf("turn without payload: %v", err)
	}
}

// TestResponseField reads a custom server's shape with a JMESPath
// expression: text at a nested path, streamed deltas, a filter
// projection joined, and embeddings picked by the query (output, no text).
func TestResponseField(t *testing.T) {
	t.Parallel()
	body := []byte(`{"result":{"outputs":[{"kind":"meta","value":"x"},{"kind":"text","value":"Hello world"}]},"took_ms":12}`)
	for _, tt := range []struct {
		field string
		data  [][]byte
		text  string
		out   bool
	}{
		{"result.outputs[?kind=='text'] | [0].value", [][]byte{body}, "Hello world", false},
		{"delta.t", [][]byte{[]byte(`{"delta":{"t":"He"}}`), []byte(`{"delta":{"t":"llo"}}`), []byte(`{"delta":{}}`)}, "Hello", false},
		{"vecs", [][]byte{[]byte(`{"vecs":[[0.1,0.2],[0.3,0.4]]}`)}, "", true},
	} {
		ep := newRaw(t, tt.field)
		var text string
		var out bool
		for _, d := range tt.data {
			p, err := ep.ParseResponse(d)
			if err != nil {
				t.Fatalf("%s: %v", tt.field, err)
			}
			text += p.Text
			out = out || p.Output
		}
		if text != tt.text || out != tt.out {
			t.Errorf("%s: text %q output %v; want %q, %v", tt.field, text, out, tt.text, tt.out)
		}
	}
	if _, err := New(endpoint.Settings{Extra: []endpoint.ExtraInput{{Key: "response_field", Value: []byte(`"a[?"`)}}}); err == nil {
		t.Error("malformed JMESPath accepted")
	}
}

// TestAutoDetect: without response_field, AIPerf's detection reads text,
// OpenAI choices, embeddings and rankings; a non-JSON body is text as is.
func TestAutoDetect(t *testing.T) {
	t.Parallel()
	ep := newRaw(t, "")
	for _, tt := range []struct {
		body, text string
		out        bool
	}{
		{`{"text":"plain"}`, "plain", false},
		{`{"choices":[{"message":{"content":"chat"}}]}`, "chat", false},
		{`{"choices":[{"delta":{"content":"delta"}}]}`, "delta", false},
		{`{"output":["a","b"]}`, "ab", false},
		{`{"data":[{"object":"embedding","embedding":[0.1]}]}`, "", true},
		{`{"results":[{"index":0,"relevance_score":0.9}]}`, "", true},
		{`not json at all`, "not json at all", false},
	} {
		p, err := ep.ParseResponse([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		if p.Text != tt.text || p.Output != tt.out {
			t.Errorf("%s: %+v; want text %q output %v", tt.body, p, tt.text, tt.out)
		}
	}
}
