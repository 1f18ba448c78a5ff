package dataset

import (
	"fmt"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// streamHashBlock names the generator of one hash-id block's tokens;
// streamTracePrompt that of a trace prompt without hash ids.
const (
	streamHashBlock   = "dataset.prompt.hash_id"
	streamTracePrompt = "dataset.prompt.trace"
)

// promptRequest asks for a prompt of length tokens, built from hash-id
// blocks when hashIDs is non-empty.
type promptRequest struct {
	length  int
	hashIDs []int
	// where names the request in errors (file, line, field).
	file string
	line int
}

// hashPrompts builds trace prompts as AIPerf does: a prompt of n tokens
// with hash ids h1..hm is m blocks of blockSize corpus tokens, the last
// one shortened to n-(m-1)*blockSize (or, when n exceeds m*blockSize,
// every block full and the rest fresh tokens). Blocks come from a
// blockSource scoped to the trace's content hash, so prompts sharing a
// hash-id prefix share a token prefix, which is what lets a trace
// reproduce its KV-cache reuse.
type hashPrompts struct {
	tok       tokenizer.Tokenizer
	corpus    *corpus
	seed      uint64
	trace     string
	blockSize int
	blocks    blockSource
}

func newHashPrompts(tok tokenizer.Tokenizer, pc *PromptCorpus, seed uint64, trace string, blockSize int) (*hashPrompts, error) {
	var c *corpus
	if pc != nil {
		c = pc.tokens()
	} else {
		var err error
		if c, err = newCorpus(tok); err != nil {
			return nil, err
		}
	}
	return &hashPrompts{tok: tok, corpus: c, seed: seed, trace: trace, blockSize: blockSize, blocks: newBlockSource(c, seed, trace)}, nil
}

// blockSource gives each hash id of one scope (a trace) its block of
// corpus tokens: drawn once from a generator keyed by the seed, the scope
// and the id, and cached, so the same id always yields the same tokens
// within the scope. It must be used from one goroutine.
type blockSource struct {
	corpus *corpus
	seed   uint64
	scope  string
	cache  map[int][]int
}

func newBlockSource(c *corpus, seed uint64, scope string) blockSource {
	return blockSource{corpus: c, seed: seed, scope: scope, cache: map[int][]int{}}
}

// block returns hash id's size-token block; ok is false when the id was
// drawn earlier with another size (the cached block is returned).
func (b *blockSource) block(id, size int) (ids []int, ok bool) {
	if got, hit := b.cache[id]; hit {
		return got, len(got) == size
	}
	rng := newStream(b.seed, streamHashBlock+"/"+b.scope+"/"+strconv.Itoa(id))
	got := b.corpus.window(rng.IntN, size, make([]int, 0, size))
	b.cache[id] = got
	return got, true
}

// reset starts a new scope and forgets the cached blocks.
func (b *blockSource) reset(scope string) {
	b.scope = scope
	clear(b.cache)
}

// tokens returns the token ids of a hash-id prompt. It must be called
// from one goroutine (it fills the block cache).
func (h *hashPrompts) tokens(req promptRequest) ([]int, error) {
	n, m, bs := req.length, len(req.hashIDs), h.blockSize
	if n <= 0 {
		return nil, &InputError{File: req.file, Line: req.line, Field: "input_length", Err: fmt.Errorf("must be at least 1, got %d", n)}
	}
	last := bs
	if m*bs > n {
		last = n - (m-1)*bs
		if last <= 0 {
			return nil, &InputError{File: req.file, Line: req.line, Field: "hash_ids", Err: fmt.Errorf(
				"%d hash ids of %d-token blocks do not fit input_length %d: the final block would have %d tokens (want 1..%d); is --isl-block-size right?",
				m, bs, n, last, bs)}
		}
	}
	out := make([]int, 0, n)
	for i, id := range req.hashIDs {
		size := bs
		if i == m-1 {
			size = last
		}
		block, ok := h.blocks.block(id, size)
		if !ok {
			return nil, &InputError{File: req.file, Line: req.line, Field: "hash_ids", Err: fmt.Errorf(
				"hash id %d is used here as a %d-token block but earlier as a %d-token block; a hash id names one fixed block (is --isl-block-size right?)",
				id, size, len(block))}
		}
		out = append(out, block...)
	}
	if tail := n - len(out); tail > 0 {
		rng := newStream(h.seed, streamTracePrompt+"/"+h.trace+"/tail/"+strconv.Itoa(req.line))
		out = h.corpus.window(rng.IntN, tail, out)
	}
	return out, nil
}

// build returns the prompts of reqs, in order, with their token counts.
// Hash-id prompts are decoded from their blocks as they are (like AIPerf,
// without a length fix-up, so shared prefixes stay identical); prompts
// without hash ids are cut from the corpus and fitted to their exact
// length like synthetic prompts.
func (h *hashPrompts) build(reqs []promptRequest) ([]string, []int, error) {
	seqs := make([][]int, len(reqs))
	for i, r := range reqs {
		if len(r.hashIDs) == 0 {
			if r.length <= 0 {
				return nil, nil, &InputError{File: r.file, Line: r.line, Field: "input_length", Err: fmt.Errorf("must be at least 1, got %d", r.length)}
			}
			continue
		}
		ids, err := h.tokens(r)
		if err != nil {
			return nil, nil, err
		}
		seqs[i] = ids
	}
	texts := make([]string, len(reqs))
	counts := make([]int, len(reqs))
	forEachParallel(len(reqs), func(i int) {
		if seqs[i] == nil {
			rng := newStream(h.seed, streamTracePrompt+"/"+h.trace+"/"+strconv.Itoa(i))
			b := promptBuilder{tok: h.tok, corpus: h.corpus, pick: rng.IntN}
			texts[i], counts[i] = b.build(reqs[i].length)
			return
		}
		texts[i] = h.tok.Decode(seqs[i])
		counts[i] = h.tok.Count(texts[i])
	})
	return texts, counts, nil
}
