package hf

import (
	"encoding/json"
)

// punctuation is the "Punctuation" pre-tokenizer: it splits at every
// punctuation character (ASCII punctuation or Unicode category P) with the
// configured behaviour (Isolated when absent).
type punctuation struct {
	mode delimiterMode
}

type punctuationSpec struct {
	Type     string  `json:"type"`
	Behavior *string `json:"behavior"`
}

func newPunctuation(path string, raw json.RawMessage) (preTokenizer, error) {
	var spec punctuationSpec
	if err := decodeStrict(path, "Punctuation", raw, &spec); err != nil {
		return nil, err
	}
	p := punctuation{mode: delimIsolated}
	if spec.Behavior != nil {
		m, err := parseDelimiterMode(path, *spec.Behavior)
		if err != nil {
			return nil, err
		}
		p.mode = m
	}
	return p, nil
}

func (p punctuation) preTokenize(dst, src []word) []word {
	for _, w := range src {
		dst = splitRunes(dst, w, isPunctuation, p.mode)
	}
	return dst
}
