package hf

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Metaspace's prepend_scheme "first" prepends only to a word whose first
// character sits at offset 0 of the ORIGINAL input. A normalizer that
// deletes the leading characters (a combining mark under StripAccents, a
// control character under BertNormalizer, whitespace under Strip, a match
// replaced by "" under Replace) moves the start of the normalized text off
// offset 0, and the reference then does not prepend. Characters that are
// replaced or inserted keep the offset of what they replace, so only
// deletion matters.

// startKeeper is implemented by normalizers that can delete the first
// characters of a text.
type startKeeper interface {
	// keepsStart reports whether the first character of normalize(s)
	// still comes from offset 0 of s (true for an empty s).
	keepsStart(s string) bool
}

// normalizerKeepsStart reports whether n keeps the start of s at offset 0;
// a nil normalizer, or one that never deletes, does. A Sequence keeps it
// when each step keeps it on the output of the steps before.
func normalizerKeepsStart(n normalizer, s string) bool {
	switch n := n.(type) {
	case nil:
		return true
	case normalizerSequence:
		for _, m := range n {
			if !normalizerKeepsStart(m, s) {
				return false
			}
			s = m.normalize(s)
		}
		return true
	case startKeeper:
		return n.keepsStart(s)
	}
	return true
}

// needsFirstFlag reports whether p looks at word.first (a Metaspace with
// prepend_scheme "first", alone or in a Sequence), so that the pipeline
// need not compute normalizerKeepsStart otherwise.
func needsFirstFlag(p preTokenizer) bool {
	switch p := p.(type) {
	case metaspacePreTokenizer:
		return p.scheme == prependFirst
	case preTokenizerSequence:
		for _, q := range p {
			if needsFirstFlag(q) {
				return true
			}
		}
	}
	return false
}

func (stripAccents) keepsStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s == "" || !isCombiningMark(r)
}

func (n bertNormalizer) keepsStart(s string) bool {
	if s == "" {
		return true
	}
	r, size := utf8.DecodeRuneInString(s)
	if n.cleanText && isBertRemoved(r) {
		return false
	}
	if n.stripAccents && !(n.chineseChars && isChineseChar(r)) {
		// The first character survives accent stripping unless its
		// decomposition is nothing but nonspacing marks.
		for _, d := range norm.NFD.String(s[:size]) {
			if !isNonspacingMark(d) {
				return true
			}
		}
		return false
	}
	return true
}

func (n stripNormalizer) keepsStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s == "" || !n.left || !isRustWhitespace(r)
}

func (r replaceNormalizer) keepsStart(s string) bool {
	if r.content != "" || s == "" {
		return true
	}
	m := r.pat.matches(nil, s)
	return len(m) == 0 || m[0][0] != 0 || m[0][1] == 0
}
