package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// wordPiece is the "WordPiece" model (BERT): each word is cut greedily
// into the longest vocabulary entries from the left, pieces after the first
// carrying continuing_subword_prefix. A word with a part no entry matches,
// or longer than max_input_chars_per_word characters, becomes unk_token.
type wordPiece struct {
	vocab    map[string]int
	tokens   map[int]string
	unkID    int
	prefix   string
	maxChars int
	// maxLen is the byte length of the longest vocabulary entry: no
	// longer candidate can match, so the search starts there.
	maxLen int
}

type wordPieceSpec struct {
	Type                    string         `json:"type"`
	UnkToken                *string        `json:"unk_token"`
	ContinuingSubwordPrefix *string        `json:"continuing_subword_prefix"`
	MaxInputCharsPerWord    *int           `json:"max_input_chars_per_word"`
	Vocab                   map[string]int `json:"vocab"`
}

func newWordPiece(path string, raw json.RawMessage) (model, error) {
	var spec wordPieceSpec
	if err := decodeStrict(path, "WordPiece", raw, &spec); err != nil {
		return nil, err
	}
	if err := requireFields(path, map[string]bool{
		"unk_token":                 spec.UnkToken != nil,
		"continuing_subword_prefix": spec.ContinuingSubwordPrefix != nil,
		"max_input_chars_per_word":  spec.MaxInputCharsPerWord != nil,
		"vocab":                     spec.Vocab != nil,
	}); err != nil {
		return nil, err
	}
	m := &wordPiece{vocab: spec.Vocab, prefix: *spec.ContinuingSubwordPrefix, maxChars: *spec.MaxInputCharsPerWord}
	unk := *spec.UnkToken
	var errs []error
	m.tokens = make(map[int]string, len(m.vocab))
	for tok, id := range m.vocab {
		m.maxLen = max(m.maxLen, len(tok))
		if id < 0 {
			errs = append(errs, fmt.Errorf("%s.vocab[%q]: negative id %d", path, tok, id))
		}
		m.tokens[id] = tok
	}
	id, ok := m.vocab[unk]
	if !ok {
		// The reference fails at encode time on the first word that needs
		// it; refusing the file is the exact equivalent we can give.
		errs = append(errs, fmt.Errorf("%s.unk_token: %q is not in the vocabulary", path, unk))
	}
	m.unkID = id
	if m.maxChars < 0 {
		errs = append(errs, fmt.Errorf("%s.max_input_chars_per_word: negative value %d", path, m.maxChars))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

func (m *wordPiece) tokenize(dst []int, w string) []int {
	if w == "" {
		return dst
	}
	if utf8.RuneCountInString(w) > m.maxChars {
		return append(dst, m.unkID)
	}
	mark := len(dst)
	var buf []byte
	for start := 0; start < len(w); {
		end := len(w)
		limit := m.maxLen
		if start > 0 {
			limit -= len(m.prefix)
		}
		if end-start > limit {
			// Back off to a character boundary at or below the limit.
			end = max(start+limit, start)
			for end > start && !utf8.RuneStart(w[end]) {
				end--
			}
		}
		found := -1
		for start < end {
			var id int
			var ok bool
			if start > 0 {
				buf = append(append(buf[:0], m.prefix...), w[start:end]...)
				id, ok = m.vocab[string(buf)]
			} else {
				id, ok = m.vocab[w[start:end]]
			}
			if ok {
				found = id
				break
			}
			_, n := utf8.DecodeLastRuneInString(w[start:end])
			end -= n
		}
		if found < 0 {
			return append(dst[:mark], m.unkID)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}

func (m *wordPiece) tokenToID(token string) (int, bool) {
	id, ok := m.vocab[token]
	return id, ok
}

func (m *wordPiece) idToToken(id int) (string, bool) {
	t, ok := m.tokens[id]
	return t, ok
}

func (m *wordPiece) vocabSize() int { return len(m.vocab) }

// wordPieceDecoder is the "WordPiece" decoder: a token after the first
// loses its prefix if it has one and is otherwise preceded by a space;
// cleanup then removes the spaces tokenization put before punctuation and
// English contractions.
type wordPieceDecoder struct {
	prefix  string
	cleanup bool
}

type wordPieceDecoderSpec struct {
	Type    string  `json:"type"`
	Prefix  *string `json:"prefix"`
	Cleanup *bool   `json:"cleanup"`
}

func newWordPieceDecoder(path string, raw json.RawMessage) (decoder, error) {
	var spec wordPieceDecoderSpec
	if err := decodeStrict(path, "WordPiece", raw, &spec); err != nil {
		return nil, err
	}
	if err := requireFields(path, map[string]bool{"prefix": spec.Prefix != nil, "cleanup": spec.Cleanup != nil}); err != nil {
		return nil, err
	}
	return wordPieceDecoder{prefix: *spec.Prefix, cleanup: *spec.Cleanup}, nil
}

func (d wordPieceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		if i != 0 {
			if strings.HasPrefix(t, d.prefix) {
				t = strings.Replace(t, d.prefix, "", 1)
			} else {
				t = " " + t
			}
		}
		if d.cleanup {
			t = cleanupWordPiece(t)
		}
		out[i] = t
	}
	return out
}

// cleanupWordPiece removes the spaces WordPiece decoding leaves before
// punctuation and English contractions: the reference's replacements, in
// its order, each applied to the result of the one before.
func cleanupWordPiece(s string) string {
	pairs := [...][2]string{
		{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"},
		{" 've", "'ve"}, {" 're", "'re"},
	}
	for _, p := range pairs {
		if strings.Contains(s, p[0]) {
			s = strings.ReplaceAll(s, p[0], p[1])
		}
	}
	return s
}
