package hf

import (
	"errors"
	"os"
)

// Tokenizer is a loaded tokenizer.json. It is immutable after Parse and
// safe for concurrent use.
//
// PLACEHOLDER: the real implementation replaces this file.
type Tokenizer struct {
	name string
}

// Load reads and parses the tokenizer.json at path; Name is the path.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse builds a tokenizer from the contents of a tokenizer.json; name is
// what Name returns.
func Parse(name string, data []byte) (*Tokenizer, error) {
	return nil, errors.New("tokenizer.json reader: not implemented yet")
}

// Name identifies the tokenizer (its path or hub id).
func (t *Tokenizer) Name() string { return t.name }

// Encode returns the ids of text without special tokens, as HuggingFace's
// encode(text, add_special_tokens=False).
func (t *Tokenizer) Encode(text string) []int { return nil }

// EncodeWithSpecialTokens returns the ids of text with the special tokens
// the post-processor adds, as encode(text, add_special_tokens=True).
func (t *Tokenizer) EncodeWithSpecialTokens(text string) []int { return nil }

// Count returns len(Encode(text)).
func (t *Tokenizer) Count(text string) int { return 0 }

// Decode returns the text of ids, as decode(ids, skip_special_tokens=False).
func (t *Tokenizer) Decode(ids []int) string { return "" }

// TokenID returns the id of a vocabulary entry or added token.
func (t *Tokenizer) TokenID(token string) (int, bool) { return 0, false }
