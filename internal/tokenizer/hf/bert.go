package hf

import (
	"encoding/json"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// bertNormalizer is the "BertNormalizer" normalizer. Its steps run in
// HuggingFace's order: clean_text, handle_chinese_chars, strip_accents,
// lowercase.
type bertNormalizer struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

// bertNormalizerSpec is the JSON form. strip_accents null means "follow
// lowercase".
type bertNormalizerSpec struct {
	Type               string `json:"type"`
	CleanText          *bool  `json:"clean_text"`
	HandleChineseChars *bool  `json:"handle_chinese_chars"`
	StripAccents       *bool  `json:"strip_accents"`
	Lowercase          *bool  `json:"lowercase"`
}

func newBertNormalizer(path string, raw json.RawMessage) (normalizer, error) {
	var spec bertNormalizerSpec
	if err := decodeStrict(path, "BertNormalizer", raw, &spec); err != nil {
		return nil, err
	}
	// Like the reference, only strip_accents may be left out.
	if err := requireFields(path, map[string]bool{
		"clean_text":           spec.CleanText != nil,
		"handle_chinese_chars": spec.HandleChineseChars != nil,
		"lowercase":            spec.Lowercase != nil,
	}); err != nil {
		return nil, err
	}
	n := bertNormalizer{cleanText: *spec.CleanText, chineseChars: *spec.HandleChineseChars, lowercase: *spec.Lowercase}
	n.stripAccents = n.lowercase
	if spec.StripAccents != nil {
		n.stripAccents = *spec.StripAccents
	}
	return n, nil
}

func (n bertNormalizer) normalize(s string) string {
	if n.cleanText || n.chineseChars {
		var b strings.Builder
		b.Grow(len(s))
		for _, r := range s {
			if n.cleanText {
				if isBertRemoved(r) {
					continue
				}
				if isBertWhitespace(r) {
					r = ' '
				}
			}
			if n.chineseChars && isChineseChar(r) {
				b.WriteByte(' ')
				b.WriteRune(r)
				b.WriteByte(' ')
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if n.stripAccents {
		s = strings.Map(func(r rune) rune {
			if isNonspacingMark(r) {
				return -1
			}
			return r
		}, decomposeLikeReference(s))
	}
	if n.lowercase {
		s = lowerChars(s)
	}
	return s
}

// noDecompose is the one character Go's NFD decomposes and the reference's
// older normalization tables do not (DIVES AKURU VOWEL SIGN O, Unicode 13).
const noDecompose = '\U00011938'

// decomposeLikeReference is NFD as BertNormalizer's strip_accents applies
// it. noDecompose is a starter, so cutting the text at it leaves the
// canonical ordering of the rest unchanged.
func decomposeLikeReference(s string) string {
	if !strings.ContainsRune(s, noDecompose) {
		return norm.NFD.String(s)
	}
	parts := strings.Split(s, string(noDecompose))
	for i, p := range parts {
		parts[i] = norm.NFD.String(p)
	}
	return strings.Join(parts, string(noDecompose))
}

// bertPreTokenizer is the "BertPreTokenizer": it splits on whitespace
// (removed) and then isolates every punctuation character.
type bertPreTokenizer struct{}

func newBertPreTokenizer(path string, raw json.RawMessage) (preTokenizer, error) {
	if err := noOptions(path, "BertPreTokenizer", raw); err != nil {
		return nil, err
	}
	return bertPreTokenizer{}, nil
}

func (bertPreTokenizer) preTokenize(dst, src []word) []word {
	var tmp [16]word
	for _, w := range src {
		parts := splitRunes(tmp[:0], w, isRustWhitespace, delimRemoved)
		for _, p := range parts {
			dst = splitRunes(dst, p, isPunctuation, delimIsolated)
		}
	}
	return dst
}
