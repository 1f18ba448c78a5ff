package synthesis

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// shakespeareChunks is the text synthetic prompts are cut from, already
// cut into chunks, one per line: AIPerf 0.13's own assets/shakespeare.txt
// (kept byte for byte, compressed, in corpus/shakespeare.txt.gz; see
// scripts/build-corpus.sh) chunked the way AIPerf chunks it
// (splitCorpus, in the tests), so that a seeded run cuts the same prompts.
// It is stored chunked and uncompressed so that start-up neither inflates
// nor splits 5 MB of text (some 50 ms of CPU): the embedded string is
// sliced in place at the offsets of shakespeareChunkEnds, so that a run
// reads only the chunks its prompts use. TestEmbeddedChunks checks both
// files against the .gz (and -update rewrites them).
//
//go:embed corpus/shakespeare.chunks
var shakespeareChunks string

// shakespeareChunkEnds holds, one decimal per line, the byte offset in
// shakespeareChunks at which each chunk ends (where its newline is).
//
//go:embed corpus/shakespeare.chunks.ends
var shakespeareChunkEnds string

// builtinChunkCounts is the number of tokens of each corpus chunk under the
// builtin tokenizer (o200k_base), one per line. With it a builtin run knows
// the corpus's token positions without tokenizing all of it, so it only
// tokenizes the chunks its prompts touch. TestBuiltinChunkCounts checks it
// (and -update rewrites it).
//
//go:embed corpus/shakespeare.o200k_base.counts
var builtinChunkCounts string

// minChunkChars is the size from which a chunk of corpus lines is closed, as
// in AIPerf: a chunk ends with the first line that brings it to at least this
// many characters. Chunks are tokenized independently, so their boundaries
// are fixed (not machine-dependent) to keep prompts reproducible.
const minChunkChars = 10_000

// corpusChunks returns the embedded corpus's chunks, once, on first use,
// and then always the same read-only result: substrings of
// shakespeareChunks, a lazily computed constant, not mutable state.
var corpusChunks = sync.OnceValues(func() ([]string, error) {
	return parseChunks(shakespeareChunks, shakespeareChunkEnds)
})

// parseChunks cuts text, one chunk per line, into its chunks at the given
// end offsets (one decimal per line: where each chunk's newline is),
// without copying them and without reading the text itself.
func parseChunks(text, ends string) ([]string, error) {
	fields := strings.Fields(ends)
	if len(fields) == 0 {
		return nil, fmt.Errorf("corpus: no chunk offsets")
	}
	chunks := make([]string, len(fields))
	start := 0
	for i, f := range fields {
		end, err := strconv.Atoi(f)
		if err != nil || end <= start || end >= len(text) {
			return nil, fmt.Errorf("corpus: chunk %d ends at %q, want an offset in (%d, %d)", i, f, start, len(text))
		}
		chunks[i] = text[start:end]
		start = end + 1 // past the newline
	}
	if start != len(text) {
		return nil, fmt.Errorf("corpus: the chunk offsets cover %d of %d bytes", start, len(text))
	}
	return chunks, nil
}

// corpus is the token stream synthetic prompts are windows of: the
// concatenation of the chunks' tokens, in order, as AIPerf's tokenized
// corpus is (each chunk encoded on its own). A window starts at a token
// index drawn uniformly from the whole stream and wraps at its end.
//
// Chunks are tokenized lazily, the first time a window touches them, and
// then cached, when their token counts are known beforehand (the builtin
// tokenizer's are embedded); otherwise every chunk is tokenized up front,
// in parallel, since the positions depend on all of them. A corpus is safe
// for concurrent use.
type Corpus struct {
	tok    tokenizer.Tokenizer
	chunks []string
	// starts[i] is the index of chunk i's first token in the stream;
	// starts[len(chunks)] is the stream's length.
	starts []int
	tokens []lazyTokens // tokens[i] caches chunk i's ids
}

// lazyTokens is one chunk's token ids, computed once, with the windows
// that count runs of them re-encoded when the tokenizer keeps those.
type lazyTokens struct {
	once sync.Once
	ids  []int
	win  *tokenizer.Windows
}

// corpusCacheSize is how many tokenized corpora newCorpus keeps: a run
// uses one tokenizer, so one would do; a few spare the tests and the
// sweeps that build a dataset per variation from re-tokenizing.
const corpusCacheSize = 4

// corpusCache holds the corpora newCorpus built, most recent last, keyed
// by tokenizer. A tokenized corpus is immutable once built (its lazy
// chunks fill in safely), so sharing one is safe.
var corpusCache struct {
	sync.Mutex
	entries []*Corpus
}

// newCorpus returns the embedded corpus as tokenized by tok, reusing the
// one built for the same tokenizer value when it is still cached.
func newCorpus(tok tokenizer.Tokenizer) (*Corpus, error) {
	corpusCache.Lock()
	defer corpusCache.Unlock()
	for _, c := range corpusCache.entries {
		if c.tok == tok {
			return c, nil
		}
	}
	chunks, err := corpusChunks()
	if err != nil {
		return nil, err
	}
	var counts []int
	cache := ""
	if tok.Name() == tokenizer.BuiltinName {
		if counts, err = parseChunkCounts(builtinChunkCounts, len(chunks)); err != nil {
			return nil, err
		}
	} else {
		cache = countCachePath(tok, len(chunks))
		counts = cachedCounts(cache, len(chunks))
	}
	c := newCorpusFrom(tok, chunks, counts)
	if counts == nil {
		storeCounts(cache, c.counts())
	}
	if len(corpusCache.entries) == corpusCacheSize {
		corpusCache.entries = corpusCache.entries[1:]
	}
	corpusCache.entries = append(corpusCache.entries, c)
	return c, nil
}

// parseChunkCounts reads one token count per line, n of them.
func parseChunkCounts(s string, n int) ([]int, error) {
	fields := strings.Fields(s)
	if len(fields) != n {
		return nil, fmt.Errorf("corpus: %d chunk token counts for %d chunks", len(fields), n)
	}
	counts := make([]int, n)
	for i, f := range fields {
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("corpus: chunk token count %d: %q", i, f)
		}
		counts[i] = v
	}
	return counts, nil
}

// newCorpusFrom returns a corpus over the given non-empty chunks. counts,
// when non-nil, are the chunks' token counts under tok; without them every
// chunk is tokenized now.
func newCorpusFrom(tok tokenizer.Tokenizer, chunks []string, counts []int) *Corpus {
	c := &Corpus{tok: tok, chunks: chunks, starts: make([]int, len(chunks)+1), tokens: make([]lazyTokens, len(chunks))}
	if counts == nil {
		counts = make([]int, len(chunks))
		dataset.ForEachParallel(len(chunks), func(i int) { counts[i] = len(c.chunkTokens(i)) })
	}
	for i, n := range counts {
		c.starts[i+1] = c.starts[i] + n
	}
	return c
}

// counts returns the chunks' token counts.
func (c *Corpus) counts() []int {
	counts := make([]int, len(c.chunks))
	for i := range counts {
		counts[i] = c.starts[i+1] - c.starts[i]
	}
	return counts
}

// size is the number of tokens in the stream (AIPerf's corpus_size).
func (c *Corpus) size() int { return c.starts[len(c.chunks)] }

// chunkTokens returns the token ids of chunk i, tokenizing it on first use.
// Callers must not modify the result.
func (c *Corpus) chunkTokens(i int) []int {
	lt := &c.tokens[i]
	lt.once.Do(func() {
		if we, ok := c.tok.(tokenizer.WindowEncoder); ok {
			if w, ok := we.EncodeWindows(c.chunks[i]); ok {
				lt.ids, lt.win = w.IDs(), w
				return
			}
		}
		lt.ids = c.tok.Encode(c.chunks[i])
	})
	return lt.ids
}

// runText returns the text of the n stream tokens from start (Decode of
// them, wrapping at the stream's end as appendWindow does) and how many
// tokens it encodes to, without decoding or encoding them, when the
// tokenizer keeps the chunks' windows (tokenizer.Windows) and the text is
// theirs byte for byte; ok is false otherwise.
func (c *Corpus) runText(start, n int) (text string, count int, ok bool) {
	if n < 0 || n > c.size() {
		return "", 0, false
	}
	i, found := slices.BinarySearch(c.starts, start)
	if !found {
		i--
	}
	parts := make([]tokenizer.RunPart, 0, 2)
	for from := start - c.starts[i]; n > 0; i, from = i+1, 0 {
		if i == len(c.chunks) {
			i = 0 // wrap to the stream's start
		}
		take := min(n, c.starts[i+1]-c.starts[i]-from)
		if take <= 0 {
			continue // a chunk without tokens
		}
		c.chunkTokens(i)
		w := c.tokens[i].win
		if w == nil {
			return "", 0, false
		}
		parts = append(parts, tokenizer.RunPart{W: w, From: from, To: from + take})
		n -= take
	}
	return tokenizer.Run(parts)
}

// appendWindow appends to dst the n tokens of the stream from index start
// (in [0, size)), wrapping to the beginning once when the window passes the
// end, as AIPerf's _sample_tokens does: a window longer than the whole
// stream is cut to size tokens.
func (c *Corpus) appendWindow(dst []int, start, n int) []int {
	size := c.size()
	if size == 0 || n <= 0 {
		return dst
	}
	n = min(n, size)
	first := min(n, size-start)
	dst = c.appendRange(dst, start, start+first)
	return c.appendRange(dst, 0, n-first)
}

// appendRange appends the stream's tokens [from, to).
func (c *Corpus) appendRange(dst []int, from, to int) []int {
	for from < to {
		i, found := slices.BinarySearch(c.starts, from)
		if !found {
			i--
		}
		for c.starts[i+1] == c.starts[i] { // skip chunks without tokens
			i++
		}
		ids := c.chunkTokens(i)
		at := from - c.starts[i]
		if len(ids) != c.starts[i+1]-c.starts[i] {
			panic(fmt.Sprintf("corpus: chunk %d has %d tokens, its recorded count is %d", i, len(ids), c.starts[i+1]-c.starts[i]))
		}
		take := min(to-from, len(ids)-at)
		dst = append(dst, ids[at:at+take]...)
		from += take
	}
	return dst
}

// picker chooses a window's start: an index in [0, n).
type picker func(n int) int

// window appends to dst n consecutive stream tokens starting at the index
// pick(size) chooses.
func (c *Corpus) Window(pick picker, n int, dst []int) []int {
	return c.appendWindow(dst, pick(c.size()), n)
}
