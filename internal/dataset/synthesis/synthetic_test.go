package synthesis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

func builtinTokenizer(t testing.TB) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func mustSynthetic(t testing.TB, o SyntheticOptions, tok tokenizer.Tokenizer) *dataset.Dataset {
	t.Helper()
	ds, err := Synthetic(o, tok)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Len() != o.Entries {
		t.Fatalf("%d conversations, want %d", ds.Len(), o.Entries)
	}
	return ds
}

// checkTurns checks the invariants of every synthetic turn: one user text
// whose recorded count is its true token count.
func checkTurns(t *testing.T, ds *dataset.Dataset, tok tokenizer.Tokenizer) {
	t.Helper()
	for _, c := range ds.Conversations {
		if len(c.Turns) != 1 {
			t.Fatalf("%s: %d turns, want 1", c.ID, len(c.Turns))
		}
		turn := c.Turns[0]
		if turn.Role != "user" || len(turn.Texts) != 1 || turn.Model != "" {
			t.Fatalf("%s: unexpected turn %+v", c.ID, turn)
		}
		if n := tok.Count(strings.Join(turn.Texts, " ")); n != turn.InputTokens {
			t.Fatalf("%s: InputTokens = %d, but the text has %d tokens", c.ID, turn.InputTokens, n)
		}
	}
}

func TestSyntheticFixedLength(t *testing.T) {
	tok := builtinTokenizer(t)
	for _, isl := range []int{1, 7, 550} {
		ds := mustSynthetic(t, SyntheticOptions{ISLMean: isl, Entries: 40, Seed: 7, SeedSet: true}, tok)
		checkTurns(t, ds, tok)
		for i, c := range ds.Conversations {
			if got := c.Turns[0].InputTokens; got != isl {
				t.Errorf("ISL %d: prompt %d has %d tokens", isl, i, got)
			}
			if c.Turns[0].MaxTokens != 0 {
				t.Errorf("MaxTokens = %d with no OSL", c.Turns[0].MaxTokens)
			}
			if want := fmt.Sprintf("session_%06d", i); c.ID != want {
				t.Errorf("ID = %q, want %q", c.ID, want)
			}
		}
	}
}

// TestPromptExactLength measures how often the re-encode loop reaches the
// requested length exactly, over lengths from 1 to 3,000 tokens.
func TestPromptExactLength(t *testing.T) {
	tok := builtinTokenizer(t)
	c, err := newCorpus(tok)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(99, 99))
	b := promptBuilder{tok: tok, corpus: c, pick: rng.IntN}
	total, inexact, firstDecodeExact := 0, 0, 0
	for _, n := range []int{1, 2, 3, 5, 10, 50, 128, 550, 1000, 3000} {
		for i := range 60 {
			window := c.Window(rng.IntN, n, nil)
			if len(tok.Encode(tok.Decode(window))) == n {
				firstDecodeExact++
			}
			text, count := b.build(n)
			total++
			if got := tok.Count(text); got != count {
				t.Fatalf("n=%d #%d: reported %d tokens, text has %d", n, i, count, got)
			}
			if count != n {
				inexact++
				t.Logf("n=%d #%d: closest prompt has %d tokens", n, i, count)
			}
		}
	}
	t.Logf("%d prompts: %d exact after the first decode, %d not exact after %d fix-ups",
		total, firstDecodeExact, inexact, maxLengthFixups)
	// The fix-up loop converges on this corpus; a regression here means
	// prompts stopped matching the requested ISL.
	if inexact > total/100 {
		t.Errorf("%d of %d prompts missed their length", inexact, total)
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 120, ISLStddev: 30, OSLMean: 64, OSLStddev: 16, Entries: 30, Seed: 42, SeedSet: true}
	a := mustSynthetic(t, o, tok)
	checkTurns(t, a, tok)

	// Same seed, fresh token cache, one goroutine: identical.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b := mustSynthetic(t, o, tok)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different datasets (-first +second):\n%s", diff)
	}

	o.Seed = 43
	c := mustSynthetic(t, o, tok)
	same := 0
	for i := range a.Conversations {
		if a.Conversations[i].Turns[0].Texts[0] == c.Conversations[i].Turns[0].Texts[0] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seeds 42 and 43 share %d prompts", same)
	}
}

// TestSyntheticStreamsIndependent checks that each knob draws from its own
// random stream.
func TestSyntheticStreamsIndependent(t *testing.T) {
	tok := builtinTokenizer(t)
	base := SyntheticOptions{ISLMean: 80, ISLStddev: 20, Entries: 12, Seed: 5, SeedSet: true}
	a := mustSynthetic(t, base, tok)

	withOSL := base
	withOSL.OSLMean, withOSL.OSLStddev = 100, 10
	b := mustSynthetic(t, withOSL, tok)
	for i := range a.Conversations {
		ta, tb := a.Conversations[i].Turns[0], b.Conversations[i].Turns[0]
		if ta.Texts[0] != tb.Texts[0] || ta.InputTokens != tb.InputTokens {
			t.Fatalf("setting an OSL changed prompt %d", i)
		}
		if tb.MaxTokens < 1 {
			t.Fatalf("MaxTokens = %d with an OSL", tb.MaxTokens)
		}
	}

	more := base
	more.Entries = 20
	c := mustSynthetic(t, more, tok)
	if diff := cmp.Diff(a.Conversations, c.Conversations[:base.Entries]); diff != "" {
		t.Errorf("more entries changed the first ones (-12 entries +20 entries):\n%s", diff)
	}
}

func TestSyntheticLengthDistribution(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 100, ISLStddev: 25, OSLMean: 300, OSLStddev: 50, Entries: 300, Seed: 11, SeedSet: true}
	ds := mustSynthetic(t, o, tok)
	checkTurns(t, ds, tok)
	var isl, osl []float64
	for _, c := range ds.Conversations {
		isl = append(isl, float64(c.Turns[0].InputTokens))
		osl = append(osl, float64(c.Turns[0].MaxTokens))
	}
	for _, tc := range []struct {
		name         string
		xs           []float64
		mean, stddev float64
	}{{"ISL", isl, 100, 25}, {"OSL", osl, 300, 50}} {
		m, s := meanStddev(tc.xs)
		t.Logf("%s: mean %.1f stddev %.1f over %d", tc.name, m, s, len(tc.xs))
		// 300 draws: the standard error of the mean is stddev/17.
		if math.Abs(m-tc.mean) > tc.stddev/5 || math.Abs(s-tc.stddev) > tc.stddev/4 {
			t.Errorf("%s: mean %.1f stddev %.1f, want about %v and %v", tc.name, m, s, tc.mean, tc.stddev)
		}
	}
}

func meanStddev(xs []float64) (mean, stddev float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		stddev += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(stddev / float64(len(xs)))
}

func TestSyntheticUnseeded(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 20, Entries: 5}
	a, b := mustSynthetic(t, o, tok), mustSynthetic(t, o, tok)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for _, ds := range []*dataset.Dataset{a, b} {
		checkTurns(t, ds, tok)
		for _, c := range ds.Conversations {
			if !uuid.MatchString(c.ID) {
				t.Errorf("unseeded ID %q is not a version 4 UUID", c.ID)
			}
			if seen[c.ID] {
				t.Errorf("ID %q repeated", c.ID)
			}
			seen[c.ID] = true
		}
	}
	if a.Conversations[0].Turns[0].Texts[0] == b.Conversations[0].Turns[0].Texts[0] {
		t.Error("two unseeded datasets start with the same prompt")
	}
}

func TestSyntheticRejectsBadOptions(t *testing.T) {
	_, err := Synthetic(SyntheticOptions{
		ISLMean: 0, ISLStddev: math.NaN(), OSLMean: -1, OSLStddev: -2, Entries: 0,
	}, nil)
	if err == nil {
		t.Fatal("Synthetic accepted bad options")
	}
	for _, want := range []string{
		"input length mean must be at least 1, got 0",
		"input length stddev must be a non-negative number, got NaN",
		"output length mean must not be negative, got -1",
		"output length stddev must not be negative, got -2",
		"dataset entries must be at least 1, got 0",
		"need a tokenizer",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	tok := builtinTokenizer(t)
	for _, o := range []SyntheticOptions{
		{ISLMean: 10, ISLStddev: math.Inf(1), Entries: 1},
		{ISLMean: 10, ISLStddev: -1, Entries: 1},
		{ISLMean: -5, Entries: 1},
	} {
		if _, err := Synthetic(o, tok); err == nil {
			t.Errorf("Synthetic(%+v) succeeded", o)
		}
	}
	if err := (SyntheticOptions{ISLMean: 1, Entries: 1}).Validate(); err != nil {
		t.Errorf("minimal options rejected: %v", err)
	}
}

// BenchmarkSynthetic100x550 measures AIPerf's default synthetic dataset:
// 100 prompts of 550 tokens, each run with a fresh token cache (the
// tokenizer's vocabulary and the decompressed corpus are loaded once per
// process, before timing).
func BenchmarkSynthetic100x550(b *testing.B) {
	tok := builtinTokenizer(b)
	o := SyntheticOptions{ISLMean: 550, Entries: 100, Seed: 1, SeedSet: true}
	mustSynthetic(b, o, tok)
	b.ReportAllocs()
	for b.Loop() {
		mustSynthetic(b, o, tok)
	}
}
