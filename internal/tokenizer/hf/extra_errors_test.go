package hf

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestExtraComponentErrors checks that every unsupported or missing option
// of the WordPiece/Unigram family is an error naming its JSON path, and
// that all problems of one spec are reported together.
func TestExtraComponentErrors(t *testing.T) {
	build := map[string]func(path string, raw json.RawMessage) error{
		"normalizer": func(p string, r json.RawMessage) error { _, err := newNormalizer(p, r); return err },
		"pre":        func(p string, r json.RawMessage) error { _, err := newPreTokenizer(p, r); return err },
		"model":      func(p string, r json.RawMessage) error { _, err := newModel(p, r); return err },
		"decoder":    func(p string, r json.RawMessage) error { _, err := newDecoder(p, r); return err },
		"post":       func(p string, r json.RawMessage) error { _, err := newPostProcessor(p, r); return err },
	}
	tests := []struct {
		name, kind, spec string
		want             []string // substrings of the error; none: must succeed
	}{
		{"lowercase option", "normalizer", `{"type":"Lowercase","turkish":true}`, []string{"X (Lowercase)", `unsupported option "turkish"`}},
		{"strip accents option", "normalizer", `{"type":"StripAccents","x":1}`, []string{`unsupported option "x"`}},
		{"bert missing", "normalizer", `{"type":"BertNormalizer","strip_accents":true}`, []string{"X.clean_text: missing", "X.handle_chinese_chars: missing", "X.lowercase: missing"}},
		{"bert unknown", "normalizer", `{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"lowercase":true,"nfc":true}`, []string{`unsupported option "nfc"`}},
		{"bert ok without strip_accents", "normalizer", `{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"lowercase":true}`, nil},
		{"punctuation behavior", "pre", `{"type":"Punctuation","behavior":"Sideways"}`, []string{`X.behavior: unsupported value "Sideways"`}},
		{"punctuation default", "pre", `{"type":"Punctuation"}`, nil},
		{"digits missing", "pre", `{"type":"Digits"}`, []string{"X.individual_digits: missing"}},
		{"whitespace option", "pre", `{"type":"Whitespace","regex":"x"}`, []string{`unsupported option "regex"`}},
		{"whitespace split option", "pre", `{"type":"WhitespaceSplit","x":0}`, []string{`unsupported option "x"`}},
		{"bert pre option", "pre", `{"type":"BertPreTokenizer","x":0}`, []string{`unsupported option "x"`}},
		{"metaspace no replacement", "pre", `{"type":"Metaspace","prepend_scheme":"always"}`, []string{"X.replacement: missing"}},
		{"metaspace long replacement", "pre", `{"type":"Metaspace","replacement":"ab"}`, []string{`X.replacement: "ab" is not exactly one character`}},
		{"metaspace scheme", "pre", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"}`, []string{`X.prepend_scheme: unsupported value "sometimes"`}},
		{"metaspace both problems", "pre", `{"type":"Metaspace","replacement":"","prepend_scheme":"sometimes"}`, []string{"X.replacement", "X.prepend_scheme"}},
		{"metaspace add_prefix_space false", "pre", `{"type":"Metaspace","replacement":"▁","add_prefix_space":false}`, []string{"X.add_prefix_space: false does not match prepend_scheme"}},
		{"metaspace add_prefix_space false never", "pre", `{"type":"Metaspace","replacement":"▁","add_prefix_space":false,"prepend_scheme":"never"}`, nil},
		{"metaspace legacy", "pre", `{"type":"Metaspace","replacement":"▁","add_prefix_space":true,"str_rep":"▁"}`, nil},
		{"metaspace decoder", "decoder", `{"type":"Metaspace","replacement":"ab"}`, []string{"X.replacement"}},
		{"wordpiece missing", "model", `{"type":"WordPiece","vocab":{"[UNK]":0}}`, []string{"X.unk_token: missing", "X.continuing_subword_prefix: missing", "X.max_input_chars_per_word: missing"}},
		{"wordpiece unk", "model", `{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{"a":0}}`, []string{`X.unk_token: "[UNK]" is not in the vocabulary`}},
		{"wordpiece negative", "model", `{"type":"WordPiece","unk_token":"a","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{"a":0,"b":-1}}`, []string{`X.vocab["b"]: negative id -1`}},
		{"wordpiece dropout", "model", `{"type":"WordPiece","unk_token":"a","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{"a":0},"dropout":0.1}`, []string{`unsupported option "dropout"`}},
		{"unigram no vocab", "model", `{"type":"Unigram","unk_id":0}`, []string{"X.vocab: missing"}},
		{"unigram unk null", "model", `{"type":"Unigram","unk_id":null,"vocab":[["<unk>",0]]}`, []string{"X.unk_id: null is not supported"}},
		{"unigram unk range", "model", `{"type":"Unigram","unk_id":3,"vocab":[["<unk>",0]]}`, []string{"X.unk_id: 3 is outside the vocabulary"}},
		{"unigram empty", "model", `{"type":"Unigram","unk_id":0,"vocab":[]}`, []string{"X.vocab: empty"}},
		{"unigram bad entries", "model", `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a"],["b","x"],["c",null]]}`, []string{"X.vocab[1]", "X.vocab[2]", "X.vocab[3]"}},
		{"unigram ok", "model", `{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["a",-1.5e0]],"byte_fallback":true}`, nil},
		{"wordpiece decoder missing", "decoder", `{"type":"WordPiece","prefix":"##"}`, []string{"X.cleanup: missing"}},
		{"bert processing missing", "post", `{"type":"BertProcessing","cls":["[CLS]",0]}`, []string{"X.sep: missing"}},
		{"bert processing bad", "post", `{"type":"BertProcessing","cls":["[CLS]"],"sep":[1,"x"]}`, []string{"X.cls: want [token, id]", "X.sep: want [token, id]"}},
		{"roberta ok", "post", `{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":false}`, nil},
		{"roberta unknown", "post", `{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"pair":true}`, []string{`unsupported option "pair"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := build[tc.kind]("X", json.RawMessage(tc.spec))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("%s: no error, want %q", tc.spec, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestPostProcessorsAddClsSep checks BertProcessing and RobertaProcessing
// on a single sequence, including an empty one.
func TestPostProcessorsAddClsSep(t *testing.T) {
	for _, spec := range []string{
		`{"type":"BertProcessing","sep":["[SEP]",102],"cls":["[CLS]",101]}`,
		`{"type":"RobertaProcessing","sep":["[SEP]",102],"cls":["[CLS]",101],"trim_offsets":true,"add_prefix_space":true}`,
	} {
		p, err := newPostProcessor("post_processor", json.RawMessage(spec))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.process([]int{7, 8}); !slices.Equal(got, []int{101, 7, 8, 102}) {
			t.Errorf("%s: process([7 8]) = %v", spec, got)
		}
		if got := p.process(nil); !slices.Equal(got, []int{101, 102}) {
			t.Errorf("%s: process(nil) = %v", spec, got)
		}
	}
}
