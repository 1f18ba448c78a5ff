package hf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// TestLossyString checks the Rust from_utf8_lossy rule: one U+FFFD per
// maximal invalid subpart (Unicode's "substitution of maximal subparts").
func TestLossyString(t *testing.T) {
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte("abc"), "abc"},
		{[]byte{0xE4, 0xBD}, "\uFFFD"},                   // truncated 3-byte sequence: one
		{[]byte{0xE4, 0xBD, 'a'}, "\uFFFDa"},             // cut short by ASCII
		{[]byte{0xF0, 0x9F, 0x98}, "\uFFFD"},             // truncated 4-byte sequence
		{[]byte{0xFF, 0xFE}, "\uFFFD\uFFFD"},             // never valid: one each
		{[]byte{0xC0, 0xAF}, "\uFFFD\uFFFD"},             // overlong lead: one each
		{[]byte{0xE0, 0x80, 0x80}, "\uFFFD\uFFFD\uFFFD"}, // E0 needs A0..BF next
		{[]byte{0xED, 0xA0, 0x80}, "\uFFFD\uFFFD\uFFFD"}, // surrogate
		{[]byte{0xF4, 0x90, 0x80, 0x80}, "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{[]byte{0x80, 'x', 0xE2, 0x82, 0xAC}, "\uFFFDx€"},
		{[]byte{0xE2, 0x82, 0xE2, 0x82, 0xAC}, "\uFFFD€"},
	}
	for _, tt := range tests {
		if got := lossyString(tt.in); got != tt.want {
			t.Errorf("lossyString(% x) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestInvalidUTF8Input checks that Encode never fails on bytes a Rust
// string could not hold: they are replaced first.
func TestInvalidUTF8Input(t *testing.T) {
	tok := realTokenizer(t, "qwen3")
	bad := "ab\xffcd\xe4\xbd"
	if got, want := tok.Encode(bad), tok.Encode("ab\uFFFDcd\uFFFD"); !slices.Equal(got, want) {
		t.Errorf("Encode(%q) = %v, want %v", bad, got, want)
	}
}

// TestMergeLoopsAgree runs both merge loops on the same words, including
// words long enough that the heap is the one normally used, and checks
// they give the same ids.
func TestMergeLoopsAgree(t *testing.T) {
	for _, model := range []string{"qwen3", "llama2"} {
		m := realTokenizer(t, model).model.(*bpe)
		r := rand.New(rand.NewPCG(1, 2))
		alpha := []string{"a", "b", "e", "n", "t", " ", "▁", "Ġ", "=", "0", "字", "é", "\n"}
		for i := 0; i < 400; i++ {
			var b strings.Builder
			for j, n := 0, 2+r.IntN(3*smallWord); j < n; j++ {
				b.WriteString(alpha[r.IntN(len(alpha))])
			}
			w := b.String()
			scan := m.symbols(nil, w)
			m.mergeScan(scan)
			heap := m.symbols(nil, w)
			m.mergeHeap(heap)
			if a, b := survivors(scan), survivors(heap); !slices.Equal(a, b) {
				t.Fatalf("%s: %q: scan %v, heap %v", model, w, a, b)
			}
		}
	}
}

func survivors(syms []bpeSymbol) []int32 {
	var ids []int32
	for i := 0; i >= 0 && i < len(syms); i = int(syms[i].next) {
		ids = append(ids, syms[i].id)
	}
	return ids
}

// TestConcurrentEncode encodes from many goroutines at once (sharing the
// word cache) and checks every result equals the sequential one. Run with
// -race to check the synchronisation.
func TestConcurrentEncode(t *testing.T) {
	tok := realTokenizer(t, "llama3")
	parts := chunks(loadCorpus(t))[:16]
	want := make([][]int, len(parts))
	for i, p := range parts {
		want[i] = tok.Encode(p)
	}
	fresh, err := Load(testmodelsPath(t, "llama3")) // cold cache, filled concurrently
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(parts))
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for k := range parts {
				i := (k + g) % len(parts)
				if got := fresh.Encode(parts[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Errorf("goroutine %d chunk %d differs", g, i)
				}
				if n := fresh.Count(parts[i]); n != len(want[i]) {
					errs <- fmt.Errorf("goroutine %d chunk %d: Count %d, want %d", g, i, n, len(want[i]))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCacheBounded fills one shard past its capacity and checks it is
// emptied rather than growing.
func TestCacheBounded(t *testing.T) {
	c := newWordCache()
	for i := 0; i < cacheShards*shardCapacity*2; i++ {
		c.put(fmt.Sprint(i), []int32{int32(i)})
	}
	for i := range c.shards {
		if n := len(c.shards[i].m); n > shardCapacity {
			t.Fatalf("shard %d holds %d words, capacity %d", i, n, shardCapacity)
		}
	}
	c.put("x", []int32{7})
	if ids, ok := c.get("x"); !ok || !slices.Equal(ids, []int32{7}) {
		t.Errorf("get(x) = %v, %v", ids, ok)
	}
}

// TestByteLevelAlphabet checks the GPT-2 byte map is a bijection onto 256
// printable characters and decodeToken inverts it.
func TestByteLevelAlphabet(t *testing.T) {
	a := newByteLevelAlphabet()
	seen := map[rune]bool{}
	var all []byte
	var enc strings.Builder
	for b := 0; b < 256; b++ {
		r := a.byteRune[b]
		if seen[r] || r == ' ' || !utf8.ValidRune(r) {
			t.Fatalf("byte %d maps to %U (duplicate or space)", b, r)
		}
		seen[r] = true
		all = append(all, byte(b))
		enc.WriteString(a.byteStr[b])
	}
	if got := a.decodeToken(nil, enc.String()); !slices.Equal(got, all) {
		t.Errorf("decodeToken does not invert the map")
	}
	if got := string(a.decodeToken(nil, "Ġhi€")); got != "Ġhi€" {
		t.Errorf("a token with a character outside the alphabet decodes to %q, want its own bytes", got)
	}
}
