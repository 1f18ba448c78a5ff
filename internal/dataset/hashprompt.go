package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyrand"

	"github.com/aiperf-go/aiperf/internal/tokenizer"
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
// reproduce its KV-cache reuse. Each block starts with the tokenizer's
// block-separation token (BOS, else EOS) when it has one, as in AIPerf.
type hashPrompts struct {
	tok       tokenizer.Tokenizer
	corpus    *corpus
	seed      uint64
	trace     string
	blockSize int
	blocks    blockSource
	// pick draws the windows of the prompts without hash ids and of the
	// fresh tails, in request order (AIPerf's corpus generator).
	pick picker
}

func newHashPrompts(tok tokenizer.Tokenizer, pc *PromptCorpus, seed uint64, trace string, blockSize, sep int) (*hashPrompts, error) {
	var c *corpus
	if pc != nil {
		c = pc.tokens()
	} else {
		var err error
		if c, err = newCorpus(tok); err != nil {
			return nil, err
		}
	}
	bs := newBlockSource(c, seed, trace)
	bs.sep = sep
	return &hashPrompts{tok: tok, corpus: c, seed: seed, trace: trace, blockSize: blockSize, blocks: bs,
		pick: pyrand.Derive(seed, streamPromptCorpus).Py().RandRange}, nil
}

// blockSource gives each hash id of one scope (a trace) its block of
// corpus tokens, as AIPerf's HashIdRandomGenerator does: a Python
// generator seeded with the first 8 bytes (big-endian) of
// SHA-256("<corpus seed>:<scope>:<hash id>") picks the window's start,
// the corpus seed being the run's "dataset.prompt.corpus" seed. Blocks
// are cached, so the same id always yields the same tokens within the
// scope. It must be used from one goroutine.
type blockSource struct {
	corpus *corpus
	base   uint64
	scope  string
	cache  map[int][]int
	// sep, when >= 0, is the block-separation token each block starts
	// with (one of its tokens).
	sep int
}

func newBlockSource(c *corpus, seed uint64, scope string) blockSource {
	return blockSource{corpus: c, base: pyrand.DeriveSeed(seed, streamPromptCorpus), scope: scope, cache: map[int][]int{}, sep: -1}
}

// block returns hash id's size-token block; ok is false when the id was
// drawn earlier with another size (the cached block is returned).
func (b *blockSource) block(id, size int) (ids []int, ok bool) {
	if got, hit := b.cache[id]; hit {
		return got, len(got) == size
	}
	sum := sha256.Sum256([]byte(strconv.FormatUint(b.base, 10) + ":" + b.scope + ":" + strconv.Itoa(id)))
	rng := pyrand.NewRandom(binary.BigEndian.Uint64(sum[:8]))
	got := make([]int, 0, size)
	n := size
	if b.sep >= 0 {
		got = append(got, b.sep)
		n--
	}
	got = b.corpus.window(rng.RandRange, n, got)
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
		out = h.corpus.window(h.pick, tail, out)
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
	texts := make([]string, len(reqs))
	counts := make([]int, len(reqs))
	// The corpus draws go in request order, as AIPerf makes them: a prompt
	// without hash ids is built (and fitted) at once, a hash-id prompt's
	// fresh tail is drawn with its blocks.
	b := promptBuilder{tok: h.tok, corpus: h.corpus, pick: h.pick}
	for i, r := range reqs {
		if len(r.hashIDs) == 0 {
			if r.length <= 0 {
				return nil, nil, &InputError{File: r.file, Line: r.line, Field: "input_length", Err: fmt.Errorf("must be at least 1, got %d", r.length)}
			}
			texts[i], counts[i] = b.build(r.length)
			continue
		}
		ids, err := h.tokens(r)
		if err != nil {
			return nil, nil, err
		}
		seqs[i] = ids
	}
	forEachParallel(len(reqs), func(i int) {
		if seqs[i] != nil {
			texts[i] = h.tok.Decode(seqs[i])
			counts[i] = h.tok.Count(texts[i])
		}
	})
	return texts, counts, nil
}
