package hf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// Tokenizer is a loaded tokenizer.json. It is immutable after Parse (its
// model's word cache is internally synchronised) and safe for concurrent
// use.
type Tokenizer struct {
	name  string
	added *addedVocab
	norm  normalizer
	pre   preTokenizer
	// firstMatters is set when the pre-tokenizer treats the word at
	// offset 0 of the input specially (Metaspace prepend_scheme "first").
	firstMatters bool
	model        model
	dec          decoder
	post         postProcessor
	// digest is the SHA-256 of the tokenizer.json it was parsed from.
	digest [sha256.Size]byte
	// scratch pools per-call buffers of words and pieces.
	scratch sync.Pool
}

// encodeScratch is the reusable state of one Encode call.
type encodeScratch struct {
	words  []word
	raw    []addedPiece
	normed []addedPiece
	ids    []int
}

// tokenizerFile is the top level of a tokenizer.json less its model,
// which is cut out separately (it is most of the file). truncation and
// padding are accepted and ignored: AIPerf encodes through transformers,
// which turns both off for a plain encode, so they never change a count.
type tokenizerFile struct {
	Version       string            `json:"version"`
	Truncation    json.RawMessage   `json:"truncation"`
	Padding       json.RawMessage   `json:"padding"`
	AddedTokens   []json.RawMessage `json:"added_tokens"`
	Normalizer    json.RawMessage   `json:"normalizer"`
	PreTokenizer  json.RawMessage   `json:"pre_tokenizer"`
	PostProcessor json.RawMessage   `json:"post_processor"`
	Decoder       json.RawMessage   `json:"decoder"`
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
// what Name returns. Every component the file names must be supported and
// every option known: anything else is an error naming its JSON path.
func Parse(name string, data []byte) (*Tokenizer, error) {
	var f tokenizerFile
	big, err := decodeLarge("tokenizer.json", "top level", data, &f, "model")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t, err := build(&f, big["model"])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.name = name
	t.digest = sha256.Sum256(data)
	return t, nil
}

// Fingerprint identifies what the tokenizer encodes with: the SHA-256 of
// its tokenizer.json, from which Encode's results follow entirely. Callers
// that cache results derived from encodings (the prompt corpus's token
// counts) key them by it, together with the identity of this code.
func (t *Tokenizer) Fingerprint() string {
	return "tokenizer.json-sha256:" + hex.EncodeToString(t.digest[:])
}

func build(f *tokenizerFile, modelSpec json.RawMessage) (*Tokenizer, error) {
	if len(bytes.TrimSpace(modelSpec)) == 0 || bytes.Equal(bytes.TrimSpace(modelSpec), []byte("null")) {
		return nil, fmt.Errorf("model: missing")
	}
	t := &Tokenizer{}
	var err error
	if t.model, err = newModel("model", modelSpec); err != nil {
		return nil, err
	}
	if t.norm, err = newNormalizer("normalizer", f.Normalizer); err != nil {
		return nil, err
	}
	if t.pre, err = newPreTokenizer("pre_tokenizer", f.PreTokenizer); err != nil {
		return nil, err
	}
	t.firstMatters = needsFirstFlag(t.pre)
	if t.dec, err = newDecoder("decoder", f.Decoder); err != nil {
		return nil, err
	}
	if t.post, err = newPostProcessor("post_processor", f.PostProcessor); err != nil {
		return nil, err
	}
	tokens := make([]addedToken, len(f.AddedTokens))
	for i, raw := range f.AddedTokens {
		if err := decodeStrict(fmt.Sprintf("added_tokens[%d]", i), "added token", raw, &tokens[i]); err != nil {
			return nil, err
		}
	}
	t.added = newAddedVocab(tokens, t.model, t.norm)
	return t, nil
}

// Name identifies the tokenizer (its path or hub id).
func (t *Tokenizer) Name() string { return t.name }

// Encode returns the ids of text without special tokens, as HuggingFace's
// encode(text, add_special_tokens=False). Invalid UTF-8 in text is first
// replaced as Rust's from_utf8_lossy would (a Rust or Python string cannot
// hold it).
func (t *Tokenizer) Encode(text string) []int {
	s := t.getScratch()
	ids := t.encode(nil, text, s)
	t.scratch.Put(s)
	return ids
}

// EncodeWithSpecialTokens returns the ids of text with the special tokens
// the post-processor adds, as encode(text, add_special_tokens=True).
func (t *Tokenizer) EncodeWithSpecialTokens(text string) []int {
	ids := t.Encode(text)
	if t.post != nil {
		ids = t.post.process(ids)
	}
	return ids
}

// Count returns len(Encode(text)) without keeping the ids.
func (t *Tokenizer) Count(text string) int {
	s := t.getScratch()
	s.ids = t.encode(s.ids[:0], text, s)
	n := len(s.ids)
	t.scratch.Put(s)
	return n
}

func (t *Tokenizer) getScratch() *encodeScratch {
	if s, ok := t.scratch.Get().(*encodeScratch); ok {
		return s
	}
	return &encodeScratch{}
}

// encode appends the ids of text to dst: added tokens are split out of
// the raw text, every other section is normalized, split again by the
// normalized added tokens, pre-tokenized into words and each word handed
// to the model.
func (t *Tokenizer) encode(dst []int, text string, s *encodeScratch) []int {
	if !utf8.ValidString(text) {
		text = lossyString([]byte(text))
	}
	s.raw = t.added.raw.split(s.raw[:0], text)
	for _, p := range s.raw {
		if p.id >= 0 {
			dst = append(dst, p.id)
			continue
		}
		section := text[p.start:p.end]
		if t.norm != nil {
			section = t.norm.normalize(section)
		}
		s.normed = t.added.norm.split(s.normed[:0], section)
		for _, q := range s.normed {
			if q.id >= 0 {
				dst = append(dst, q.id)
				continue
			}
			w := word{text: section[q.start:q.end], first: p.start == 0 && q.start == 0}
			if w.first && t.firstMatters {
				w.first = normalizerKeepsStart(t.norm, text[p.start:p.end])
			}
			if t.pre == nil {
				dst = t.model.tokenize(dst, w.text)
				continue
			}
			s.words = t.pre.preTokenize(s.words[:0], []word{w})
			for _, x := range s.words {
				dst = t.model.tokenize(dst, x.text)
			}
		}
	}
	return dst
}

// Decode returns the text of ids, as decode(ids, skip_special_tokens=False):
// each id becomes its token (added tokens first, then the model's
// vocabulary; unknown ids are skipped) and the decoder joins them. Without
// a decoder the tokens are joined with spaces, as HuggingFace does.
func (t *Tokenizer) Decode(ids []int) string {
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		if tok, ok := t.idToToken(id); ok {
			tokens = append(tokens, tok)
		}
	}
	if t.dec == nil {
		return strings.Join(tokens, " ")
	}
	return strings.Join(t.dec.decodeChain(tokens), "")
}

// TokenID returns the id of a vocabulary entry or added token.
func (t *Tokenizer) TokenID(token string) (int, bool) {
	if id, ok := t.added.tokenToID(token); ok {
		return id, true
	}
	return t.model.tokenToID(token)
}

// idToToken returns the token of id, added tokens first.
func (t *Tokenizer) idToToken(id int) (string, bool) {
	if tok, ok := t.added.idToToken(id); ok {
		return tok, true
	}
	return t.model.idToToken(id)
}
