package hf

import (
	"encoding/json"
	"unicode/utf8"
)

// whitespacePreTokenizer is the "Whitespace" pre-tokenizer: the words are
// the matches of the regex \w+|[^\w\s]+ (Unicode classes), everything else
// (whitespace) is dropped. It is written as a scanner, not a regex: Go's
// regexp has ASCII-only \w.
type whitespacePreTokenizer struct{}

func newWhitespace(path string, raw json.RawMessage) (preTokenizer, error) {
	if err := noOptions(path, "Whitespace", raw); err != nil {
		return nil, err
	}
	return whitespacePreTokenizer{}, nil
}

// charKind classifies a character for the Whitespace scanner.
type charKind int

const (
	kindWord charKind = iota
	kindSpace
	kindOther
)

func whitespaceKind(r rune) charKind {
	switch {
	case isWordChar(r):
		return kindWord
	case isRustWhitespace(r):
		return kindSpace
	}
	return kindOther
}

func (whitespacePreTokenizer) preTokenize(dst, src []word) []word {
	for _, w := range src {
		s := w.text
		start, cur := 0, kindSpace
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			k := whitespaceKind(r)
			if k != cur {
				if cur != kindSpace && start < i {
					dst = append(dst, word{text: s[start:i], first: w.first && start == 0})
				}
				start, cur = i, k
			}
			i += n
		}
		if cur != kindSpace && start < len(s) {
			dst = append(dst, word{text: s[start:], first: w.first && start == 0})
		}
	}
	return dst
}

// whitespaceSplit is the "WhitespaceSplit" pre-tokenizer: it splits on
// whitespace (Rust char::is_whitespace) and drops it.
type whitespaceSplit struct{}

func newWhitespaceSplit(path string, raw json.RawMessage) (preTokenizer, error) {
	if err := noOptions(path, "WhitespaceSplit", raw); err != nil {
		return nil, err
	}
	return whitespaceSplit{}, nil
}

func (whitespaceSplit) preTokenize(dst, src []word) []word {
	for _, w := range src {
		dst = splitRunes(dst, w, isRustWhitespace, delimRemoved)
	}
	return dst
}
