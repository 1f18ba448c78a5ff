package synthesis

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// vocabTokenizer gives the builtin tokenizer a Vocabulary: ids at or
// above special are special tokens.
type vocabTokenizer struct {
	tokenizer.Tokenizer
	size, special int
}

func (v vocabTokenizer) VocabSize() int        { return v.size }
func (v vocabTokenizer) IsSpecial(id int) bool { return id >= v.special }

// TestPromptCorpora builds synthetic prompts from each --prompt-corpus:
// exact lengths from every corpus, code from the coding corpus, and the
// random corpus's ids taken from the vocabulary (without the special
// tokens in the vllm style, with them in the sglang style).
func TestPromptCorpora(t *testing.T) {
	tok := builtinTokenizer(t)
	sonnet := mustSynthetic(t, SyntheticOptions{ISLMean: 64, Entries: 8, Seed: 5, SeedSet: true}, tok)
	for _, name := range []string{CorpusSonnet, CorpusCoding, CorpusRandom} {
		pc, err := NewPromptCorpus(name, "", tok)
		if err != nil {
			t.Fatal(err)
		}
		if pc.Name() != name {
			t.Errorf("Name() = %q; want %q", pc.Name(), name)
		}
		ds := mustSynthetic(t, SyntheticOptions{ISLMean: 64, Entries: 8, Seed: 5, SeedSet: true, Corpus: pc}, tok)
		checkTurns(t, ds, tok)
		var all strings.Builder
		for i, c := range ds.Conversations {
			if c.Turns[0].InputTokens != 64 {
				t.Errorf("%s: prompt %d has %d tokens; want 64", name, i, c.Turns[0].InputTokens)
			}
			same := c.Turns[0].Texts[0] == sonnet.Conversations[i].Turns[0].Texts[0]
			if same != (name == CorpusSonnet) {
				t.Errorf("%s: prompt %d equal to the default corpus's: %v", name, i, same)
			}
			all.WriteString(c.Turns[0].Texts[0])
		}
		if name == CorpusCoding && !strings.ContainsAny(all.String(), "(){}=") {
			t.Errorf("coding prompts hold no code: %q", all.String())
		}
	}
	vt := vocabTokenizer{Tokenizer: tok, size: 1000, special: 990}
	for _, tc := range []struct {
		style string
		n     int
	}{{StyleVLLM, 990}, {StyleSGLang, 1000}} {
		ids, err := randomCorpusIDs(tc.style, vt)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != tc.n || ids[0] != 0 || ids[len(ids)-1] != tc.n-1 {
			t.Errorf("%s: %d ids [%d..%d]; want %d", tc.style, len(ids), ids[0], ids[len(ids)-1], tc.n)
		}
	}
	if _, err := NewPromptCorpus("poems", "", tok); err == nil || !strings.Contains(err.Error(), "sonnet, coding, random") {
		t.Errorf("unknown corpus: %v", err)
	}
	if _, err := NewPromptCorpus(CorpusRandom, "tgi", tok); err == nil || !strings.Contains(err.Error(), "vllm or sglang") {
		t.Errorf("unknown style: %v", err)
	}
}
