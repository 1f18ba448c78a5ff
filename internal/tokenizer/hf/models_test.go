package hf

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// The real test tokenizers are big (up to 33 MB of JSON), so each is
// loaded once per test binary and shared by every test, fuzz target and
// benchmark.
var (
	loadMu sync.Mutex
	loaded = map[string]*Tokenizer{}
)

// realTokenizer returns the shared Tokenizer of a test model.
func realTokenizer(tb testing.TB, model string) *Tokenizer {
	tb.Helper()
	path := testmodels.TokenizerJSON(tb, model)
	loadMu.Lock()
	defer loadMu.Unlock()
	if t, ok := loaded[model]; ok {
		return t
	}
	t, err := Load(path)
	if err != nil {
		tb.Fatalf("loading %s: %v", model, err)
	}
	loaded[model] = t
	return t
}

// corpus is the mixed-text corpus (testdata/corpus.txt.gz).
var corpus = sync.OnceValues(func() ([]byte, error) {
	f, err := os.Open(filepath.Join("testdata", "corpus.txt.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
})

func loadCorpus(tb testing.TB) []byte {
	tb.Helper()
	c, err := corpus()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// chunkMin is where a corpus chunk ends: at the first line end at or past
// this many bytes (scripts/tokenizer-goldens.js splits identically).
const chunkMin = 4096

// chunks splits the corpus into the pieces the goldens describe.
func chunks(buf []byte) []string {
	var out []string
	start := 0
	for i, c := range buf {
		if c == '\n' && i+1-start >= chunkMin {
			out = append(out, string(buf[start:i+1]))
			start = i + 1
		}
	}
	if start < len(buf) {
		out = append(out, string(buf[start:]))
	}
	return out
}

// idsHash is the SHA-256 of ids as little-endian uint32s.
func idsHash(ids []int) string {
	b := make([]byte, 4*len(ids))
	for i, id := range ids {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(id))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func textHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// caseGolden is testdata/golden/<model>_cases.json: per case of
// testdata/corpus_cases.json, the reference ids without and with special
// tokens and the reference decode of the ids.
type caseGolden struct {
	IDs     [][]int  `json:"ids"`
	Special [][]int  `json:"special"`
	Decode  []string `json:"decode"`
}

func readJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// cases returns the short inputs and a model's goldens for them.
func cases(tb testing.TB, model string) ([]string, caseGolden) {
	tb.Helper()
	var in []string
	readJSON(tb, filepath.Join("testdata", "corpus_cases.json"), &in)
	var g caseGolden
	readJSON(tb, filepath.Join("testdata", "golden", model+"_cases.json"), &g)
	if len(g.IDs) != len(in) || len(g.Special) != len(in) || len(g.Decode) != len(in) {
		tb.Fatalf("%s goldens describe %d cases, corpus_cases.json has %d: regenerate with scripts/tokenizer-goldens.sh", model, len(g.IDs), len(in))
	}
	return in, g
}

// testmodelsPath is the path of a test model's tokenizer.json.
func testmodelsPath(tb testing.TB, model string) string {
	tb.Helper()
	return testmodels.TokenizerJSON(tb, model)
}
