package hf

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// lowercase is the "Lowercase" normalizer: every character is replaced by
// its full Unicode lowercase mapping, one character at a time (Rust's
// char::to_lowercase, so no context-dependent rules such as final sigma).
type lowercase struct{}

func newLowercase(path string, raw json.RawMessage) (normalizer, error) {
	if err := noOptions(path, "Lowercase", raw); err != nil {
		return nil, err
	}
	return lowercase{}, nil
}

func (lowercase) normalize(s string) string { return lowerChars(s) }

// lowerChars lowercases s character by character as Rust's
// char::to_lowercase does: full mappings (U+0130 becomes "i̇"), of the
// reference's Unicode version.
func lowerChars(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if m, ok := lowerMulti(r); ok {
			b.WriteString(m)
			continue
		}
		b.WriteRune(lowerRune(r))
	}
	return b.String()
}

// stripAccents is the "StripAccents" normalizer: it removes every
// combining mark (general category M). It does not decompose first; a
// tokenizer.json pairs it with an NFD or NFKD normalizer for that.
type stripAccents struct{}

func newStripAccents(path string, raw json.RawMessage) (normalizer, error) {
	if err := noOptions(path, "StripAccents", raw); err != nil {
		return nil, err
	}
	return stripAccents{}, nil
}

func (stripAccents) normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if isCombiningMark(r) {
			return -1
		}
		return r
	}, s)
}
