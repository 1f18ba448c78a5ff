// Package hf reads HuggingFace tokenizer.json files and encodes text with
// exactly the ids the Rust `tokenizers` library produces.
//
// The pipeline is HuggingFace's: added tokens are split out of the input
// first; every remaining section is normalized, pre-tokenized into words, and
// each word is tokenized by the model; the post-processor adds special tokens
// only when asked. Every component type the file names must be one this
// package implements: an unknown or unsupported component is an error that
// names it (its JSON path and "type"), never an approximation.
//
// The package is a leaf (standard library, regexp2 and x/text only). Its
// Tokenizer satisfies internal/tokenizer.Tokenizer structurally.
package hf

import "encoding/json"

// normalizer rewrites a section of text before it is pre-tokenized
// (HuggingFace "normalizer"). Implementations are immutable after
// construction and safe for concurrent use.
type normalizer interface {
	normalize(s string) string
}

// word is one pre-tokenized piece of a section of input.
type word struct {
	// text is the piece's (normalized) text.
	text string
	// first is true for a piece that starts at offset 0 of the original
	// input (Metaspace's prepend_scheme "first" needs it).
	first bool
}

// preTokenizer splits words into smaller words (HuggingFace
// "pre_tokenizer"). It appends the result for every word of src to dst and
// returns dst. Immutable and safe for concurrent use.
type preTokenizer interface {
	preTokenize(dst, src []word) []word
}

// model turns one pre-tokenized word into ids (HuggingFace "model": BPE,
// WordPiece, Unigram). Safe for concurrent use (any cache must be
// synchronised or per-call).
type model interface {
	// tokenize appends the ids of word to dst and returns dst.
	tokenize(dst []int, word string) []int
	// tokenToID returns the id of a vocabulary entry.
	tokenToID(token string) (int, bool)
	// idToToken returns the vocabulary entry of id.
	idToToken(id int) (string, bool)
	// vocabSize is the number of entries in the model's vocabulary.
	vocabSize() int
}

// decoder turns the token strings of a sequence of ids back into text
// pieces (HuggingFace Decoder::decode_chain); the caller concatenates them.
type decoder interface {
	decodeChain(tokens []string) []string
}

// postProcessor adds the special tokens of a single sequence when the
// caller asks for them (HuggingFace "post_processor"). The tokenizer never
// calls it for counting: AIPerf counts with add_special_tokens=False.
type postProcessor interface {
	process(ids []int) []int
}

// component is the common envelope of every component spec: its type name.
type component struct {
	Type string `json:"type"`
}

// newNormalizer builds the normalizer a spec describes; path names the spec
// in errors (e.g. "normalizer.normalizers[1]"). A null spec yields nil.
func newNormalizer(path string, raw json.RawMessage) (normalizer, error) {
	return buildComponent(path, raw, normalizerKinds())
}

// newPreTokenizer builds the pre-tokenizer a spec describes. A null spec
// yields nil.
func newPreTokenizer(path string, raw json.RawMessage) (preTokenizer, error) {
	return buildComponent(path, raw, preTokenizerKinds())
}

// newModel builds the model a spec describes; a model is required.
func newModel(path string, raw json.RawMessage) (model, error) {
	return buildComponent(path, raw, modelKinds())
}

// newDecoder builds the decoder a spec describes. A null spec yields nil.
func newDecoder(path string, raw json.RawMessage) (decoder, error) {
	return buildComponent(path, raw, decoderKinds())
}

// newPostProcessor builds the post-processor a spec describes. A null spec
// yields nil.
func newPostProcessor(path string, raw json.RawMessage) (postProcessor, error) {
	return buildComponent(path, raw, postProcessorKinds())
}

// builder constructs one component type from its JSON spec. path is the
// component's location for error messages.
type builder[T any] func(path string, raw json.RawMessage) (T, error)

// The kinds tables are the one place that lists which component types this
// package implements. A type missing here is reported as unsupported.

func normalizerKinds() map[string]builder[normalizer] {
	return map[string]builder[normalizer]{
		"Sequence":       newNormalizerSequence,
		"NFC":            newNFC,
		"NFKC":           newNFKC,
		"NFD":            newNFD,
		"NFKD":           newNFKD,
		"Replace":        newReplaceNormalizer,
		"Prepend":        newPrepend,
		"Lowercase":      newLowercase,
		"StripAccents":   newStripAccents,
		"Strip":          newStripNormalizer,
		"BertNormalizer": newBertNormalizer,
	}
}

func preTokenizerKinds() map[string]builder[preTokenizer] {
	return map[string]builder[preTokenizer]{
		"Sequence":         newPreTokenizerSequence,
		"ByteLevel":        newByteLevelPreTokenizer,
		"Split":            newSplit,
		"Metaspace":        newMetaspacePreTokenizer,
		"Whitespace":       newWhitespace,
		"WhitespaceSplit":  newWhitespaceSplit,
		"BertPreTokenizer": newBertPreTokenizer,
		"Digits":           newDigits,
		"Punctuation":      newPunctuation,
	}
}

func modelKinds() map[string]builder[model] {
	return map[string]builder[model]{
		"BPE":       newBPE,
		"WordPiece": newWordPiece,
		"Unigram":   newUnigram,
	}
}

func decoderKinds() map[string]builder[decoder] {
	return map[string]builder[decoder]{
		"Sequence":     newDecoderSequence,
		"ByteLevel":    newByteLevelDecoder,
		"ByteFallback": newByteFallbackDecoder,
		"Fuse":         newFuseDecoder,
		"Strip":        newStripDecoder,
		"Replace":      newReplaceDecoder,
		"Metaspace":    newMetaspaceDecoder,
		"WordPiece":    newWordPieceDecoder,
	}
}

func postProcessorKinds() map[string]builder[postProcessor] {
	return map[string]builder[postProcessor]{
		"Sequence":           newPostProcessorSequence,
		"ByteLevel":          newByteLevelPostProcessor,
		"TemplateProcessing": newTemplateProcessing,
		"BertProcessing":     newBertProcessing,
		"RobertaProcessing":  newRobertaProcessing,
	}
}
