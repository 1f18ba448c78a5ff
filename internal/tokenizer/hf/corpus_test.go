package hf

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// chunkGolden is one line of testdata/golden/<model>.txt.
type chunkGolden struct {
	index, bytes, count int
	idsHash, textHash   string
	roundTrip           bool
}

func readChunkGoldens(t *testing.T, model string) []chunkGolden {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "golden", model+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []chunkGolden
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		var g chunkGolden
		var rt int
		if _, err := fmt.Sscan(line, &g.index, &g.bytes, &g.count, &g.idsHash, &g.textHash, &rt); err != nil {
			t.Fatalf("%s golden line %q: %v", model, line, err)
		}
		g.roundTrip = rt == 1
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusMatchesReference encodes every chunk of the 1 MB corpus with
// every test tokenizer and compares the ids with HuggingFace's (count and
// hash per chunk), then decodes them and compares with HuggingFace's
// decode, and checks Count agrees with Encode.
func TestCorpusMatchesReference(t *testing.T) {
	parts := chunks(loadCorpus(t))
	for _, model := range testmodels.Names() {
		t.Run(model, func(t *testing.T) {
			tok := realTokenizer(t, model)
			goldens := readChunkGoldens(t, model)
			if len(goldens) != len(parts) {
				t.Fatalf("%d golden chunks for %d corpus chunks: regenerate with scripts/tokenizer-goldens.sh", len(goldens), len(parts))
			}
			total, bad, badDecode := 0, 0, 0
			for i, part := range parts {
				g := goldens[i]
				if g.bytes != len(part) {
					t.Fatalf("chunk %d is %d bytes, golden says %d: corpus and goldens disagree", i, len(part), g.bytes)
				}
				ids := tok.Encode(part)
				total += len(ids)
				if len(ids) != g.count || idsHash(ids) != g.idsHash {
					if bad == 0 {
						t.Errorf("chunk %d (%d bytes, starting %q): %d ids, reference %d; ids differ", i, len(part), head(part), len(ids), g.count)
					}
					bad++
					continue
				}
				if n := tok.Count(part); n != len(ids) {
					t.Errorf("chunk %d: Count %d, len(Encode) %d", i, n, len(ids))
				}
				text := tok.Decode(ids)
				if textHash(text) != g.textHash {
					if badDecode == 0 {
						t.Errorf("chunk %d: Decode differs from the reference decode", i)
					}
					badDecode++
				}
				if g.roundTrip && text != part {
					t.Errorf("chunk %d: Decode(Encode(x)) != x although the reference round-trips", i)
				}
			}
			if bad > 0 || badDecode > 0 {
				t.Errorf("%d of %d chunks encode differently, %d decode differently", bad, len(parts), badDecode)
			}
			t.Logf("%d chunks, %d tokens, all identical to the reference", len(parts), total)
		})
	}
}

func head(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// TestCasesMatchReference compares full id lists for the short cases,
// without and with special tokens, and the decoded text.
func TestCasesMatchReference(t *testing.T) {
	for _, model := range testmodels.Names() {
		t.Run(model, func(t *testing.T) {
			tok := realTokenizer(t, model)
			in, g := cases(t, model)
			for i, s := range in {
				if got := tok.Encode(s); !slices.Equal(nonNil(got), nonNil(g.IDs[i])) {
					t.Errorf("case %d %q:\n got %v\nwant %v\nfirst difference at %d", i, head(s), got, g.IDs[i], firstDiff(got, g.IDs[i]))
				}
				if got := tok.EncodeWithSpecialTokens(s); !slices.Equal(nonNil(got), nonNil(g.Special[i])) {
					t.Errorf("case %d %q with special tokens:\n got %v\nwant %v", i, head(s), got, g.Special[i])
				}
				if got := tok.Decode(g.IDs[i]); got != g.Decode[i] {
					t.Errorf("case %d: Decode = %q, reference %q", i, got, g.Decode[i])
				}
			}
		})
	}
}

func nonNil(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
