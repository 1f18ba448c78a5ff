package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

func TestChunkLayout(t *testing.T) {
	for _, c := range []struct {
		chunk, reasoning, tool, n int
		want                      string
	}{
		{0, 0, 0, 3, "c1@0 c1@1 c1@2"},
		{3, 0, 0, 7, "c3@2 c3@5 c1@6"},
		{3, 4, 2, 10, "r3@2 r1@3 c3@6 c1@7 t2@9"},
		{2, 5, 5, 6, "r2@1 r2@3 r1@4 t1@5"}, // reasoning first, the tool call takes what is left
		{2, 0, 9, 4, "t2@1 t2@3"},
	} {
		cfg := mockserver.Config{ChunkTokens: c.chunk, ReasoningTokens: c.reasoning, ToolCallTokens: c.tool}
		var parts []string
		total := 0
		for _, ch := range cfg.ChunkLayout(c.n) {
			parts = append(parts, fmt.Sprintf("%c%d@%d", "rct"[ch.Part], ch.Tokens, ch.Last))
			total += ch.Tokens
		}
		if got := strings.Join(parts, " "); got != c.want || total != c.n {
			t.Errorf("%+v: layout %s (%d tokens), want %s", c, got, total, c.want)
		}
	}
}

// TestShapedStream: a shaped chat stream carries the layout's chunks in
// order, reasoning as reasoning_content, the tool call's name then its
// arguments, a usage-only chunk after each, and usage counting the
// reasoning tokens; every piece of text is whole vocabulary tokens.
func TestShapedStream(t *testing.T) {
	cfg := fastConfig()
	cfg.ChunkTokens, cfg.ReasoningTokens, cfg.ToolCallTokens, cfg.UsageChunks = 2, 3, 3, true
	ts := newTestServer(t, cfg)
	resp, data := post(t, ts.URL+"/v1/chat/completions", chatBody(map[string]any{
		"stream": true, "max_tokens": 9, "ignore_eos": true, "stream_options": map[string]any{"include_usage": true},
	}, "one two three"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, data)
	}
	var got []string
	var last map[string]any
	words := 0
	for _, ev := range sseEvents(t, data) {
		if ev == "[DONE]" {
			got = append(got, "done")
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string `json:"content"`
					Reasoning *string `json:"reasoning_content"`
					ToolCalls []struct {
						ID       string `json:"id"`
						Function struct {
							Name      *string `json:"name"`
							Arguments string  `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				Finish *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		count := func(s string) int { words += len(strings.Fields(s)); return len(strings.Fields(s)) }
		switch {
		case len(c.Choices) == 0:
			got = append(got, fmt.Sprintf("u%v", c.Usage["completion_tokens"]))
			last = c.Usage
		case c.Choices[0].Finish != nil:
			got = append(got, "finish")
		case c.Choices[0].Delta.Reasoning != nil:
			got = append(got, fmt.Sprintf("r%d", count(*c.Choices[0].Delta.Reasoning)))
		case len(c.Choices[0].Delta.ToolCalls) == 1:
			tc := c.Choices[0].Delta.ToolCalls[0]
			s := "t"
			if tc.Function.Name != nil {
				s = fmt.Sprintf("name(%d,%t)", count(*tc.Function.Name), tc.ID != "")
			}
			got = append(got, fmt.Sprintf("%s%d", s, count(tc.Function.Arguments)))
		case c.Choices[0].Delta.Content != nil && *c.Choices[0].Delta.Content == "":
			got = append(got, "role")
		case c.Choices[0].Delta.Content != nil:
			got = append(got, fmt.Sprintf("c%d", count(*c.Choices[0].Delta.Content)))
		}
	}
	want := "role r2 u2 r1 u3 c2 u5 c1 u6 name(1,true)1 u8 t1 u9 finish u9 done"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("stream\n got %s\nwant %s", g, want)
	}
	if words != 9 {
		t.Errorf("%d words of text, want 9", words)
	}
	if d, _ := last["completion_tokens_details"].(map[string]any); d["reasoning_tokens"] != 3.0 {
		t.Errorf("final usage %v: want 3 reasoning tokens", last)
	}
}
