package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// prependScheme says when Metaspace puts a replacement character in front
// of a word that does not start with one.
type prependScheme int

const (
	// prependAlways prepends to every word.
	prependAlways prependScheme = iota
	// prependFirst prepends only to the word at offset 0 of the input.
	prependFirst
	// prependNever never prepends.
	prependNever
)

// metaspace holds the settings the "Metaspace" pre-tokenizer and decoder
// share.
type metaspace struct {
	replacement rune
	repl        string // replacement as a string
	scheme      prependScheme
	split       bool
}

// metaspaceSpec is the JSON form. add_prefix_space is the legacy spelling:
// false is only accepted together with prepend_scheme "never" (as in the
// reference); str_rep is a legacy field with no effect.
type metaspaceSpec struct {
	Type           string  `json:"type"`
	StrRep         *string `json:"str_rep"`
	Replacement    *string `json:"replacement"`
	AddPrefixSpace *bool   `json:"add_prefix_space"`
	PrependScheme  *string `json:"prepend_scheme"`
	Split          *bool   `json:"split"`
}

func parseMetaspace(path string, raw json.RawMessage) (metaspace, error) {
	var spec metaspaceSpec
	if err := decodeStrict(path, "Metaspace", raw, &spec); err != nil {
		return metaspace{}, err
	}
	m := metaspace{scheme: prependAlways, split: true}
	var errs []error
	switch {
	case spec.Replacement == nil:
		errs = append(errs, fmt.Errorf("%s.replacement: missing", path))
	case utf8.RuneCountInString(*spec.Replacement) != 1:
		errs = append(errs, fmt.Errorf("%s.replacement: %q is not exactly one character", path, *spec.Replacement))
	default:
		m.replacement, _ = utf8.DecodeRuneInString(*spec.Replacement)
		m.repl = *spec.Replacement
	}
	if spec.PrependScheme != nil {
		switch *spec.PrependScheme {
		case "always":
			m.scheme = prependAlways
		case "first":
			m.scheme = prependFirst
		case "never":
			m.scheme = prependNever
		default:
			errs = append(errs, fmt.Errorf("%s.prepend_scheme: unsupported value %q (supported: always, first, never)", path, *spec.PrependScheme))
		}
	}
	if spec.AddPrefixSpace != nil && !*spec.AddPrefixSpace && m.scheme != prependNever {
		errs = append(errs, fmt.Errorf("%s.add_prefix_space: false does not match prepend_scheme (it needs \"never\")", path))
	}
	if spec.Split != nil {
		m.split = *spec.Split
	}
	if len(errs) > 0 {
		return metaspace{}, errors.Join(errs...)
	}
	return m, nil
}

// metaspacePreTokenizer is the "Metaspace" pre-tokenizer: spaces become the
// replacement character, which is prepended to words per the scheme, and
// (when split is set) every replacement character starts a new word.
type metaspacePreTokenizer struct{ metaspace }

func newMetaspacePreTokenizer(path string, raw json.RawMessage) (preTokenizer, error) {
	m, err := parseMetaspace(path, raw)
	if err != nil {
		return nil, err
	}
	return metaspacePreTokenizer{m}, nil
}

func (m metaspacePreTokenizer) preTokenize(dst, src []word) []word {
	for _, w := range src {
		if w.text == "" {
			continue
		}
		text := strings.ReplaceAll(w.text, " ", m.repl)
		switch m.scheme {
		case prependAlways:
			if !strings.HasPrefix(text, m.repl) {
				text = m.repl + text
			}
		case prependFirst:
			if w.first && !strings.HasPrefix(text, m.repl) {
				text = m.repl + text
			}
		}
		nw := word{text: text, first: w.first}
		if !m.split {
			dst = append(dst, nw)
			continue
		}
		r := m.replacement
		dst = splitRunes(dst, nw, func(c rune) bool { return c == r }, delimMergedWithNext)
	}
	return dst
}

// metaspaceDecoder is the "Metaspace" decoder: replacement characters
// become spaces, except in the first token when the scheme prepends, where
// they are dropped.
type metaspaceDecoder struct{ metaspace }

func newMetaspaceDecoder(path string, raw json.RawMessage) (decoder, error) {
	m, err := parseMetaspace(path, raw)
	if err != nil {
		return nil, err
	}
	return metaspaceDecoder{m}, nil
}

func (m metaspaceDecoder) decodeChain(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		if i == 0 && m.scheme != prependNever {
			out[i] = strings.ReplaceAll(t, m.repl, "")
		} else {
			out[i] = strings.ReplaceAll(t, m.repl, " ")
		}
	}
	return out
}
