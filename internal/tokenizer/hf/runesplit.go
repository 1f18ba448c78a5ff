package hf

import (
	"fmt"
	"unicode/utf8"
)

// delimiterMode is what a character-class split does with each delimiter
// character (HuggingFace SplitDelimiterBehavior, as applied to a pattern
// that matches one character at a time).
type delimiterMode int

const (
	// delimRemoved drops every delimiter.
	delimRemoved delimiterMode = iota
	// delimIsolated makes every delimiter a piece of its own.
	delimIsolated
	// delimMergedWithPrevious appends a delimiter to the piece before it;
	// a delimiter that follows another delimiter stands alone.
	delimMergedWithPrevious
	// delimMergedWithNext prepends a delimiter to the piece after it; a
	// delimiter followed by another delimiter stands alone.
	delimMergedWithNext
	// delimContiguous makes every run of delimiters one piece.
	delimContiguous
)

// parseDelimiterMode reads a "behavior" value as tokenizer.json spells it.
func parseDelimiterMode(path, s string) (delimiterMode, error) {
	switch s {
	case "Removed":
		return delimRemoved, nil
	case "Isolated":
		return delimIsolated, nil
	case "MergedWithPrevious":
		return delimMergedWithPrevious, nil
	case "MergedWithNext":
		return delimMergedWithNext, nil
	case "Contiguous":
		return delimContiguous, nil
	}
	return 0, fmt.Errorf("%s.behavior: unsupported value %q (supported: Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)", path, s)
}

// span is a byte range of a word; delim marks a delimiter character.
type span struct {
	start, end int
	delim      bool
}

// splitRunes appends the pieces of w that splitting at every character
// for which isDelim holds yields, under mode. Empty pieces are never
// produced. A piece is first only when w is and it starts at byte 0.
func splitRunes(dst []word, w word, isDelim func(rune) bool, mode delimiterMode) []word {
	s := w.text
	var buf [32]span
	spans := buf[:0]
	last := 0
	for i, r := range s {
		if !isDelim(r) {
			continue
		}
		if last < i {
			spans = append(spans, span{last, i, false})
		}
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			// A string from a []byte may hold invalid bytes; range yields
			// one byte for each.
			_, n = utf8.DecodeRuneInString(s[i:])
		}
		spans = append(spans, span{i, i + n, true})
		last = i + n
	}
	if last < len(s) {
		spans = append(spans, span{last, len(s), false})
	}
	spans = mergeSpans(spans, mode)
	for _, sp := range spans {
		if sp.start == sp.end {
			continue
		}
		dst = append(dst, word{text: s[sp.start:sp.end], first: w.first && sp.start == 0})
	}
	return dst
}

// mergeSpans applies mode to a split's alternating spans and returns the
// pieces to keep (delim is false on every result).
func mergeSpans(spans []span, mode delimiterMode) []span {
	out := spans[:0]
	switch mode {
	case delimRemoved:
		for _, sp := range spans {
			if !sp.delim {
				out = append(out, sp)
			}
		}
	case delimIsolated:
		out = spans
	case delimMergedWithPrevious:
		prevDelim := false
		for _, sp := range spans {
			if sp.delim && !prevDelim && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, span{sp.start, sp.end, false})
			}
			prevDelim = sp.delim
		}
	case delimMergedWithNext:
		// Walk backwards, merging a delimiter into the piece after it,
		// then restore the order.
		prevDelim := false
		rev := make([]span, 0, len(spans))
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.delim && !prevDelim && len(rev) > 0 {
				rev[len(rev)-1].start = sp.start
			} else {
				rev = append(rev, span{sp.start, sp.end, false})
			}
			prevDelim = sp.delim
		}
		for i := len(rev) - 1; i >= 0; i-- {
			out = append(out, rev[i])
		}
	case delimContiguous:
		prevDelim := false
		for _, sp := range spans {
			if sp.delim == prevDelim && len(out) > 0 {
				out[len(out)-1].end = sp.end
			} else {
				out = append(out, span{sp.start, sp.end, false})
			}
			prevDelim = sp.delim
		}
	}
	return out
}
