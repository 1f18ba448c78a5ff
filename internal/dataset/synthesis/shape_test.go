package synthesis

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

func intPtr(n int) *int { return &n }

// checkInputTokens checks that every turn's InputTokens is the count of
// its system, context and texts joined with spaces, as AIPerf counts ISL.
func checkInputTokens(t *testing.T, ds *dataset.Dataset, tok tokenizer.Tokenizer) {
	t.Helper()
	for _, c := range ds.Conversations {
		for i, turn := range c.Turns {
			if n := tok.Count(dataset.JoinInputs(&turn)); n != turn.InputTokens {
				t.Fatalf("%s turn %d: InputTokens = %d, but the inputs have %d tokens", c.ID, i, turn.InputTokens, n)
			}
		}
	}
}

func TestShapeZeroValueIsDefault(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 30, ISLStddev: 5, OSLMean: 20, OSLStddev: 3, Entries: 20, Seed: 11, SeedSet: true}
	want := mustSynthetic(t, o, tok)
	o.Shape = Shape{TurnsMean: 1, BatchSize: intPtr(1), TurnDelayRatio: 1}
	if diff := cmp.Diff(want, mustSynthetic(t, o, tok)); diff != "" {
		t.Fatalf("explicit defaults changed the dataset (-zero +explicit):\n%s", diff)
	}
}

func TestShapeBatch(t *testing.T) {
	tok := builtinTokenizer(t)
	for _, batch := range []int{0, 1, 3} {
		o := SyntheticOptions{ISLMean: 25, Entries: 10, Seed: 5, SeedSet: true, Shape: Shape{BatchSize: intPtr(batch)}}
		ds := mustSynthetic(t, o, tok)
		checkInputTokens(t, ds, tok)
		texts := map[string]bool{}
		for _, c := range ds.Conversations {
			turn := c.Turns[0]
			if len(turn.Texts) != batch {
				t.Fatalf("batch %d: %d texts", batch, len(turn.Texts))
			}
			for _, s := range turn.Texts {
				if n := tok.Count(s); n != 25 {
					t.Errorf("batch %d: a text has %d tokens, want 25", batch, n)
				}
				texts[s] = true
			}
		}
		if len(texts) != 10*batch {
			t.Errorf("batch %d: %d distinct texts, want %d", batch, len(texts), 10*batch)
		}
	}
}

func TestShapePrefixPool(t *testing.T) {
	tok := builtinTokenizer(t)
	const isl, pool, plen, entries = 40, 4, 30, 60
	o := SyntheticOptions{ISLMean: isl, Entries: entries, Seed: 9, SeedSet: true,
		Shape: Shape{PrefixPoolSize: pool, PrefixLength: plen, TurnsMean: 2, BatchSize: intPtr(2)}}
	ds := mustSynthetic(t, o, tok)
	checkInputTokens(t, ds, tok)

	// The pool is drawn first from the corpus generator, as Synthetic does.
	c, err := newCorpus(tok)
	if err != nil {
		t.Fatal(err)
	}
	b := promptBuilder{tok: tok, corpus: c, pick: pyrand.Derive(9, dataset.StreamPromptCorpus).Py().RandRange}
	ctx := o.Shape.buildContext(&b)
	var prefixes []string
	for _, ids := range ctx.prefixes {
		if len(ids) != plen {
			t.Fatalf("prefix has %d tokens, want %d", len(ids), plen)
		}
		prefixes = append(prefixes, tok.Decode(ids))
	}

	used := map[string]int{}
	exact, starts, total := 0, 0, 0
	for _, conv := range ds.Conversations {
		for ti, turn := range conv.Turns {
			for _, s := range turn.Texts {
				n := tok.Count(s)
				if ti > 0 {
					if n != isl {
						t.Errorf("%s turn %d: %d tokens; later turns have no prefix, want %d", conv.ID, ti, n, isl)
					}
					for _, p := range prefixes {
						if strings.HasPrefix(s, p) {
							t.Errorf("%s turn %d starts with a prefix", conv.ID, ti)
						}
					}
					continue
				}
				total++
				if n == isl+plen {
					exact++
				}
				for _, p := range prefixes {
					if strings.HasPrefix(s, p) {
						starts++
						used[p]++
						break
					}
				}
			}
		}
	}
	// The prefix and body are joined as token ids and the whole is fixed up
	// to prefix + ISL tokens; a byte-pair merge across the seam may, rarely,
	// rewrite the prefix's last characters or miss by a token.
	if exact < total*95/100 {
		t.Errorf("%d of %d first-turn texts have exactly %d tokens", exact, total, isl+plen)
	}
	if starts < total*95/100 {
		t.Errorf("%d of %d first-turn texts start with a pooled prefix", starts, total)
	}
	if len(used) != pool {
		t.Errorf("%d distinct prefixes used, want all %d", len(used), pool)
	}
}

func TestShapeSystemAndUserContext(t *testing.T) {
	tok := builtinTokenizer(t)
	const sys, uc, isl = 50, 20, 15
	o := SyntheticOptions{ISLMean: isl, Entries: 12, Seed: 4, SeedSet: true,
		Shape: Shape{SystemLength: sys, UserContextLength: uc, TurnsMean: 3}}
	ds := mustSynthetic(t, o, tok)
	checkInputTokens(t, ds, tok)
	system := ds.Conversations[0].Turns[0].System
	if n := tok.Count(system); n != sys {
		t.Fatalf("system prompt has %d tokens, want %d", n, sys)
	}
	contexts := map[string]bool{}
	for _, c := range ds.Conversations {
		ctx := c.Turns[0].UserContext
		if n := tok.Count(ctx); n != uc {
			t.Errorf("%s: user context has %d tokens, want %d", c.ID, n, uc)
		}
		contexts[ctx] = true
		for i, turn := range c.Turns {
			if turn.System != system || turn.UserContext != ctx {
				t.Errorf("%s turn %d: context prompts differ within the conversation", c.ID, i)
			}
			if n := tok.Count(turn.Texts[0]); n != isl {
				t.Errorf("%s turn %d: text has %d tokens, want %d", c.ID, i, n, isl)
			}
		}
	}
	if len(contexts) != len(ds.Conversations) {
		t.Errorf("%d distinct user contexts for %d conversations", len(contexts), len(ds.Conversations))
	}
}

func TestShapeSeqDistProportions(t *testing.T) {
	tok := builtinTokenizer(t)
	pairs := []SeqDistPair{{ISL: 4, OSL: 40, Probability: 20}, {ISL: 8, OSL: 80, Probability: 30}, {ISL: 12, OSL: 120, Probability: 50}}
	const n = 3000
	o := SyntheticOptions{ISLMean: 999, OSLMean: 7, Entries: n, Seed: 21, SeedSet: true, Shape: Shape{SeqDist: pairs}}
	ds := mustSynthetic(t, o, tok)
	checkInputTokens(t, ds, tok)
	counts := map[int]int{}
	for _, c := range ds.Conversations {
		turn := c.Turns[0]
		if turn.MaxTokens != turn.InputTokens*10 {
			t.Fatalf("%s: ISL %d with OSL %d; pairs must stay together", c.ID, turn.InputTokens, turn.MaxTokens)
		}
		counts[turn.InputTokens]++
	}
	// Pearson's chi-square over the three pairs (2 degrees of freedom):
	// 13.8 is its 0.999 quantile.
	chi := 0.0
	for _, p := range pairs {
		want := n * p.Probability / 100
		d := float64(counts[p.ISL]) - want
		chi += d * d / want
	}
	if len(counts) != 3 || chi > 13.8 {
		t.Fatalf("ISL counts %v, chi-square %.2f; want proportions 20/30/50", counts, chi)
	}
}

func TestShapeSeqDistStddev(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 1, Entries: 400, Seed: 8, SeedSet: true,
		Shape: Shape{SeqDist: []SeqDistPair{{ISL: 30, ISLStddev: 5, OSL: 100, OSLStddev: 10, Probability: 100}}}}
	ds := mustSynthetic(t, o, tok)
	var isl, osl []float64
	for _, c := range ds.Conversations {
		isl = append(isl, float64(c.Turns[0].InputTokens))
		osl = append(osl, float64(c.Turns[0].MaxTokens))
	}
	for _, x := range []struct {
		name       string
		xs         []float64
		mean, sdev float64
	}{{"ISL", isl, 30, 5}, {"OSL", osl, 100, 10}} {
		m, s := meanStddev(x.xs)
		if math.Abs(m-x.mean) > 1.5 || math.Abs(s-x.sdev) > x.sdev/4 {
			t.Errorf("%s mean %.2f stddev %.2f; want about %v and %v", x.name, m, s, x.mean, x.sdev)
		}
	}
}

func TestShapeDrawPair(t *testing.T) {
	s := Shape{SeqDist: []SeqDistPair{{ISL: 1, OSL: 1, Probability: 0}, {ISL: 2, OSL: 2, Probability: 100}, {ISL: 3, OSL: 3, Probability: 0}}}
	cum := s.cumulative()
	rng := pyrand.Derive(1, streamSeqDist)
	for range 1000 {
		if isl, _ := s.drawPair(rng, cum); isl != 2 {
			t.Fatalf("drew ISL %d from a pair of probability 0", isl)
		}
	}
}

func TestShapeTurnsAndDelays(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 5, Entries: 10, Seed: 2, SeedSet: true,
		Shape: Shape{TurnsMean: 3, TurnDelayMean: 100.9, TurnDelayRatio: 0.5}}
	for _, c := range mustSynthetic(t, o, tok).Conversations {
		if len(c.Turns) != 3 {
			t.Fatalf("%s: %d turns, want 3", c.ID, len(c.Turns))
		}
		for i, turn := range c.Turns {
			want := 50 * time.Millisecond // trunc(100.9) ms x 0.5
			if i == 0 {
				want = 0
			}
			if turn.Delay != want || turn.Role != "user" {
				t.Errorf("%s turn %d: delay %v role %q; want %v user", c.ID, i, turn.Delay, turn.Role, want)
			}
		}
	}

	o.Entries = 500
	o.Shape = Shape{TurnsMean: 4, TurnsStddev: 2, TurnDelayMean: 200, TurnDelayStddev: 40, TurnDelayRatio: 1}
	var turns, delays []float64
	for _, c := range mustSynthetic(t, o, tok).Conversations {
		if len(c.Turns) < 1 || c.Turns[0].Delay != 0 {
			t.Fatalf("%s: %d turns, first delay %v", c.ID, len(c.Turns), c.Turns[0].Delay)
		}
		turns = append(turns, float64(len(c.Turns)))
		for _, turn := range c.Turns[1:] {
			delays = append(delays, turn.Delay.Seconds()*1000)
		}
	}
	if m, s := meanStddev(turns); math.Abs(m-4.5) > 0.3 || math.Abs(s-2) > 0.4 {
		// Draws are rounded up, so the mean is about half a turn above 4.
		t.Errorf("turns mean %.2f stddev %.2f; want about 4.5 and 2", m, s)
	}
	if m, s := meanStddev(delays); math.Abs(m-200.5) > 5 || math.Abs(s-40) > 5 {
		t.Errorf("delays mean %.2f ms stddev %.2f; want about 200 and 40", m, s)
	}
}

func TestShapeDeterministic(t *testing.T) {
	tok := builtinTokenizer(t)
	o := SyntheticOptions{ISLMean: 20, ISLStddev: 4, OSLMean: 9, Entries: 15, Seed: 77, SeedSet: true,
		Shape: Shape{TurnsMean: 2, TurnsStddev: 1, TurnDelayMean: 10, TurnDelayStddev: 3, TurnDelayRatio: 1,
			BatchSize: intPtr(2), PrefixPoolSize: 3, PrefixLength: 7}}
	a, b := mustSynthetic(t, o, tok), mustSynthetic(t, o, tok)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different datasets:\n%s", diff)
	}
	o.Shape.PrefixPoolSize, o.Shape.PrefixLength, o.Shape.SystemLength, o.Shape.UserContextLength = 0, 0, 12, 6
	o.Shape.SeqDist = []SeqDistPair{{ISL: 10, OSL: 5, Probability: 40}, {ISL: 20, OSL: 9, ISLStddev: 2, Probability: 60}}
	a, b = mustSynthetic(t, o, tok), mustSynthetic(t, o, tok)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different datasets:\n%s", diff)
	}
}

func TestShapeRejectsBadOptions(t *testing.T) {
	tok := builtinTokenizer(t)
	for _, s := range []Shape{
		{TurnsStddev: -1},
		{TurnDelayMean: math.NaN()},
		{TurnDelayRatio: math.Inf(1)},
		{BatchSize: intPtr(-1)},
		{PrefixLength: -1},
		{SeqDist: []SeqDistPair{{ISL: 1, OSL: 1, Probability: 50}}},
		{SeqDist: []SeqDistPair{{ISL: 0, OSL: 1, Probability: 100}}},
	} {
		if _, err := Synthetic(SyntheticOptions{ISLMean: 5, Entries: 1, Shape: s}, tok); err == nil {
			t.Errorf("Synthetic accepted shape %+v", s)
		}
	}
}

// TestRangeRatioDraws pins --random-range-ratio's windows and draws to
// AIPerf 0.13's RangeRatioDistribution and SGLangRangeRatioDistribution
// (seed 42, ISL 100, OSL 50, ratio 0.3, one special token).
func TestRangeRatioDraws(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		style          string
		il, ih, ol, oh int
		draws          [][2]int
	}{
		{StyleVLLM, 69, 129, 35, 65, [][2]int{{124, 50}, {82, 64}, {71, 38}, {111, 65}, {94, 53}}},
		{StyleSGLang, 30, 100, 15, 50, [][2]int{{93, 33}, {45, 49}, {31, 18}, {77, 50}, {59, 36}}},
	} {
		r := &RangeRatio{ISL: 0.3, OSL: 0.3, Style: tc.style, Special: 1}
		if err := r.validate(); err != nil {
			t.Fatal(err)
		}
		il, ih, ol, oh := r.bounds(100, 50)
		if il != tc.il || ih != tc.ih || ol != tc.ol || oh != tc.oh {
			t.Errorf("%s: bounds [%d, %d] [%d, %d]; want [%d, %d] [%d, %d]", tc.style, il, ih, ol, oh, tc.il, tc.ih, tc.ol, tc.oh)
		}
		rng := pyrand.Derive(42, streamRangeRatio).NP()
		for i, want := range tc.draws {
			if isl, osl := r.draw(rng, 100, 50); isl != want[0] || osl != want[1] {
				t.Errorf("%s draw %d = (%d, %d); want (%d, %d)", tc.style, i, isl, osl, want[0], want[1])
			}
		}
	}
	for _, bad := range []RangeRatio{{ISL: 1, OSL: 0.1}, {ISL: -0.1}, {ISL: 1.5, OSL: 1.5, Style: StyleSGLang}, {ISL: 0.2, OSL: 0.3, Style: StyleSGLang}} {
		if err := bad.validate(); err == nil {
			t.Errorf("%+v: validate() = nil; want an error", bad)
		}
	}
}
