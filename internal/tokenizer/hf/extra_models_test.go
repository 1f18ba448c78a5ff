package hf

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// extraTokenizers are the committed WordPiece and Unigram test tokenizers
// (scripts/hf-extra-testdata.py build).
func extraTokenizers() []string {
	return []string{"wordpiece.json", "wordpiece_cased.json", "unigram.json", "unigram_bf.json"}
}

// goldenModels is testdata/extra_models.golden.json.gz: per corpus chunk
// [count, sha256(ids), count with special tokens, sha256(those ids)], and
// full ids for short strings.
type goldenModels struct {
	Reference  string `json:"reference"`
	ChunkBytes int    `json:"chunk_bytes"`
	Tokenizers []struct {
		File   string  `json:"file"`
		Chunks [][]any `json:"chunks"`
		Full   []struct {
			Text    string `json:"text"`
			IDs     []int  `json:"ids"`
			Special []int  `json:"special"`
			Decoded string `json:"decoded"`
		} `json:"full"`
	} `json:"tokenizers"`
}

var (
	extraTokOnce sync.Once
	extraToks    map[string]*Tokenizer
	extraTokErr  error
)

// extraTokenizer loads a committed test tokenizer once per test binary.
func extraTokenizer(tb testing.TB, file string) *Tokenizer {
	tb.Helper()
	extraTokOnce.Do(func() {
		extraToks = map[string]*Tokenizer{}
		for _, f := range extraTokenizers() {
			tok, err := Load(filepath.Join("testdata", f))
			if err != nil {
				extraTokErr = err
				return
			}
			extraToks[f] = tok
		}
	})
	if extraTokErr != nil {
		tb.Fatal(extraTokErr)
	}
	return extraToks[file]
}

// corpusChunks cuts testdata/corpus.txt.gz as the golden script does:
// after the line end at which a chunk reaches size bytes.
func corpusChunks(tb testing.TB, size int) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "corpus.txt.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	var chunks []string
	text := string(data)
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1-start >= size {
			chunks = append(chunks, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		chunks = append(chunks, text[start:])
	}
	return chunks
}

// idsDigest is the hex SHA-256 of ids as little-endian uint32s.
func idsDigest(ids []int) string {
	h := sha256.New()
	var b [4]byte
	for _, id := range ids {
		binary.LittleEndian.PutUint32(b[:], uint32(id))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestExtraTokenizersMatchReferenceOnCorpus(t *testing.T) {
	var g goldenModels
	readGzipJSON(t, "extra_models.golden.json.gz", &g)
	chunks := corpusChunks(t, g.ChunkBytes)
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	if total < 1<<20 {
		t.Errorf("corpus is %d bytes, want at least 1 MiB", total)
	}
	for _, gt := range g.Tokenizers {
		t.Run(gt.File, func(t *testing.T) {
			tok := extraTokenizer(t, gt.File)
			if len(gt.Chunks) != len(chunks) {
				t.Fatalf("golden has %d chunks, corpus cuts into %d: regenerate with scripts/hf-extra-testdata.py goldens", len(gt.Chunks), len(chunks))
			}
			bad := 0
			for i, c := range chunks {
				want := gt.Chunks[i]
				ids := tok.Encode(c)
				if got := idsDigest(ids); len(ids) != int(want[0].(float64)) || got != want[1].(string) {
					bad++
					if bad <= 3 {
						t.Errorf("chunk %d (%q...): %d ids, want %d (digest differs: %v)", i, firstRunes(c, 60), len(ids), int(want[0].(float64)), got != want[1].(string))
					}
				}
				if n := tok.Count(c); n != len(ids) {
					t.Errorf("chunk %d: Count %d != len(Encode) %d", i, n, len(ids))
				}
				sp := tok.EncodeWithSpecialTokens(c)
				if len(sp) != int(want[2].(float64)) || idsDigest(sp) != want[3].(string) {
					bad++
					if bad <= 3 {
						t.Errorf("chunk %d with special tokens: %d ids, want %d", i, len(sp), int(want[2].(float64)))
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d chunk checks differ from %s", bad, 2*len(chunks), g.Reference)
			}
		})
	}
}

func TestExtraTokenizersMatchReferenceOnShortStrings(t *testing.T) {
	var g goldenModels
	readGzipJSON(t, "extra_models.golden.json.gz", &g)
	for _, gt := range g.Tokenizers {
		t.Run(gt.File, func(t *testing.T) {
			tok := extraTokenizer(t, gt.File)
			for _, c := range gt.Full {
				if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
					t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
				}
				if got := tok.EncodeWithSpecialTokens(c.Text); !slices.Equal(got, c.Special) {
					t.Errorf("EncodeWithSpecialTokens(%q)\n got %v\nwant %v", c.Text, got, c.Special)
				}
				if got := tok.Decode(c.IDs); got != c.Decoded {
					t.Errorf("Decode(Encode(%q))\n got %q\nwant %q", c.Text, got, c.Decoded)
				}
			}
		})
	}
}

// firstRunes is s cut to at most n runes, for messages.
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return strings.Clone(s)
}

// BenchmarkExtraEncode encodes the whole corpus with each WordPiece and
// Unigram test tokenizer, reporting tokens/s.
func BenchmarkExtraEncode(b *testing.B) {
	text := strings.Join(corpusChunks(b, 4096), "")
	for _, name := range extraTokenizers() {
		b.Run(strings.TrimSuffix(name, ".json"), func(b *testing.B) {
			tok := extraTokenizer(b, name)
			n := 0
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				n = len(tok.Encode(text))
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// TestExtraTokenizersConcurrentEncode encodes from several goroutines at
// once (run with -race): the components share no mutable state.
func TestExtraTokenizersConcurrentEncode(t *testing.T) {
	chunks := corpusChunks(t, 4096)[:20]
	for _, name := range extraTokenizers() {
		tok := extraTokenizer(t, name)
		want := make([][]int, len(chunks))
		for i, c := range chunks {
			want[i] = tok.Encode(c)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for i, c := range chunks {
					if got := tok.Encode(c); !slices.Equal(got, want[i]) {
						t.Errorf("%s: chunk %d differs when encoded concurrently", name, i)
					}
				}
			})
		}
		wg.Wait()
	}
}
