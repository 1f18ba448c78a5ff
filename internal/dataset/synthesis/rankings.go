package synthesis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// streamRankingsPassages names the passage-count draws, AIPerf's derived
// identifier. The query and passage lengths come from the prompt length
// stream and their texts from the corpus stream, as in AIPerf, whose
// composer derives two more generators it never draws from.
const streamRankingsPassages = "dataset.rankings.passages"

// Text names of a rankings turn (AIPerf's named-text contract).
const (
	TextQuery    = "query"
	TextPassages = "passages"
)

// RankingsOptions shape a synthetic rankings dataset: per conversation one
// turn of one query and a normally distributed number of passages, each
// text of a normally distributed token length, cut from the same corpus as
// the other synthetic prompts.
type RankingsOptions struct {
	Entries                                int
	PassagesMean, PassagesStddev           int
	PassageTokensMean, PassageTokensStddev int
	QueryTokensMean, QueryTokensStddev     int
	Seed                                   uint64
	SeedSet                                bool
}

// Validate reports every problem with o.
func (o RankingsOptions) Validate() error {
	var errs []error
	if o.Entries < 1 {
		errs = append(errs, fmt.Errorf("rankings: need at least one entry, got %d", o.Entries))
	}
	for _, c := range []struct {
		name string
		v    int
		min  int
	}{
		{"passages mean", o.PassagesMean, 1}, {"passages stddev", o.PassagesStddev, 0},
		{"passage tokens mean", o.PassageTokensMean, 1}, {"passage tokens stddev", o.PassageTokensStddev, 0},
		{"query tokens mean", o.QueryTokensMean, 1}, {"query tokens stddev", o.QueryTokensStddev, 0},
	} {
		if c.v < c.min {
			errs = append(errs, fmt.Errorf("rankings: %s must be >= %d, got %d", c.name, c.min, c.v))
		}
	}
	return errors.Join(errs...)
}

// SyntheticRankings builds the rankings dataset: conversation i has one
// turn whose Texts are its query then its passages, named by TextNames
// ("query", then "passages" for each passage).
//
// The draws follow AIPerf 0.13's synthetic_rankings composer in its order
// and from its generators (pyrand.Derive): per conversation the passage
// count, then the query's length and text, then each passage's length and
// text, lengths from the prompt length stream and windows from the corpus
// stream. So with the same seed, corpus and tokenizer the dataset is
// AIPerf's.
func SyntheticRankings(o RankingsOptions, tok tokenizer.Tokenizer) (*dataset.Dataset, error) {
	seed, err := runSeed("synthetic rankings", o.Validate(), tok, o.Seed, o.SeedSet)
	if err != nil {
		return nil, err
	}
	c, err := newCorpus(tok)
	if err != nil {
		return nil, err
	}
	b := promptBuilder{tok: tok, corpus: c, pick: pyrand.Derive(seed, dataset.StreamPromptCorpus).Py().RandRange}
	passagesRNG := pyrand.Derive(seed, streamRankingsPassages)
	lengthRNG := pyrand.Derive(seed, dataset.StreamPromptLength)
	sessionID := sessionIDs(seed, o.SeedSet)
	convs := make([]dataset.Conversation, o.Entries)
	for i := range convs {
		conv := &convs[i]
		conv.ID = sessionID(i)
		n := passagesRNG.SamplePositiveNormalInteger(float64(o.PassagesMean), float64(o.PassagesStddev))
		turn := dataset.Turn{Role: "user", Texts: make([]string, 1+n), TextNames: make([]string, 1+n)}
		turn.TextNames[0] = TextQuery
		turn.Texts[0], _ = b.build(lengthRNG.SamplePositiveNormalInteger(float64(o.QueryTokensMean), float64(o.QueryTokensStddev)))
		for p := 1; p <= n; p++ {
			turn.TextNames[p] = TextPassages
			turn.Texts[p], _ = b.build(lengthRNG.SamplePositiveNormalInteger(float64(o.PassageTokensMean), float64(o.PassageTokensStddev)))
		}
		conv.Turns = []dataset.Turn{turn}
	}
	dataset.ForEachParallel(len(convs), func(i int) {
		t := &convs[i].Turns[0]
		t.InputTokens = tok.Count(strings.Join(t.Texts, " "))
	})
	return &dataset.Dataset{Conversations: convs}, nil
}
