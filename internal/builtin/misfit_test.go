package builtin

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestMisfitNamesTheEndpointTypeABodyFits: a response read with the wrong
// --endpoint-type is named by the type whose own parser reads it, with
// what the body looks like; a body no other type reads gets no hint.
func TestMisfitNamesTheEndpointTypeABodyFits(t *testing.T) {
	const (
		chat        = `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hello there"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`
		completions = `{"id":"x","object":"text_completion","model":"m","choices":[{"index":0,"text":"hello there","finish_reason":"stop"}]}`
		embeddings  = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],"model":"m"}`
		nimRank     = `{"rankings":[{"index":0,"logit":0.5}]}`
		cohereRank  = `{"results":[{"index":0,"relevance_score":0.5}]}`
		teiRank     = `[{"index":0,"score":0.5}]`
		anthropic   = `{"id":"msg","type":"message","role":"assistant","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn"}`
		responses   = `{"id":"r","object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}]}`
		chunk       = `{"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"he"}}]}`
	)
	tests := []struct {
		name   string
		asked  string
		chunks []string
		want   string // the suggested type; "" for no hint
		shape  string // part of the shape description
	}{
		{"chat read as completions", "completions", []string{chat}, "chat", `"object": "chat.completion" and members choices, id, model, object, usage`},
		{"completions read as chat", "chat", []string{completions}, "completions", `"object": "text_completion"`},
		{"streamed chat read as completions", "completions", []string{chunk, chunk, "[DONE]"}, "chat", `"object": "chat.completion.chunk"`},
		{"embeddings read as chat", "chat", []string{embeddings}, "embeddings", `"object": "list" and members data, model, object`},
		{"nim rankings read as completions", "completions", []string{nimRank}, "nim_rankings", "members rankings"},
		{"cohere rankings read as chat", "chat", []string{cohereRank}, "cohere_rankings", "members results"},
		{"tei rankings read as chat", "chat", []string{teiRank}, "hf_tei_rankings", "a JSON array of objects"},
		{"anthropic read as chat", "chat", []string{anthropic}, "messages", `"type": "message"`},
		{"responses read as chat", "chat", []string{responses}, "responses", `"object": "response"`},
		{"not JSON", "chat", []string{"<html>busy</html>"}, "", ""},
		{"an empty object", "chat", []string{"{}"}, "", ""},
		{"a body only its own type reads", "chat", []string{chat}, "", ""},
	}
	cands := New().ShapeCandidates()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var chunks []record.Chunk
			for _, c := range tc.chunks {
				chunks = append(chunks, record.Chunk{Data: []byte(c)})
			}
			got := endpoint.NewMisfit(tc.asked, cands).Hint(chunks)
			if tc.want == "" {
				if got != "" {
					t.Fatalf("hint %q, want none", got)
				}
				return
			}
			if !strings.HasSuffix(strings.SplitN(got, " (", 2)[0], "did you mean --endpoint-type "+tc.want+"?") ||
				!strings.Contains(got, "the "+tc.asked+" endpoint does not") || !strings.Contains(got, tc.shape) {
				t.Fatalf("hint %q\nwant the shape %q and did you mean --endpoint-type %s", got, tc.shape, tc.want)
			}
		})
	}
}

// TestMisfitHintIsTheSameForEveryBodyOfAShape: the hint describes the
// shape, not the content, so the error summary (grouped by message) shows
// one row for a whole run of misread responses.
func TestMisfitHintIsTheSameForEveryBodyOfAShape(t *testing.T) {
	m := endpoint.NewMisfit("completions", New().ShapeCandidates())
	a := m.Hint([]record.Chunk{{Data: []byte(`{"object":"chat.completion","choices":[{"message":{"content":"one"}}]}`)}})
	b := m.Hint([]record.Chunk{{Data: []byte(`{"choices":[{"message":{"content":"two, longer"}}],"object":"chat.completion"}`)}})
	if a == "" || a != b {
		t.Fatalf("hints differ or are empty:\n%q\n%q", a, b)
	}
}
