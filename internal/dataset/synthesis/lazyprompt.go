package synthesis

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"sync"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// lazyPrompt is the PromptSource of a hash-id prompt: its hash ids, its
// length and where its fresh tail starts in the corpus. It is a few tens
// of bytes where the text is some 4 bytes a token. Text builds the same
// text the load-time path builds (the blocks are a pure function of the
// hash id, and the tail's start was drawn at load time, in AIPerf's
// order), so a seeded run sends byte-identical bodies either way. Safe for
// concurrent use.
type lazyPrompt struct {
	blocks  *sharedBlocks
	hashIDs []int
	length  int
	// tail is the corpus index the fresh tokens after the last block
	// start at (a prompt longer than its blocks); -1 when there are none.
	tail int
}

// Len returns the prompt's length in corpus tokens (the trace's
// input_length).
func (p *lazyPrompt) Len() int { return p.length }

// Text builds the prompt: its blocks' tokens then the fresh tail, decoded.
func (p *lazyPrompt) Text() string {
	ids := p.tokens(make([]int, 0, p.length))
	return p.blocks.tok.Decode(ids)
}

// tokens appends the prompt's token ids to dst.
func (p *lazyPrompt) tokens(dst []int) []int {
	bs, m := p.blocks.blockSize, len(p.hashIDs)
	last := bs
	if m*bs > p.length {
		last = p.length - (m-1)*bs
	}
	for i, id := range p.hashIDs {
		size := bs
		if i == m-1 {
			size = last
		}
		dst = p.blocks.appendBlock(dst, id, size)
	}
	if p.tail >= 0 {
		dst = p.blocks.corpus.appendWindow(dst, p.tail, p.length-len(dst))
	}
	return dst
}

// Count counts text with the trace's tokenizer.
func (p *lazyPrompt) Count(text string) int { return p.blocks.tok.Count(text) }

// sharedBlocks gives each hash id of a trace its block of corpus tokens,
// as blockSource does, for any number of goroutines: a block is a pure
// function of (seed, scope, id, size), so it is computed when asked for
// and kept in a bounded cache for the prefixes requests share.
type sharedBlocks struct {
	tok       tokenizer.Tokenizer
	corpus    *Corpus
	base      uint64
	scope     string
	blockSize int
	sep       int

	mu     sync.Mutex
	cache  map[int][]int
	cached int // tokens held by cache
}

// blockCacheTokens bounds the tokens the block cache holds (8 bytes each):
// 32 MB, some eight thousand 512-token blocks, more than the shared
// prefixes of the requests in flight; past it the cache starts over.
const blockCacheTokens = 4 << 20

func newSharedBlocks(tok tokenizer.Tokenizer, c *Corpus, seed uint64, scope string, blockSize, sep int) *sharedBlocks {
	return &sharedBlocks{tok: tok, corpus: c, base: pyrand.DeriveSeed(seed, dataset.StreamPromptCorpus), scope: scope,
		blockSize: blockSize, sep: sep, cache: map[int][]int{}}
}

// appendBlock appends hash id's size-token block to dst.
func (b *sharedBlocks) appendBlock(dst []int, id, size int) []int {
	b.mu.Lock()
	got, hit := b.cache[id]
	b.mu.Unlock()
	if hit && len(got) == size {
		return append(dst, got...)
	}
	got = hashBlock(b.corpus, b.base, b.scope, id, size, b.sep)
	if !hit {
		b.mu.Lock()
		if b.cached+size > blockCacheTokens {
			clear(b.cache)
			b.cached = 0
		}
		b.cache[id] = got
		b.cached += size
		b.mu.Unlock()
	}
	return append(dst, got...)
}

// hashBlock is AIPerf's HashIdRandomGenerator block: a Python generator
// seeded with the first 8 bytes (big-endian) of SHA-256("<corpus seed>:
// <scope>:<hash id>") picks the start of a window of size corpus tokens;
// with a separation token sep >= 0 the block is sep and size-1 tokens.
func hashBlock(c *Corpus, base uint64, scope string, id, size, sep int) []int {
	sum := sha256.Sum256([]byte(strconv.FormatUint(base, 10) + ":" + scope + ":" + strconv.Itoa(id)))
	rng := pyrand.NewRandom(binary.BigEndian.Uint64(sum[:8]))
	got := make([]int, 0, size)
	n := size
	if sep >= 0 {
		got = append(got, sep)
		n--
	}
	return c.Window(rng.RandRange, n, got)
}
