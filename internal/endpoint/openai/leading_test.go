package openai

import (
	"encoding/json"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

func TestLeadingMessages(t *testing.T) {
	t.Parallel()
	first := dataset.Turn{Role: "user", Texts: []string{"q1"}, System: "sys", UserContext: "ctx"}
	tests := []struct {
		name    string
		ep      endpoint.Endpoint
		turn    dataset.Turn
		history []endpoint.Message
		want    string
	}{
		{"system and context", NewChat(), first, nil,
			`{"messages":[{"role":"system","content":"sys"},{"role":"user","content":"ctx"},{"role":"user","content":"q1"}],"model":"m","stream":false}`},
		{"system only, batch", NewChat(), dataset.Turn{Texts: []string{"a", "b"}, System: "sys"}, nil,
			`{"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"model":"m","stream":false}`},
		{"context only", NewChat(), dataset.Turn{Texts: []string{"q"}, UserContext: "ctx"}, nil,
			`{"messages":[{"role":"user","content":"ctx"},{"role":"user","content":"q"}],"model":"m","stream":false}`},
		{"once before the history", NewChat(), dataset.Turn{Role: "user", Texts: []string{"q2"}, System: "sys", UserContext: "ctx"},
			[]endpoint.Message{{Turn: &first}, {Role: "assistant", Text: "a1"}},
			`{"messages":[{"role":"system","content":"sys"},{"role":"user","content":"ctx"},{"role":"user","content":"q1"},{"role":"assistant","content":"a1"},{"role":"user","content":"q2"}],"model":"m","stream":false}`},
		{"completions ignores them", NewCompletions(), first, nil,
			`{"prompt":"q1","model":"m","stream":false}`},
	}
	for _, tt := range tests {
		opts := endpoint.Options{Model: "m", History: tt.history}
		got, err := tt.ep.AppendPayload(nil, &tt.turn, &opts)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checkValid(t, got)
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// FuzzLeadingMessages checks that any system and context text gives a
// valid body whose first messages carry them verbatim.
func FuzzLeadingMessages(f *testing.F) {
	f.Add("sys", "ctx", "q")
	f.Add("", "\u2028\"\\", "")
	f.Add("\xff", "", "x")
	f.Fuzz(func(t *testing.T, sys, ctx, q string) {
		turn := dataset.Turn{Texts: []string{q}, System: sys, UserContext: ctx}
		h := []endpoint.Message{{Turn: &dataset.Turn{Texts: []string{"h"}, System: sys}}, {Text: "a"}}
		for _, opts := range []endpoint.Options{{Model: "m"}, {Model: "m", History: h}} {
			body, err := NewChat().AppendPayload(nil, &turn, &opts)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Messages []struct {
					Role    string `json:"role"`
					Content any    `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatalf("invalid body %q: %v", body, err)
			}
			want := 1 + len(opts.History)
			i := 0
			if sys != "" {
				want++
				if doc.Messages[0].Role != "system" || doc.Messages[0].Content != string([]rune(sys)) {
					t.Fatalf("first message %+v; want the system prompt", doc.Messages[0])
				}
				i++
			}
			if ctx != "" {
				want++
				if doc.Messages[i].Role != "user" || doc.Messages[i].Content != string([]rune(ctx)) {
					t.Fatalf("message %d %+v; want the user context", i, doc.Messages[i])
				}
			}
			if len(doc.Messages) != want {
				t.Fatalf("%d messages, want %d: %s", len(doc.Messages), want, body)
			}
		}
	})
}
