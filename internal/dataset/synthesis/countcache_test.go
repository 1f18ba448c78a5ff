package synthesis

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hf"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestMain points the corpus count cache at a directory of the test run's
// own, so tests neither read nor leave files in the user's cache.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aiperf-count-cache-")
	if err != nil {
		panic(err)
	}
	countCache = func() string { return dir }
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// printedTokenizer is byteTokenizer with a fingerprint, so its counts are
// cached; each pointer is its own tokenizer to newCorpus's in-memory cache.
type printedTokenizer struct {
	byteTokenizer
	print string
}

func (p *printedTokenizer) Fingerprint() string { return p.print }

// TestCorpusCountsCached checks the on-disk count cache: a first corpus
// tokenizes every chunk and writes the counts; a second corpus for another
// tokenizer value with the same fingerprint reads them, tokenizing nothing
// up front, and has the same token positions; a corrupt file is recomputed
// and rewritten; another fingerprint gets another file.
func TestCorpusCountsCached(t *testing.T) {
	dir, saved := t.TempDir(), countCache
	countCache = func() string { return dir }
	t.Cleanup(func() { countCache = saved })

	first := &printedTokenizer{print: "bytes-v1"}
	a, err := newCorpus(first)
	if err != nil {
		t.Fatal(err)
	}
	chunks, _ := corpusChunks()
	path := countCachePath(first, len(chunks))
	if path == "" || filepath.Dir(path) != dir {
		t.Fatalf("cache path %q, want one in %s", path, dir)
	}
	if cachedCounts(path, len(chunks)) == nil {
		t.Fatalf("no counts cached at %s after the first corpus", path)
	}

	second := &printedTokenizer{print: "bytes-v1"}
	b, err := newCorpus(second)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatal("the second tokenizer got the first's corpus from memory; the test needs a disk read")
	}
	if !slices.Equal(a.starts, b.starts) {
		t.Fatal("token positions from the cached counts differ from the computed ones")
	}
	for i := range b.tokens {
		if b.tokens[i].ids != nil {
			t.Fatalf("chunk %d was tokenized although its count came from the cache", i)
		}
	}
	if got := (byteTokenizer{}).Decode(b.appendWindow(nil, 5, 20)); got != chunks[0][5:25] {
		t.Errorf("window from cached counts = %q, want %q", got, chunks[0][5:25])
	}

	if err := os.WriteFile(path, []byte("12\nnot a count\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := newCorpus(&printedTokenizer{print: "bytes-v1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.starts, c.starts) || cachedCounts(path, len(chunks)) == nil {
		t.Error("a corrupt cache file was not recomputed and rewritten")
	}

	if other := countCachePath(&printedTokenizer{print: "bytes-v2"}, len(chunks)); other == path || other == "" {
		t.Errorf("another fingerprint maps to %q, want a file of its own", other)
	}
	if p := countCachePath(byteTokenizer{}, len(chunks)); p != "" {
		t.Errorf("a tokenizer without a fingerprint is cached at %q", p)
	}
}

func TestCountCacheFromEnv(t *testing.T) {
	t.Setenv(CountCacheEnv, "off")
	if dir := countCacheFromEnv(); dir != "" {
		t.Errorf("%s=off gives %q, want caching off", CountCacheEnv, dir)
	}
	t.Setenv(CountCacheEnv, "/some/dir")
	if dir := countCacheFromEnv(); dir != "/some/dir" {
		t.Errorf("%s=/some/dir gives %q", CountCacheEnv, dir)
	}
	t.Setenv(CountCacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if dir := countCacheFromEnv(); dir != filepath.Join("/xdg", "aiperf-go", "corpus-counts") {
		t.Errorf("default cache dir %q, want under $XDG_CACHE_HOME", dir)
	}
}

// TestHFFingerprint checks that a HuggingFace tokenizer carries the
// digest of its tokenizer.json, so its corpus counts are cached.
func TestHFFingerprint(t *testing.T) {
	names := testmodels.Names()
	fps := map[string]bool{}
	for _, m := range names[:2] {
		tok, _ := hfModel(t, m)
		data, err := os.ReadFile(testmodels.TokenizerJSON(t, m))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fp, ok := tok.(fingerprinter)
		if !ok {
			t.Fatalf("%s: a HF tokenizer has no Fingerprint", m)
		}
		if want := "tokenizer.json-sha256:" + hex.EncodeToString(sum[:]); fp.Fingerprint() != want {
			t.Errorf("%s: fingerprint %q, want %q", m, fp.Fingerprint(), want)
		}
		if countCachePath(tok, 10) == "" {
			t.Errorf("%s: a HF tokenizer's counts are not cached", m)
		}
		fps[fp.Fingerprint()] = true
	}
	if len(fps) != 2 {
		t.Errorf("%v share a fingerprint", names[:2])
	}
}

// TestSyntheticSameWithCachedCounts checks, end to end with a real
// HuggingFace tokenizer, that a synthetic dataset built from cached corpus
// counts is the one built by tokenizing the whole corpus: same prompts,
// same token counts. Two loads of the tokenizer stand for two runs (each
// its own in-memory corpus); the second reads the first's cache file and
// tokenizes only the chunks its prompts touch.
func TestSyntheticSameWithCachedCounts(t *testing.T) {
	dir, saved := t.TempDir(), countCache
	countCache = func() string { return dir }
	t.Cleanup(func() { countCache = saved })
	path := testmodels.TokenizerJSON(t, "llama2")
	opts := SyntheticOptions{ISLMean: 120, ISLStddev: 30, OSLMean: 10, Entries: 25, Seed: 11, SeedSet: true}
	var datasets [2]*dataset.Dataset
	var corpora [2]*Corpus
	for run := range datasets {
		tok, err := hf.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		datasets[run] = mustSynthetic(t, opts, tok)
		if corpora[run], err = newCorpus(tok); err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Fatalf("%d files in the count cache after the first run, want 1", len(entries))
			}
		}
	}
	if diff := cmp.Diff(datasets[0], datasets[1]); diff != "" {
		t.Fatalf("the dataset from cached counts differs (-computed +cached):\n%s", diff)
	}
	if !slices.Equal(corpora[0].starts, corpora[1].starts) {
		t.Fatal("token positions differ between computed and cached counts")
	}
	touched := 0
	for i := range corpora[1].tokens {
		if corpora[1].tokens[i].ids != nil {
			touched++
		}
	}
	if touched == 0 || touched >= len(corpora[1].tokens)/2 {
		t.Errorf("the run from cached counts tokenized %d of %d chunks, want only the few its prompts touch", touched, len(corpora[1].tokens))
	}
}
