package hf

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtraEncode runs arbitrary text through the WordPiece and Unigram
// test tokenizers: no panic, Count == len(Encode), every id decodable, and
// for the seed strings the reference's ids.
func FuzzExtraEncode(f *testing.F) {
	var g goldenModels
	readGzipJSON(f, "extra_models.golden.json.gz", &g)
	want := map[string]map[string][]int{}
	for _, gt := range g.Tokenizers {
		want[gt.File] = map[string][]int{}
		for _, c := range gt.Full {
			want[gt.File][c.Text] = c.IDs
			f.Add(c.Text)
		}
	}
	toks := make([]*Tokenizer, 0, len(extraTokenizers()))
	for _, name := range extraTokenizers() {
		toks = append(toks, extraTokenizer(f, name))
	}
	f.Fuzz(func(t *testing.T, text string) {
		for i, tok := range toks {
			name := extraTokenizers()[i]
			ids := tok.Encode(text)
			if n := tok.Count(text); n != len(ids) {
				t.Fatalf("%s: Count(%q) = %d, len(Encode) = %d", name, text, n, len(ids))
			}
			for _, id := range ids {
				if _, ok := tok.idToToken(id); !ok {
					t.Fatalf("%s: Encode(%q) produced unknown id %d", name, text, id)
				}
			}
			if w, ok := want[name][text]; ok && !slices.Equal(ids, w) {
				t.Fatalf("%s: Encode(%q)\n got %v\nwant %v", name, text, ids, w)
			}
			_ = tok.Decode(ids)
		}
	})
}

// FuzzExtraComponents checks invariants of the components themselves on
// arbitrary (valid UTF-8) text: splitting pre-tokenizers lose nothing but
// what they drop, Unigram pieces tile the word, WordPiece output is the
// unk id alone or pieces that tile the word.
func FuzzExtraComponents(f *testing.F) {
	for _, s := range []string{"", "Hello, world!", "a  b\tc\n", "中文123", "e\u0301", "▁x▁", "don't ##", "😀👍🏽"} {
		f.Add(s)
	}
	uni := testModel(f, "unigram_bf.json").(*unigram)
	wp := testModel(f, "wordpiece.json").(*wordPiece)
	specs := []string{
		`{"type":"Whitespace"}`, `{"type":"WhitespaceSplit"}`, `{"type":"BertPreTokenizer"}`,
		`{"type":"Digits","individual_digits":true}`, `{"type":"Punctuation","behavior":"Contiguous"}`,
		`{"type":"Punctuation","behavior":"MergedWithNext"}`, `{"type":"Punctuation","behavior":"MergedWithPrevious"}`,
		`{"type":"Metaspace","replacement":"▁","prepend_scheme":"never","split":true}`,
	}
	pts := make([]preTokenizer, len(specs))
	for i, s := range specs {
		p, err := newPreTokenizer("pre_tokenizer", []byte(s))
		if err != nil {
			f.Fatal(err)
		}
		pts[i] = p
	}
	bert, err := newNormalizer("normalizer", []byte(`{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		_ = bert.normalize(text)
		for i, p := range pts {
			words := p.preTokenize(nil, []word{{text: text, first: true}})
			var b strings.Builder
			for _, w := range words {
				if w.text == "" {
					t.Fatalf("%s: empty word from %q", specs[i], text)
				}
				b.WriteString(w.text)
			}
			joined := b.String()
			switch i {
			case 0, 1, 2: // drop whitespace only
				if strip(joined) != strip(text) {
					t.Fatalf("%s(%q) lost text: %q", specs[i], text, joined)
				}
			case 7: // spaces become ▁
				if joined != strings.ReplaceAll(text, " ", "▁") {
					t.Fatalf("%s(%q) = %q", specs[i], text, joined)
				}
			default: // nothing dropped
				if joined != text {
					t.Fatalf("%s(%q) = %q", specs[i], text, joined)
				}
			}
		}
		ids := uni.tokenize(nil, text)
		if text != "" && len(ids) == 0 {
			t.Fatalf("unigram(%q): no ids", text)
		}
		for _, id := range ids {
			if id < 0 || id >= uni.vocabSize() {
				t.Fatalf("unigram(%q): id %d out of range", text, id)
			}
		}
		ids = wp.tokenize(nil, text)
		if text != "" && len(ids) == 0 {
			t.Fatalf("wordpiece(%q): no ids", text)
		}
		if !slices.Contains(ids, wp.unkID) {
			var b strings.Builder
			for i, id := range ids {
				tok, _ := wp.idToToken(id)
				if i > 0 {
					tok = strings.TrimPrefix(tok, wp.prefix)
				}
				b.WriteString(tok)
			}
			if b.String() != text {
				t.Fatalf("wordpiece(%q) pieces %q do not tile it", text, b.String())
			}
		} else if len(ids) != 1 {
			t.Fatalf("wordpiece(%q) = %v: unk must stand alone", text, ids)
		}
	})
}

// strip removes the characters the whitespace pre-tokenizers drop.
func strip(s string) string {
	return strings.Map(func(r rune) rune {
		if isRustWhitespace(r) {
			return -1
		}
		return r
	}, s)
}
