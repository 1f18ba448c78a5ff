package synthesis

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/dataset"
)

// TestDeferredMatchesEager builds each dataset twice, at once and deferred,
// and requires the same conversations: a deferred dataset's texts come
// from the same draws in the same order, whichever way its conversations
// are asked for (in order from several goroutines, the last first, or all
// at once through Expand).
func TestDeferredMatchesEager(t *testing.T) {
	tok := builtinTokenizer(t)
	shapes := map[string]SyntheticOptions{
		"default":  {ISLMean: 120, ISLStddev: 40, OSLMean: 20, OSLStddev: 5, Entries: 150, Seed: 7, SeedSet: true},
		"unseeded": {ISLMean: 30, Entries: 20},
		"multi-turn batch": {ISLMean: 40, ISLStddev: 10, Entries: 30, Seed: 3, SeedSet: true,
			Shape: Shape{TurnsMean: 3, TurnsStddev: 1, BatchSize: intPtr(2), TurnDelayMean: 50, TurnDelayRatio: 1}},
		"prefix and system": {ISLMean: 25, Entries: 40, Seed: 11, SeedSet: true,
			Shape: Shape{PrefixPoolSize: 3, PrefixLength: 12, SystemLength: 9, TurnsMean: 2}},
		"sequence distribution": {ISLMean: 99, OSLMean: 7, Entries: 50, Seed: 21, SeedSet: true,
			Shape: Shape{SeqDist: []SeqDistPair{{ISL: 10, OSL: 5, Probability: 60}, {ISL: 300, OSL: 9, Probability: 40}}}},
		"user context (built at once)": {ISLMean: 20, Entries: 10, Seed: 5, SeedSet: true,
			Shape: Shape{UserContextLength: 8, TurnsMean: 2}},
	}
	orders := map[string]func(ds *dataset.Dataset){
		"in order, concurrently": func(ds *dataset.Dataset) {
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := g; i < ds.Len(); i += 4 {
						ds.Conversation(i)
					}
				})
			}
			wg.Wait()
		},
		"last first": func(ds *dataset.Dataset) { ds.Conversation(ds.Len() - 1) },
		"expand":     func(ds *dataset.Dataset) { ds.Expand() },
	}
	for name, o := range shapes {
		for oname, ask := range orders {
			t.Run(name+"/"+oname, func(t *testing.T) {
				if !o.SeedSet {
					o.Seed, o.SeedSet = 99, true // the same random seed for both builds
				}
				want := mustSynthetic(t, o, tok)
				o.Deferred = true
				got := mustSynthetic(t, o, tok)
				deferred := o.Shape.UserContextLength == 0
				if got.Deferred() != deferred {
					t.Fatalf("Deferred() = %v, want %v", got.Deferred(), deferred)
				}
				for i := range got.Len() {
					n, at, has := got.FirstTurn(i)
					wn, wat, whas := want.FirstTurn(i)
					if n != wn || at != wat || has != whas {
						t.Fatalf("conversation %d: FirstTurn %d %v %v before the build, want %d %v %v", i, n, at, has, wn, wat, whas)
					}
				}
				ask(got)
				for i := range want.Len() {
					if g, w := got.Conversation(i), want.Conversation(i); !reflect.DeepEqual(g, w) {
						t.Fatalf("conversation %d differs:\n got %+v\nwant %+v", i, g, w)
					}
				}
				if got.Deferred() {
					t.Fatal("Deferred() after every conversation was read")
				}
			})
		}
	}
}

// TestDeferredOnBuilt runs the hook once per conversation, in order, after
// its texts are built.
func TestDeferredOnBuilt(t *testing.T) {
	tok := builtinTokenizer(t)
	ds := mustSynthetic(t, SyntheticOptions{ISLMean: 10, Entries: 5, Seed: 1, SeedSet: true, Deferred: true}, tok)
	var seen []int
	ds.OnBuilt(func(i int) {
		if ds.Conversations[i].Turns[0].Texts[0] == "" {
			t.Errorf("conversation %d: hook ran before its text was built", i)
		}
		seen = append(seen, i)
	})
	ds.Conversation(2)
	ds.Complete()
	if !reflect.DeepEqual(seen, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("hook ran for %v, want 0..4 once each in order", seen)
	}
}

// TestRunTextMatchesDecode: a corpus window's text and count taken from
// the chunk's kept encoding are Decode of its tokens and the count of
// that text encoded afresh, for windows of every length anywhere in the
// corpus, which is what lets a prompt skip its first re-encoding.
func TestRunTextMatchesDecode(t *testing.T) {
	tok := builtinTokenizer(t)
	c, err := newCorpus(tok)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	taken := 0
	for k := range 3000 {
		n := 1 + r.IntN(2000)
		if k%10 == 0 {
			n = 1 + r.IntN(8)
		}
		start := r.IntN(c.size())
		text, count, ok := c.runText(start, n)
		if !ok {
			continue
		}
		taken++
		ids := c.appendWindow(nil, start, n)
		if dec := tok.Decode(ids); text != dec {
			t.Fatalf("window %d+%d: text differs from Decode", start, n)
		}
		if want := tok.Count(text); count != want {
			t.Fatalf("window %d+%d: count %d, Count %d", start, n, count, want)
		}
	}
	if taken < 2900 { // the rest cut a character
		t.Fatalf("only %d of 3000 windows were taken from the kept encoding", taken)
	}
}
