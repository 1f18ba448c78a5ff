package synthesis

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

func gzipText(t *testing.T, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSplitCorpus(t *testing.T) {
	long := strings.Repeat("a", 4000)
	wide := strings.Repeat("é", 5000)                            // 5,000 characters in 10,000 bytes
	text := long + "\n\n   \n  " + long + "  \n" + long + "\n" + // closes at 12,000 characters
		wide + "\n" + // 5,000 characters: still open
		"b\r\n" + long + "\n" + // 9,001 characters: still open
		"\t" + long + "\n" + // closes at 13,001 characters
		"tail"
	got, err := splitCorpus(gzipText(t, text))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		long + " " + long + " " + long,
		wide + " b " + long + " " + long,
		"tail",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
}

func TestSplitCorpusErrors(t *testing.T) {
	if _, err := splitCorpus([]byte("not gzip")); err == nil {
		t.Error("splitCorpus accepted bytes that are not gzip")
	}
	if _, err := splitCorpus(gzipText(t, "\n  \n\t\n")); err == nil {
		t.Error("splitCorpus accepted a corpus with no text")
	}
}

var update = flag.Bool("update", false, "rewrite corpus/shakespeare.chunks and corpus/shakespeare.o200k_base.counts")

// splitCorpus decompresses a corpus and groups its lines into chunks the
// way AIPerf does: blank lines are dropped, every line is trimmed of
// surrounding whitespace, and a chunk's lines are joined with single spaces.
// Characters are counted as runes, like Python's len. It is how
// corpus/shakespeare.chunks is made from corpus/shakespeare.txt.gz.
func splitCorpus(gz []byte) ([]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var (
		chunks []string
		lines  []string
		chars  int
	)
	for line := range strings.Lines(string(raw)) {
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

// TestEmbeddedChunks checks that the embedded chunk file is AIPerf's corpus
// (corpus/shakespeare.txt.gz) chunked by splitCorpus, chunk for chunk (go
// test -run TestEmbeddedChunks -update rewrites it).
func TestEmbeddedChunks(t *testing.T) {
	gz, err := os.ReadFile("corpus/shakespeare.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	want, err := splitCorpus(gz)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range want {
		if strings.Contains(c, "\n") {
			t.Fatalf("chunk %d holds a newline; the one-chunk-per-line file cannot store it", i)
		}
	}
	const path, endsPath = "corpus/shakespeare.chunks", "corpus/shakespeare.chunks.ends"
	if *update {
		var ends strings.Builder
		at := 0
		for _, c := range want {
			at += len(c)
			ends.WriteString(strconv.Itoa(at) + "\n")
			at++ // the newline
		}
		if err := os.WriteFile(path, []byte(strings.Join(want, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(endsPath, []byte(ends.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if shakespeareChunks != strings.Join(want, "\n")+"\n" {
		t.Fatalf("%s is not the corpus's chunks, one per line; rerun with -update", path)
	}
	got, err := corpusChunks()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s has %d chunks, the corpus %d; rerun with -update", path, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s chunk %d differs from the corpus; rerun with -update", path, i)
		}
	}
}

func TestParseChunks(t *testing.T) {
	got, err := parseChunks("a b\nc\n", "3\n5\n")
	if err != nil || !slices.Equal(got, []string{"a b", "c"}) {
		t.Errorf("parseChunks = %q, %v", got, err)
	}
	for _, bad := range []struct{ text, ends string }{
		{"a\n", ""},            // no offsets
		{"a b\nc\n", "3\n"},    // offsets cover part of the text
		{"a b\nc\n", "3\n9\n"}, // past the end
		{"a b\nc\n", "3\n3\n"}, // an empty chunk
		{"a b\nc\n", "x\n5\n"}, // not a number
		{"a b\nc\n", "0\n5\n"}, // an empty first chunk
	} {
		if _, err := parseChunks(bad.text, bad.ends); err == nil {
			t.Errorf("parseChunks(%q, %q) accepted it", bad.text, bad.ends)
		}
	}
}

// TestBuiltinChunkCounts checks the embedded token counts of the corpus
// chunks against the builtin tokenizer itself (go test -run
// TestBuiltinChunkCounts -update rewrites them).
func TestBuiltinChunkCounts(t *testing.T) {
	chunks, err := corpusChunks()
	if err != nil {
		t.Fatal(err)
	}
	tok := builtinTokenizer(t)
	counts := make([]int, len(chunks))
	dataset.ForEachParallel(len(chunks), func(i int) { counts[i] = len(tok.Encode(chunks[i])) })
	var b strings.Builder
	for _, n := range counts {
		b.WriteString(strconv.Itoa(n) + "\n")
	}
	const path = "corpus/shakespeare.o200k_base.counts"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if b.String() != builtinChunkCounts {
		t.Fatalf("%s does not match the builtin tokenizer; rerun with -update", path)
	}
}

// TestEmbeddedCorpus checks the facts prompts rely on: the corpus is
// AIPerf's, chunked as AIPerf chunks it (486 chunks, 1,138,441 builtin
// tokens).
func TestEmbeddedCorpus(t *testing.T) {
	chunks, err := corpusChunks()
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 486 {
		t.Errorf("%d chunks, want 486", len(chunks))
	}
	c, err := newCorpus(builtinTokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.size() != 1_138_441 {
		t.Errorf("%d builtin tokens, want 1138441", c.size())
	}
	for i, c := range chunks[:len(chunks)-1] {
		if len(c) < minChunkChars {
			t.Fatalf("chunk %d has %d bytes, want at least %d", i, len(c), minChunkChars)
		}
	}
}

// byteTokenizer is a test tokenizer with one token per byte.
type byteTokenizer struct{}

func (byteTokenizer) Name() string { return "bytes" }
func (byteTokenizer) Encode(s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}
func (byteTokenizer) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return string(b)
}
func (byteTokenizer) Count(s string) int { return len(s) }

func TestCorpusWindowWraps(t *testing.T) {
	c := newCorpusFrom(byteTokenizer{}, []string{"abc", "", "de"}, nil)
	if c.size() != 5 {
		t.Fatalf("size %d, want 5", c.size())
	}
	// Every start, every length: consecutive stream tokens, wrapping once,
	// at most the whole stream (AIPerf's _sample_tokens).
	cycle := "abcdeabcde"
	for start := range 5 {
		for n := 0; n <= 7; n++ {
			got := byteTokenizer{}.Decode(c.appendWindow(nil, start, n))
			want := cycle[start : start+min(n, 5)]
			if got != want {
				t.Errorf("window(start %d, n %d) = %q, want %q", start, n, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	starts := map[byte]bool{}
	for range 200 {
		starts[byteTokenizer{}.Decode(c.Window(rng.IntN, 3, nil))[0]] = true
	}
	if len(starts) != 5 {
		t.Errorf("windows started at %d distinct tokens, want all 5", len(starts))
	}
}

// TestCorpusTokenizesLazily checks that windows tokenize only the chunks
// they cover.
func TestCorpusTokenizesLazily(t *testing.T) {
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	c, err := newCorpus(tok)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const windows = 10
	for range windows {
		// 100 tokens are far fewer than a chunk's ~2,700, so a window
		// covers at most two chunks.
		if got := len(c.Window(rng.IntN, 100, nil)); got != 100 {
			t.Fatalf("window of %d tokens, want 100", got)
		}
	}
	tokenized := 0
	for i := range c.tokens {
		if c.tokens[i].ids != nil {
			tokenized++
		}
	}
	if tokenized == 0 || tokenized > 2*windows {
		t.Errorf("%d of %d chunks tokenized for %d windows", tokenized, len(c.tokens), windows)
	}
}
