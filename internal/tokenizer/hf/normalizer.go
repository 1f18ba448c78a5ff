package hf

import (
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// normalizerSequence applies its normalizers in order ("Sequence").
type normalizerSequence []normalizer

func newNormalizerSequence(path string, raw json.RawMessage) (normalizer, error) {
	seq, err := newSequence(path, "normalizers", raw, newNormalizer)
	if err != nil {
		return nil, err
	}
	return normalizerSequence(seq), nil
}

func (s normalizerSequence) normalize(text string) string {
	for _, n := range s {
		text = n.normalize(text)
	}
	return text
}

// unicodeForm is one of the four Unicode normalization forms ("NFC",
// "NFKC", "NFD", "NFKD"). x/text returns its input unchanged, without
// copying, when it is already in the form.
type unicodeForm struct{ form norm.Form }

func (u unicodeForm) normalize(s string) string { return u.form.String(s) }

// newForm builds the normalizer of a form that takes no options.
func newForm(typ string, form norm.Form) builder[normalizer] {
	return func(path string, raw json.RawMessage) (normalizer, error) {
		var spec struct {
			Type string `json:"type"`
		}
		if err := decodeStrict(path, typ, raw, &spec); err != nil {
			return nil, err
		}
		return unicodeForm{form}, nil
	}
}

func newNFC(path string, raw json.RawMessage) (normalizer, error) {
	return newForm("NFC", norm.NFC)(path, raw)
}

func newNFKC(path string, raw json.RawMessage) (normalizer, error) {
	return newForm("NFKC", norm.NFKC)(path, raw)
}

func newNFD(path string, raw json.RawMessage) (normalizer, error) {
	return newForm("NFD", norm.NFD)(path, raw)
}

func newNFKD(path string, raw json.RawMessage) (normalizer, error) {
	return newForm("NFKD", norm.NFKD)(path, raw)
}

// replaceNormalizer replaces every match of a pattern with content
// ("Replace"; Llama-2 and Gemma turn spaces into "▁" with it).
type replaceNormalizer struct {
	pat     *pattern
	content string
}

// replaceSpec is the spec shared by the Replace normalizer and decoder.
type replaceSpec struct {
	Type    string          `json:"type"`
	Pattern json.RawMessage `json:"pattern"`
	Content *string         `json:"content"`
}

// parseReplace reads a Replace spec of either kind.
func parseReplace(path string, raw json.RawMessage) (*pattern, string, error) {
	var spec replaceSpec
	if err := decodeStrict(path, "Replace", raw, &spec); err != nil {
		return nil, "", err
	}
	if spec.Content == nil {
		return nil, "", fmt.Errorf("%s (Replace): missing content", path)
	}
	pat, err := newPattern(path+".pattern", spec.Pattern)
	if err != nil {
		return nil, "", err
	}
	return pat, *spec.Content, nil
}

func newReplaceNormalizer(path string, raw json.RawMessage) (normalizer, error) {
	pat, content, err := parseReplace(path, raw)
	if err != nil {
		return nil, err
	}
	return replaceNormalizer{pat, content}, nil
}

func (r replaceNormalizer) normalize(s string) string { return r.pat.replaceAll(s, r.content) }

// prepend puts a fixed string before every non-empty section ("Prepend").
type prepend struct{ prefix string }

func newPrepend(path string, raw json.RawMessage) (normalizer, error) {
	var spec struct {
		Type    string  `json:"type"`
		Prepend *string `json:"prepend"`
	}
	if err := decodeStrict(path, "Prepend", raw, &spec); err != nil {
		return nil, err
	}
	if spec.Prepend == nil {
		return nil, fmt.Errorf("%s (Prepend): missing prepend", path)
	}
	return prepend{*spec.Prepend}, nil
}

func (p prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return p.prefix + s
}

// stripNormalizer removes leading and/or trailing whitespace (Rust's
// char::is_whitespace) ("Strip").
type stripNormalizer struct{ left, right bool }

func newStripNormalizer(path string, raw json.RawMessage) (normalizer, error) {
	var spec struct {
		Type       string `json:"type"`
		StripLeft  bool   `json:"strip_left"`
		StripRight bool   `json:"strip_right"`
	}
	if err := decodeStrict(path, "Strip", raw, &spec); err != nil {
		return nil, err
	}
	return stripNormalizer{spec.StripLeft, spec.StripRight}, nil
}

func (s stripNormalizer) normalize(text string) string {
	if s.left {
		text = strings.TrimLeftFunc(text, isRustWhitespace)
	}
	if s.right {
		text = strings.TrimRightFunc(text, isRustWhitespace)
	}
	return text
}
