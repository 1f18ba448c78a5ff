package tokenizer

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

var update = flag.Bool("update", false, "rewrite the embedded o200k/ tables from github.com/tiktoken-go/tokenizer")

// tiktokenO200kTokens returns o200k_base's ordinary tokens by id, as the
// pinned github.com/tiktoken-go/tokenizer embeds them: the reference the
// embedded tables are made from.
func tiktokenO200kTokens(t *testing.T) []string {
	t.Helper()
	c := codec.NewO200kBase() // default ErrorModeNone: Decode returns raw bytes
	tokens := make([]string, o200kOrdinaryTokens)
	one := []uint{0}
	for id := range tokens {
		one[0] = uint(id)
		tok, err := c.Decode(one)
		if err != nil || tok == "" {
			t.Fatalf("o200k_base id %d has no token (%v)", id, err)
		}
		tokens[id] = tok
	}
	if _, err := c.Decode([]uint{o200kOrdinaryTokens}); err == nil {
		t.Fatalf("id %d decoded; the ordinary range is larger than assumed", o200kOrdinaryTokens)
	}
	return tokens
}

// TestO200kTablesMatchTiktoken checks the embedded tables, byte for byte,
// against the ones built from tiktoken-go's vocabulary (and, with -update,
// rewrites them), and then that every token maps to its id and back.
func TestO200kTablesMatchTiktoken(t *testing.T) {
	tokens := tiktokenO200kTokens(t)
	var blob bytes.Buffer
	ends := make([]byte, 4*len(tokens))
	seen := make(map[string]bool, len(tokens))
	for id, tok := range tokens {
		if seen[tok] {
			t.Fatalf("token %q appears twice (id %d)", tok, id)
		}
		seen[tok] = true
		blob.WriteString(tok)
		binary.LittleEndian.PutUint32(ends[4*id:], uint32(blob.Len()))
	}
	want := map[string][]byte{
		"o200k_base.tokens": blob.Bytes(),
		"o200k_base.ends":   ends,
		"o200k_base.index":  buildTokenIndex(tokens),
	}
	embedded := map[string]string{
		"o200k_base.tokens": o200kTokenBytes,
		"o200k_base.ends":   o200kTokenEnds,
		"o200k_base.index":  o200kTokenIndex,
	}
	for name, data := range want {
		if *update {
			if err := os.WriteFile(filepath.Join("o200k", name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if embedded[name] != string(data) {
			t.Errorf("o200k/%s differs from the table built from tiktoken-go (%d vs %d bytes); rerun with -update", name, len(embedded[name]), len(data))
		}
	}
	if *update {
		t.Skip("tables rewritten; rerun without -update to check them (go:embed reads them at build time)")
	}
	v := o200kVocabulary()
	for id, tok := range tokens {
		if got := v.token(id); got != tok {
			t.Fatalf("token(%d) = %q, want %q", id, got, tok)
		}
		if got, ok := v.rank(tok); !ok || int(got) != id {
			t.Fatalf("rank(%q) = %d, %v; want %d", tok, got, ok, id)
		}
	}
	for b := range 256 {
		if _, ok := v.rank(string([]byte{byte(b)})); !ok {
			t.Errorf("byte %#x is not a token", b)
		}
	}
}

// TestO200kRankMisses checks that byte strings that are not tokens are not
// found, including ones that share a token's prefix or hash slot run.
func TestO200kRankMisses(t *testing.T) {
	v := o200kVocabulary()
	for _, s := range []string{"", "the quick brown fox jumps", "\x00\x01", " theeeeeeeeeeeeeeeeeee", "zzqzzqzzq", strings.Repeat(" ", 300), strings.Repeat("a", 256+3)} {
		if id, ok := v.rank(s); ok {
			t.Errorf("rank(%q) = %d, want not found", s, id)
		}
	}
}

func BenchmarkO200kRank(b *testing.B) {
	v := o200kVocabulary()
	pieces := []string{" the", " of", "ing", " times", ",", " incredulity", "zq"}
	for b.Loop() {
		for _, p := range pieces {
			v.rank(p)
		}
	}
}

// firstUseEnv makes TestBuiltinFirstUseBuildsNothing measure, in the fresh
// process it re-executes the test binary as.
const firstUseEnv = "AIPERF_TOKENIZER_FIRST_USE_CHILD"

// TestBuiltinFirstUseBuildsNothing checks that the builtin tokenizer's
// first use in a process builds no table: its first Encode allocates no
// more than a later one (building the 200,000-entry map it once built made
// hundreds of thousands of allocations, and held up a client's first prompt
// and a mock's first requests by 0.1-0.5 s). Allocation counts, not time;
// in a fresh process (the test binary re-executed for this test alone),
// since another test would already have used the tokenizer.
func TestBuiltinFirstUseBuildsNothing(t *testing.T) {
	if os.Getenv(firstUseEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBuiltinFirstUseBuildsNothing$", "-test.v")
		cmd.Env = append(os.Environ(), firstUseEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("fresh process: %v\n%s", err, out)
		}
		t.Logf("fresh process:\n%s", out)
		return
	}
	const text = "Hello, world! The quick brown fox jumps over the lazy dog. 你好 🚀 12345"
	encode := func() uint64 {
		tok, err := Builtin()
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tok.Encode(text)
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	first, later := encode(), encode()
	t.Logf("first Encode: %d allocations, a later one %d", first, later)
	if first > later+8 {
		t.Errorf("the first Encode made %d allocations, a later one %d: the first use builds something", first, later)
	}
}
