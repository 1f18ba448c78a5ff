package dataset

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// shakespeareGz is the public-domain text synthetic prompts are cut from,
// like AIPerf's assets/shakespeare.txt. scripts/build-corpus.sh rebuilds it
// and records its source.
//
//go:embed corpus/shakespeare.txt.gz
var shakespeareGz []byte

// minChunkChars is the size from which a chunk of corpus lines is closed, as
// in AIPerf: a chunk ends with the first line that brings it to at least this
// many characters. Chunks are tokenized independently, so their boundaries
// are fixed (not machine-dependent) to keep prompts reproducible.
const minChunkChars = 10_000

// corpusChunks splits the embedded corpus into chunks once, on first use,
// and then always returns the same read-only result. It is a lazily computed
// constant, not mutable state.
var corpusChunks = sync.OnceValues(func() ([]string, error) {
	return splitCorpus(shakespeareGz)
})

// splitCorpus decompresses the corpus and groups its lines into chunks the
// way AIPerf does: blank lines are dropped, every line is trimmed of
// surrounding whitespace, and a chunk's lines are joined with single spaces.
// Characters are counted as runes, like Python's len.
func splitCorpus(gz []byte) ([]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	text := string(raw)
	var (
		chunks []string
		lines  []string
		chars  int
	)
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		lines = append(lines, line)
		chars += utf8.RuneCountInString(line)
		if chars >= minChunkChars {
			chunks = append(chunks, strings.Join(lines, " "))
			lines, chars = lines[:0], 0
		}
	}
	if len(lines) > 0 {
		chunks = append(chunks, strings.Join(lines, " "))
	}
	if len(chunks) == 0 {
		return nil, fmt.Errorf("corpus: no text")
	}
	return chunks, nil
}

// corpus is the token stream synthetic prompts are windows of: the
// concatenation of the chunks' tokens, in order, wrapping at the end.
//
// Chunks are tokenized lazily, the first time a window touches them, and
// then cached, so building a dataset costs in proportion to the prompts it
// needs rather than to the 5 MB corpus. A corpus is safe for concurrent use.
type corpus struct {
	tok    tokenizer.Tokenizer
	chunks []string
	// ends[i] is the byte offset in the whole corpus text where chunk i
	// ends; windows start at a byte position drawn uniformly from it.
	ends   []int
	tokens []lazyTokens // tokens[i] caches chunk i's ids
}

// lazyTokens is one chunk's token ids, computed once.
type lazyTokens struct {
	once sync.Once
	ids  []int
}

// newCorpus returns the embedded corpus as tokenized by tok.
func newCorpus(tok tokenizer.Tokenizer) (*corpus, error) {
	chunks, err := corpusChunks()
	if err != nil {
		return nil, err
	}
	return newCorpusFrom(tok, chunks), nil
}

// newCorpusFrom returns a corpus over the given non-empty chunks.
func newCorpusFrom(tok tokenizer.Tokenizer, chunks []string) *corpus {
	ends := make([]int, len(chunks))
	total := 0
	for i, c := range chunks {
		total += len(c)
		ends[i] = total
	}
	return &corpus{tok: tok, chunks: chunks, ends: ends, tokens: make([]lazyTokens, len(chunks))}
}

// chunkTokens returns the token ids of chunk i, tokenizing it on first use.
// Callers must not modify the result.
func (c *corpus) chunkTokens(i int) []int {
	lt := &c.tokens[i]
	lt.once.Do(func() { lt.ids = c.tok.Encode(c.chunks[i]) })
	return lt.ids
}

// window appends to dst n consecutive corpus tokens starting at a random
// position, wrapping from the last chunk to the first as often as needed.
//
// The start is drawn uniformly over the corpus text's bytes and mapped to
// the token at the same relative position within its chunk, so only the
// chunks the window covers are ever tokenized. Token density is nearly
// uniform across chunks, so starts are nearly uniform over tokens, as in
// AIPerf (which tokenizes the whole corpus and draws a token index).
func (c *corpus) window(rng *rand.Rand, n int, dst []int) []int {
	pos := rng.IntN(c.ends[len(c.ends)-1])
	chunk, _ := slices.BinarySearch(c.ends, pos+1)
	start := 0
	if chunk > 0 {
		start = c.ends[chunk-1]
	}
	ids := c.chunkTokens(chunk)
	at := (pos - start) * len(ids) / (c.ends[chunk] - start)
	for idle := 0; ; idle++ {
		take := min(n, len(ids)-at)
		dst = append(dst, ids[at:at+take]...)
		if n -= take; n == 0 || idle > len(c.chunks) {
			return dst // done, or a tokenizer that yields no tokens at all
		}
		if take > 0 {
			idle = 0
		}
		chunk = (chunk + 1) % len(c.chunks)
		ids, at = c.chunkTokens(chunk), 0
	}
}
