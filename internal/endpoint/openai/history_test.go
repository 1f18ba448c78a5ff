package openai

import (
	"encoding/json"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
)

// TestChatHistory: a turn with history sends every earlier turn as it was
// sent (one text as a string, several as text parts), each followed by the
// server's reply, then the turn itself; the rest of the body is unchanged,
// and completions ignore the history.
func TestChatHistory(t *testing.T) {
	t.Parallel()
	first := &dataset.Turn{Texts: []string{"hello \"there\""}}
	second := &dataset.Turn{Texts: []string{"part one", "part two"}}
	third := &dataset.Turn{Texts: []string{"and now?"}, MaxTokens: 5}
	o := &endpoint.Options{Model: "m", Streaming: true, History: []endpoint.Message{
		{Turn: first}, {Role: "assistant", Text: "hi\n"},
		{Turn: second}, {Role: "assistant", Text: ""},
	}}
	got, err := NewChat().AppendPayload(nil, third, o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"user","content":"hello \"there\""},{"role":"assistant","content":"hi\n"},` +
		`{"role":"user","content":[{"type":"text","text":"part one"},{"type":"text","text":"part two"}]},{"role":"assistant","content":""},` +
		`{"role":"user","content":"and now?"}],"model":"m","stream":true,"max_completion_tokens":5,"stream_options":{"include_usage":true}}`
	if string(got) != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Error("body is not valid JSON")
	}
	noHistory, err := NewChat().AppendPayload(nil, third, &endpoint.Options{Model: "m", Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	wantPlain := `{"messages":[{"role":"user","content":"and now?"}],"model":"m","stream":true,"max_completion_tokens":5,"stream_options":{"include_usage":true}}`
	if string(noHistory) != wantPlain {
		t.Errorf("body without history\n got %s\nwant %s", noHistory, wantPlain)
	}
	comp, err := NewCompletions().AppendPayload(nil, third, o)
	if err != nil {
		t.Fatal(err)
	}
	compPlain, _ := NewCompletions().AppendPayload(nil, third, &endpoint.Options{Model: "m", Streaming: true})
	if string(comp) != string(compPlain) {
		t.Errorf("completions body changed with history: %s", comp)
	}
}

// FuzzChatHistory: whatever the texts, a body with history is valid JSON
// whose messages alternate the earlier turns and replies and end with the
// turn.
func FuzzChatHistory(f *testing.F) {
	f.Add("a", "b", "c", "d")
	f.Add("", "\x00\u2028", "x\xff", "")
	f.Fuzz(func(t *testing.T, t1, t2, reply, t3 string) {
		h := []endpoint.Message{{Turn: &dataset.Turn{Texts: []string{t1, t2}}}, {Role: "assistant", Text: reply}}
		body, err := NewChat().AppendPayload(nil, &dataset.Turn{Texts: []string{t3}}, &endpoint.Options{Model: "m", History: h})
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			Messages []struct{ Role string }
		}
		if err := json.Unmarshal(body, &b); err != nil {
			t.Fatalf("invalid body %q: %v", body, err)
		}
		if len(b.Messages) != 3 || b.Messages[0].Role != "user" || b.Messages[1].Role != "assistant" || b.Messages[2].Role != "user" {
			t.Fatalf("messages %+v", b.Messages)
		}
	})
}
