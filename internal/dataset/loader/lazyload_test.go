package loader

import (
	"github.com/aiperf-go/aiperf/internal/dataset"
	"slices"
	"testing"
)

// TestLazyPromptsMatchEager: a trace loaded with LazyPrompts yields, turn
// for turn, the texts the load-time path builds once each Prompt is built
// (in any order, from several goroutines), so a seeded run sends the same
// bodies either way; only hash-id prompts are left lazy, and Materialize
// fills the counts the load-time path has.
func TestLazyPromptsMatchEager(t *testing.T) {
	sep := 7
	tests := []struct {
		name, typ, content string
		sep                *int
	}{
		{"mooncake", TypeMooncakeTrace, `{"input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3]}
{"session_id": "s1", "input_length": 48, "output_length": 7, "hash_ids": [1, 2, 4]}
{"input_length": 50, "output_length": 3, "hash_ids": [1, 5, 6, 7]}
{"input_length": 20, "output_length": 4}
{"session_id": "s1", "input_length": 70, "output_length": 6, "hash_ids": [1, 2, 4, 8]}
{"text_input": "hello there", "output_length": 2}
{"input_length": 70, "output_length": 9, "hash_ids": [1, 2]}
{"input_length": 33, "output_length": 9, "hash_ids": [9]}
`, nil},
		{"separator", TypeMooncakeTrace, `{"input_length": 40, "hash_ids": [1, 2, 3]}
{"input_length": 90, "hash_ids": [1, 2]}
{"input_length": 20}
{"input_length": 41, "hash_ids": [1, 2, 4]}
`, &sep},
		{"bailian", TypeBailianTrace, `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 3, "type": "text", "turn": 1, "hash_ids": [1, 2, 3]}
{"chat_id": 2, "parent_chat_id": 1, "timestamp": 1.5, "input_length": 60, "output_length": 3, "type": "text", "turn": 2, "hash_ids": [1, 2, 5, 6]}
`, nil},
		{"burstgpt", TypeBurstGPTTrace, "Timestamp,Request tokens,Response tokens\n0,12,3\n1.5,30,4\n", nil},
	}
	tok := builtinTok(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "trace", tt.content)
			o := LoadOptions{Path: path, Type: tt.typ, BlockSize: 16, Seed: 5, SeedSet: true, SeparatorToken: tt.sep}
			eager, err := Load(o, tok)
			if err != nil {
				t.Fatal(err)
			}
			o.LazyPrompts = true
			lazy, err := Load(o, tok)
			if err != nil {
				t.Fatal(err)
			}
			convs := lazy.Dataset.Conversations
			if len(convs) != len(eager.Dataset.Conversations) {
				t.Fatalf("%d conversations lazy, %d eager", len(convs), len(eager.Dataset.Conversations))
			}
			// Build the lazy prompts last to first, concurrently, to show
			// that neither order nor goroutines matter.
			type at struct{ c, t int }
			var all []at
			for c := range convs {
				for k := range convs[c].Turns {
					all = append(all, at{c, k})
				}
			}
			slices.Reverse(all)
			built := make([]dataset.Turn, len(all))
			dataset.ForEachParallel(len(all), func(i int) { built[i] = convs[all[i].c].Turns[all[i].t].Materialize() })
			lazyTurns := 0
			for i, a := range all {
				want := eager.Dataset.Conversations[a.c].Turns[a.t]
				orig := convs[a.c].Turns[a.t]
				if orig.Prompt != nil {
					lazyTurns++
					if len(orig.Texts) != 0 || orig.InputTokens != -1 {
						t.Errorf("conversation %d turn %d: a lazy turn with texts %q, %d tokens", a.c, a.t, orig.Texts, orig.InputTokens)
					}
				} else if orig.InputTokens != want.InputTokens {
					t.Errorf("conversation %d turn %d: %d tokens, want %d", a.c, a.t, orig.InputTokens, want.InputTokens)
				}
				if !slices.Equal(built[i].Texts, want.Texts) || built[i].Prompt != nil {
					t.Errorf("conversation %d turn %d: built %q, want %q", a.c, a.t, built[i].Texts, want.Texts)
				}
			}
			if lazyTurns == 0 && tt.typ != TypeBurstGPTTrace {
				t.Error("no turn was left lazy")
			}
			lazy.Dataset.Materialize()
			for c := range convs {
				for k, got := range convs[c].Turns {
					want := eager.Dataset.Conversations[c].Turns[k]
					if got.Prompt != nil || !slices.Equal(got.Texts, want.Texts) || got.InputTokens != want.InputTokens {
						t.Errorf("materialized conversation %d turn %d: %q (%d tokens), want %q (%d)", c, k, got.Texts, got.InputTokens, want.Texts, want.InputTokens)
					}
				}
			}
		})
	}
}
