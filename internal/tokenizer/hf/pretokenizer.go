package hf

import "encoding/json"

// preTokenizerSequence applies its pre-tokenizers in order, each to every
// word the previous one produced ("Sequence").
type preTokenizerSequence []preTokenizer

func newPreTokenizerSequence(path string, raw json.RawMessage) (preTokenizer, error) {
	seq, err := newSequence(path, "pretokenizers", raw, newPreTokenizer)
	if err != nil {
		return nil, err
	}
	return preTokenizerSequence(seq), nil
}

func (s preTokenizerSequence) preTokenize(dst, src []word) []word {
	switch len(s) {
	case 0:
		return append(dst, src...)
	case 1:
		return s[0].preTokenize(dst, src)
	}
	cur := src
	var a, b []word
	for i, p := range s {
		if i == len(s)-1 {
			return p.preTokenize(dst, cur)
		}
		a = p.preTokenize(a[:0], cur)
		cur, a, b = a, b, a
	}
	return dst
}

// split is the "Split" pre-tokenizer: it finds the matches of a pattern
// (or, with invert, the text between them) and splits each word by its
// behaviour.
type split struct {
	pat    *pattern
	mode   delimiterMode
	invert bool
}

func newSplit(path string, raw json.RawMessage) (preTokenizer, error) {
	var spec struct {
		Type     string          `json:"type"`
		Pattern  json.RawMessage `json:"pattern"`
		Behavior string          `json:"behavior"`
		Invert   bool            `json:"invert"`
	}
	if err := decodeStrict(path, "Split", raw, &spec); err != nil {
		return nil, err
	}
	pat, err := newPattern(path+".pattern", spec.Pattern)
	if err != nil {
		return nil, err
	}
	mode, err := parseDelimiterMode(path, spec.Behavior)
	if err != nil {
		return nil, err
	}
	return &split{pat: pat, mode: mode, invert: spec.Invert}, nil
}

func (s *split) preTokenize(dst, src []word) []word {
	var ms [][2]int
	var spans []span
	for _, w := range src {
		ms = s.pat.matches(ms[:0], w.text)
		if s.mode == delimIsolated {
			// Every match and gap is its own piece; invert changes nothing.
			dst = isolatePieces(dst, w, w.text, ms, keepText)
			continue
		}
		spans = spans[:0]
		prev := 0
		for _, m := range ms {
			if prev != m[0] {
				spans = append(spans, span{prev, m[0], s.invert})
			}
			spans = append(spans, span{m[0], m[1], !s.invert})
			prev = m[1]
		}
		if prev != len(w.text) || len(spans) == 0 {
			spans = append(spans, span{prev, len(w.text), s.invert && len(w.text) > 0})
		}
		for _, sp := range mergeSpans(spans, s.mode) {
			if sp.start < sp.end {
				dst = append(dst, word{text: w.text[sp.start:sp.end], first: w.first && sp.start == 0})
			}
		}
	}
	return dst
}

// keepText is the identity conversion for pieces kept as they are.
func keepText(s string) string { return s }
