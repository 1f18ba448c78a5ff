package tokenizer

import (
	"strings"
	"sync"
)

// BuiltinName is the Name of the built-in tokenizer.
const BuiltinName = "builtin (o200k_base)"

// o200kOrdinaryTokens is the number of ordinary (byte-pair) tokens in
// o200k_base. Their ids are dense: 0 through o200kOrdinaryTokens-1. Id 199998
// and 200000..200017 are unassigned; the special tokens live above the
// ordinary range.
const o200kOrdinaryTokens = 199998

// specialToken is one of an encoding's special tokens: control markers whose
// literal text maps to a single id outside the byte-pair vocabulary.
type specialToken struct {
	text string
	id   int
}

// o200kSpecialTokens returns o200k_base's special tokens, as tiktoken defines
// them. Every literal starts with specialPrefix. (A function rather than a
// package variable, so the table cannot be mutated.)
func o200kSpecialTokens() [2]specialToken {
	return [2]specialToken{
		{"<|endoftext|>", 199999},
		{"<|endofprompt|>", 200018},
	}
}

// specialPrefix starts every special token's literal text; text without it
// needs no special-token scan.
const specialPrefix = "<|"

// Builtin returns the built-in tokenizer: OpenAI's tiktoken o200k_base
// encoding, embedded in the binary so it works offline. AIPerf uses the same
// encoding for --tokenizer builtin and for placeholder model names.
//
// Encoding matches AIPerf's tiktoken backend, which calls tiktoken with
// allowed_special="all": no special token is ever added, but the literal text
// of a special token in the input ("<|endoftext|>", "<|endofprompt|>") is
// encoded as that special token's single id, not as ordinary text. Input
// that is not valid UTF-8 is first cleaned the way Python's
// bytes.decode(errors="replace") would, so Encode(s) equals the encoding of
// the string Python would see.
//
// The vocabulary (about 200,000 entries) is a precomputed table embedded in
// the binary (o200ktable.go), so neither Builtin nor the first Encode pays to
// load it; it is shared by every tokenizer Builtin returns. The result is
// safe for concurrent use: all its state is read-only.
func Builtin() (Tokenizer, error) {
	return &builtin{vocab: o200kVocabulary}, nil
}

// o200kVocabulary checks the embedded o200k_base tables once per process, on
// first use, and then always returns the same read-only value: a lazily
// computed constant rather than mutable state.
var o200kVocabulary = sync.OnceValue(o200kVocabularyFromTables)

// builtin is the o200k_base Tokenizer.
type builtin struct {
	vocab func() *vocabulary // the shared table
}

// Name implements Tokenizer.
func (b *builtin) Name() string { return BuiltinName }

// Encode implements Tokenizer.
func (b *builtin) Encode(text string) []int {
	v := b.vocab()
	ids := make([]int, 0, len(text)/4+1)
	forEachSegment(toValidUTF8(text), func(plain string) {
		for len(plain) > 0 {
			n := nextPiece(plain)
			ids = v.appendPiece(ids, plain[:n])
			plain = plain[n:]
		}
	}, func(id int) {
		ids = append(ids, id)
	})
	return ids
}

// Count implements Tokenizer. It allocates nothing for valid UTF-8 input.
func (b *builtin) Count(text string) int {
	v := b.vocab()
	text = toValidUTF8(text)
	if !strings.Contains(text, specialPrefix) {
		return v.countPlain(text)
	}
	total := 0
	forEachSegment(text, func(plain string) {
		total += v.countPlain(plain)
	}, func(int) {
		total++
	})
	return total
}

// countPlain counts the tokens of text that holds no special token.
func (v *vocabulary) countPlain(text string) int {
	total := 0
	for len(text) > 0 {
		n := nextPiece(text)
		total += v.countPiece(text[:n])
		text = text[n:]
	}
	return total
}

// Decode implements Tokenizer. Byte sequences that are not valid UTF-8 (a
// window that starts or ends inside a multi-byte character) become U+FFFD, as
// tiktoken's decode does. Ids outside the encoding are skipped: tiktoken
// raises an error for them, and the interface has no error to return.
func (b *builtin) Decode(ids []int) string {
	v := b.vocab()
	buf := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		switch {
		case id >= 0 && id < v.n:
			buf = append(buf, v.token(id)...)
		default:
			if text, ok := specialText(id); ok {
				buf = append(buf, text...)
			}
		}
	}
	return toValidUTF8(string(buf))
}

// specialText returns the literal text of special token id.
func specialText(id int) (string, bool) {
	for _, s := range o200kSpecialTokens() {
		if s.id == id {
			return s.text, true
		}
	}
	return "", false
}

// forEachSegment splits text at the literal text of special tokens. In order,
// it calls plain for each non-empty run of ordinary text and special for each
// special token found.
func forEachSegment(text string, plain func(string), special func(id int)) {
	for len(text) > 0 {
		at, id, size := nextSpecial(text)
		if at < 0 {
			plain(text)
			return
		}
		if at > 0 {
			plain(text[:at])
		}
		special(id)
		text = text[at+size:]
	}
}

// nextSpecial finds the leftmost special token in text and returns its byte
// offset, id and length; at is -1 when there is none.
func nextSpecial(text string) (at, id, size int) {
	for from := 0; ; {
		i := strings.Index(text[from:], specialPrefix)
		if i < 0 {
			return -1, 0, 0
		}
		at = from + i
		for _, s := range o200kSpecialTokens() {
			if strings.HasPrefix(text[at:], s.text) {
				return at, s.id, len(s.text)
			}
		}
		from = at + len(specialPrefix)
	}
}
