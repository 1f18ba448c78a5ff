package hf

import (
	"encoding/json"
)

// digits is the "Digits" pre-tokenizer: numeric characters (Rust
// char::is_numeric) are split from the rest, one per word when
// individual_digits is set, else as runs.
type digits struct {
	individual bool
}

type digitsSpec struct {
	Type             string `json:"type"`
	IndividualDigits *bool  `json:"individual_digits"`
}

func newDigits(path string, raw json.RawMessage) (preTokenizer, error) {
	var spec digitsSpec
	if err := decodeStrict(path, "Digits", raw, &spec); err != nil {
		return nil, err
	}
	if err := requireFields(path, map[string]bool{"individual_digits": spec.IndividualDigits != nil}); err != nil {
		return nil, err
	}
	return digits{individual: *spec.IndividualDigits}, nil
}

func (d digits) preTokenize(dst, src []word) []word {
	mode := delimContiguous
	if d.individual {
		mode = delimIsolated
	}
	for _, w := range src {
		dst = splitRunes(dst, w, isNumeric, mode)
	}
	return dst
}
