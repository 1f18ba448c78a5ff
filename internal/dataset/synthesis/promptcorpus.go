package synthesis

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// Prompt corpora (--prompt-corpus), AIPerf's names.
const (
	// CorpusSonnet is the Shakespeare text (the default).
	CorpusSonnet = "sonnet"
	// CorpusCoding is generated coding content: source code in several
	// languages, tool output, diffs, tracebacks, JSON and coding requests
	// (the default of the agentic-coding trace formats).
	CorpusCoding = "coding"
	// CorpusRandom is the tokenizer's vocabulary itself: a prompt is a run
	// of consecutive token ids from a random offset, as vLLM's and SGLang's
	// random datasets build them.
	CorpusRandom = "random"
)

// Random corpus styles (--random-corpus-style): which token ids the random
// corpus uses.
const (
	// StyleVLLM leaves out the special tokens (vllm bench serve).
	StyleVLLM = "vllm"
	// StyleSGLang uses the whole vocabulary (SGLang's random-ids).
	StyleSGLang = "sglang"
)

// PromptCorpora lists the --prompt-corpus choices.
func PromptCorpora() []string { return []string{CorpusSonnet, CorpusCoding, CorpusRandom} }

// Vocabulary is what the random corpus needs to know about a tokenizer;
// tokenizers that cannot say fall back to the ids their encoding of the
// sonnet corpus uses.
type Vocabulary interface {
	// VocabSize is the number of token ids, special tokens included.
	VocabSize() int
	// IsSpecial reports whether id is a special (added, control) token.
	IsSpecial(id int) bool
}

// PromptCorpus is a stream of token ids that prompts and hash-id blocks
// are cut from (see corpus). Safe for concurrent use.
type PromptCorpus struct {
	name string
	c    *Corpus
}

// Name is the corpus's --prompt-corpus name.
func (p *PromptCorpus) Name() string { return p.name }

func (p *PromptCorpus) Tokens() *Corpus { return p.c }

// NewPromptCorpus returns the corpus name ("" means CorpusSonnet) as
// tokenized by tok; style picks the random corpus's ids ("" means
// StyleVLLM).
func NewPromptCorpus(name, style string, tok tokenizer.Tokenizer) (*PromptCorpus, error) {
	switch name {
	case "", CorpusSonnet:
		c, err := newCorpus(tok)
		if err != nil {
			return nil, err
		}
		return &PromptCorpus{name: CorpusSonnet, c: c}, nil
	case CorpusCoding:
		return &PromptCorpus{name: CorpusCoding, c: codingCorpus(tok)}, nil
	case CorpusRandom:
		ids, err := randomCorpusIDs(style, tok)
		if err != nil {
			return nil, err
		}
		return &PromptCorpus{name: CorpusRandom, c: newTokenCorpus(tok, ids)}, nil
	}
	return nil, fmt.Errorf("unknown prompt corpus %q (want %s)", name, strings.Join(PromptCorpora(), ", "))
}

// DefaultCorpus is the sonnet corpus.
func DefaultCorpus(tok tokenizer.Tokenizer) (*PromptCorpus, error) {
	return NewPromptCorpus(CorpusSonnet, "", tok)
}

// randomCorpusIDs is the sorted id list of the random corpus: every id of
// the vocabulary (sglang) or every non-special one (vllm). A tokenizer
// without a Vocabulary gives the distinct ids of its sonnet encoding.
func randomCorpusIDs(style string, tok tokenizer.Tokenizer) ([]int, error) {
	switch style {
	case "", StyleVLLM, StyleSGLang:
	default:
		return nil, fmt.Errorf("unknown random corpus style %q (want %s or %s)", style, StyleVLLM, StyleSGLang)
	}
	if v, ok := tok.(Vocabulary); ok && v.VocabSize() > 0 {
		ids := make([]int, 0, v.VocabSize())
		for id := range v.VocabSize() {
			if style == StyleSGLang || !v.IsSpecial(id) {
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
	chunks, err := corpusChunks()
	if err != nil {
		return nil, err
	}
	seen := map[int]bool{}
	for _, ch := range chunks[:min(len(chunks), 64)] {
		for _, id := range tok.Encode(ch) {
			seen[id] = true
		}
	}
	ids := make([]int, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids, nil
}

// newTokenCorpus is a corpus that is already a token stream (one chunk
// whose ids are given, never tokenized).
func newTokenCorpus(tok tokenizer.Tokenizer, ids []int) *Corpus {
	c := newCorpusFrom(tok, []string{""}, []int{len(ids)})
	c.tokens[0].once.Do(func() { c.tokens[0].ids = ids })
	return c
}

// codingCorpora caches the tokenized coding corpus per tokenizer, as
// newCorpus caches the sonnet one (tokenizing it costs about a second).
var codingCorpora struct {
	sync.Mutex
	entries []*Corpus
}

func codingCorpus(tok tokenizer.Tokenizer) *Corpus {
	codingCorpora.Lock()
	defer codingCorpora.Unlock()
	for _, c := range codingCorpora.entries {
		if c.tok == tok {
			return c
		}
	}
	c := newCorpusFrom(tok, codingChunks(), nil)
	if len(codingCorpora.entries) == corpusCacheSize {
		codingCorpora.entries = codingCorpora.entries[1:]
	}
	codingCorpora.entries = append(codingCorpora.entries, c)
	return c
}

// codingChunks is the coding corpus text in chunks, generated once.
var codingChunks = sync.OnceValue(func() []string { return generateCodingCorpus(codingCorpusBlocks) })
