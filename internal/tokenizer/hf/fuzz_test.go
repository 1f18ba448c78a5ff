package hf

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// seedGoldens maps, per test model, each short case to its reference ids.
var (
	seedOnce    sync.Once
	seedInputs  []string
	seedGoldens map[string]map[string][]int
)

func loadSeeds(tb testing.TB) {
	tb.Helper()
	seedOnce.Do(func() {
		readJSON(tb, filepath.Join("testdata", "corpus_cases.json"), &seedInputs)
		seedGoldens = map[string]map[string][]int{}
		for _, model := range testmodels.Names() {
			in, g := cases(tb, model)
			m := map[string][]int{}
			for i, s := range in {
				m[s] = g.IDs[i]
			}
			seedGoldens[model] = m
		}
	})
}

// FuzzEncode feeds strings through every real test tokenizer: no input
// may panic, Count must equal len(Encode), every id must decode to a
// token, and a seed input must give exactly the reference ids. The seeds
// (testdata/corpus_cases.json) run as an ordinary test.
func FuzzEncode(f *testing.F) {
	loadSeeds(f)
	for _, s := range seedInputs {
		f.Add(s)
	}
	toks := map[string]*Tokenizer{}
	for _, model := range testmodels.Names() {
		toks[model] = realTokenizer(f, model)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, model := range testmodels.Names() {
			tok := toks[model]
			ids := tok.Encode(s)
			if n := tok.Count(s); n != len(ids) {
				t.Fatalf("%s: Count(%q) = %d, len(Encode) = %d", model, s, n, len(ids))
			}
			for _, id := range ids {
				if _, ok := tok.idToToken(id); !ok {
					t.Fatalf("%s: Encode(%q) produced id %d, which has no token", model, s, id)
				}
			}
			if want, ok := seedGoldens[model][s]; ok && !slices.Equal(nonNil(ids), nonNil(want)) {
				t.Fatalf("%s: Encode(%q) = %v, reference %v", model, s, ids, want)
			}
			if text := tok.Decode(ids); !utf8.ValidString(text) {
				t.Fatalf("%s: Decode gave invalid UTF-8 for %q", model, s)
			}
			if sp := tok.EncodeWithSpecialTokens(s); len(sp) < len(ids) {
				t.Fatalf("%s: EncodeWithSpecialTokens(%q) is shorter than Encode", model, s)
			}
		}
	})
}
