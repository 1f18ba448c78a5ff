// Package tokenizer counts, encodes and decodes tokens on the client side.
//
// AIPerf counts input and output sequence lengths with the model's tokenizer
// (always without special tokens) rather than trusting the server, and cuts
// synthetic prompts from a corpus by token count. This package provides that
// contract and its built-in implementations. It is a leaf: it imports nothing
// internal.
package tokenizer

// Tokenizer turns text into token ids and back.
//
// Implementations never add special tokens (AIPerf encodes with
// add_special_tokens=False) and must be safe for concurrent use by many
// goroutines.
type Tokenizer interface {
	// Name identifies the tokenizer, e.g. "builtin (o200k_base)".
	Name() string
	// Encode returns the token ids of text.
	Encode(text string) []int
	// Decode returns the text of ids.
	Decode(ids []int) string
	// Count returns len(Encode(text)), possibly without materialising the ids.
	Count(text string) int
}
