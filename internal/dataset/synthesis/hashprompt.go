package synthesis

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"

	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// promptRequest asks for a prompt of length tokens, built from hash-id
// blocks when hashIDs is non-empty.
type PromptRequest struct {
	Length  int
	HashIDs []int
	// where names the request in errors (file, line, field).
	File string
	Line int
}

// hashPrompts builds trace prompts as AIPerf does: a prompt of n tokens
// with hash ids h1..hm is m blocks of blockSize corpus tokens, the last
// one shortened to n-(m-1)*blockSize (or, when n exceeds m*blockSize,
// every block full and the rest fresh tokens). Blocks come from a
// sharedBlocks scoped to the trace's content hash, so prompts sharing a
// hash-id prefix share a token prefix, which is what lets a trace
// reproduce its KV-cache reuse. Each block starts with the tokenizer's
// block-separation token (BOS, else EOS) when it has one, as in AIPerf.
type HashPrompts struct {
	tok       tokenizer.Tokenizer
	corpus    *Corpus
	blockSize int
	blocks    *sharedBlocks
	// sizes is the block size each hash id was first used with: a hash id
	// names one fixed block.
	sizes blockSizes
	// pick draws the windows of the prompts without hash ids and of the
	// fresh tails, in request order (AIPerf's corpus generator).
	pick picker
}

func NewHashPrompts(tok tokenizer.Tokenizer, pc *PromptCorpus, seed uint64, trace string, blockSize, sep int) (*HashPrompts, error) {
	var c *Corpus
	if pc != nil {
		c = pc.Tokens()
	} else {
		var err error
		if c, err = newCorpus(tok); err != nil {
			return nil, err
		}
	}
	return &HashPrompts{tok: tok, corpus: c, blockSize: blockSize, blocks: newSharedBlocks(tok, c, seed, trace, blockSize, sep),
		pick: pyrand.Derive(seed, dataset.StreamPromptCorpus).Py().RandRange}, nil
}

// blockSource gives each hash id of one scope its block of corpus tokens
// (hashBlock), caching every block, so the same id always yields the same
// tokens within the scope. It must be used from one goroutine.
type BlockSource struct {
	Corpus *Corpus
	base   uint64
	scope  string
	cache  map[int][]int
	// sep, when >= 0, is the block-separation token each block starts
	// with (one of its tokens).
	sep int
}

func NewBlockSource(c *Corpus, seed uint64, scope string) BlockSource {
	return BlockSource{Corpus: c, base: pyrand.DeriveSeed(seed, dataset.StreamPromptCorpus), scope: scope, cache: map[int][]int{}, sep: -1}
}

// block returns hash id's size-token block; ok is false when the id was
// drawn earlier with another size (the cached block is returned).
func (b *BlockSource) Block(id, size int) (ids []int, ok bool) {
	if got, hit := b.cache[id]; hit {
		return got, len(got) == size
	}
	got := hashBlock(b.Corpus, b.base, b.scope, id, size, b.sep)
	b.cache[id] = got
	return got, true
}

// reset starts a new scope and forgets the cached blocks.
func (b *BlockSource) Reset(scope string) {
	b.scope = scope
	clear(b.cache)
}

// prompt checks a hash-id prompt request and returns its Prompt, drawing
// its fresh tail's start now, in request order. It must be called from one
// goroutine, in request order.
func (h *HashPrompts) prompt(req PromptRequest) (*dataset.Prompt, error) {
	tail, err := h.Tail(req)
	if err != nil {
		return nil, err
	}
	return dataset.NewPrompt(&lazyPrompt{blocks: h.blocks, hashIDs: req.HashIDs, length: req.Length, tail: tail}), nil
}

// Tail checks a hash-id prompt request as prompt does and draws its fresh
// tail's start (-1 when its blocks cover it): all a compact trace row
// keeps besides its hash ids and length (RowPrompt builds its prompt). It
// must be called from one goroutine, in request order.
func (h *HashPrompts) Tail(req PromptRequest) (int, error) {
	n, m, bs := req.Length, len(req.HashIDs), h.blockSize
	if n <= 0 {
		return 0, &dataset.InputError{File: req.File, Line: req.Line, Field: "input_length", Err: fmt.Errorf("must be at least 1, got %d", n)}
	}
	last := bs
	if m*bs > n {
		last = n - (m-1)*bs
		if last <= 0 {
			return 0, &dataset.InputError{File: req.File, Line: req.Line, Field: "hash_ids", Err: fmt.Errorf(
				"%d hash ids of %d-token blocks do not fit input_length %d: the final block would have %d tokens (want 1..%d); is --isl-block-size right?",
				m, bs, n, last, bs)}
		}
	}
	for i, id := range req.HashIDs {
		size := bs
		if i == m-1 {
			size = last
		}
		if was, seen := h.sizes.see(id, size); seen && was != size {
			return 0, &dataset.InputError{File: req.File, Line: req.Line, Field: "hash_ids", Err: fmt.Errorf(
				"hash id %d is used here as a %d-token block but earlier as a %d-token block; a hash id names one fixed block (is --isl-block-size right?)",
				id, size, was)}
		}
	}
	if m*bs < n {
		return h.pick(h.corpus.size()), nil
	}
	return -1, nil
}

// RowPrompt is the PromptSource of a compact row's prompt: what prompt
// returns for the row's request, given the tail Tail drew for it. Safe for
// concurrent use.
func (h *HashPrompts) RowPrompt(hashIDs []int, length, tail int) dataset.PromptSource {
	return &lazyPrompt{blocks: h.blocks, hashIDs: hashIDs, length: length, tail: tail}
}

// build returns the prompts of reqs, in order: texts[i] and counts[i]
// for a prompt built now, prompts[i] for a hash-id prompt left to be built
// when sent (lazy), or built now too (not lazy). Hash-id prompts are
// decoded from their blocks as they are (like AIPerf, without a length
// fix-up, so shared prefixes stay identical); prompts without hash ids are
// cut from the corpus and fitted to their exact length like synthetic
// prompts, always now, since their fitting decides the corpus draws of
// the prompts after them.
func (h *HashPrompts) Build(reqs []PromptRequest, lazy bool) (texts []string, counts []int, prompts []*dataset.Prompt, err error) {
	texts = make([]string, len(reqs))
	counts = make([]int, len(reqs))
	prompts = make([]*dataset.Prompt, len(reqs))
	// The corpus draws go in request order, as AIPerf makes them: a prompt
	// without hash ids is built (and fitted) at once, a hash-id prompt's
	// fresh tail is drawn with its blocks.
	b := promptBuilder{tok: h.tok, corpus: h.corpus, pick: h.pick}
	for i, r := range reqs {
		if len(r.HashIDs) == 0 {
			if r.Length <= 0 {
				return nil, nil, nil, &dataset.InputError{File: r.File, Line: r.Line, Field: "input_length", Err: fmt.Errorf("must be at least 1, got %d", r.Length)}
			}
			texts[i], counts[i] = b.build(r.Length)
			continue
		}
		if prompts[i], err = h.prompt(r); err != nil {
			return nil, nil, nil, err
		}
	}
	if lazy {
		return texts, counts, prompts, nil
	}
	dataset.ForEachParallel(len(reqs), func(i int) {
		if p := prompts[i]; p != nil {
			texts[i] = p.Text()
			counts[i] = h.tok.Count(texts[i])
			prompts[i] = nil
		}
	})
	return texts, counts, prompts, nil
}
