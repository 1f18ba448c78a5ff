package config

// Rankings defaults, the ones AIPerf 0.13 actually uses: ten passages of
// 128 tokens and a query of 32 tokens per request. Its help prints 1, 550
// and 550, but an option not given is left out of its rankings section,
// whose own defaults are these.
const (
	DefaultRankingsPassages      = 10
	DefaultRankingsPassageTokens = 128
	DefaultRankingsQueryTokens   = 32
)

// Rankings shapes the synthetic data of the rankings endpoints (AIPerf's
// "Rankings" group): each request is one query and a normally distributed
// number of passages, with normally distributed token lengths. nil fields
// were not given.
type Rankings struct {
	PassagesMean        *int `json:"passages_mean,omitempty"`
	PassagesStddev      *int `json:"passages_stddev,omitempty"`
	PassageTokensMean   *int `json:"passage_tokens_mean,omitempty"`
	PassageTokensStddev *int `json:"passage_tokens_stddev,omitempty"`
	QueryTokensMean     *int `json:"query_tokens_mean,omitempty"`
	QueryTokensStddev   *int `json:"query_tokens_stddev,omitempty"`
}

// RankingsSpec is the resolved rankings shape.
type RankingsSpec struct {
	PassagesMean, PassagesStddev           int
	PassageTokensMean, PassageTokensStddev int
	QueryTokensMean, QueryTokensStddev     int
}

// Spec resolves the defaults.
func (r *Rankings) Spec() RankingsSpec {
	or := func(p *int, def int) int {
		if p == nil {
			return def
		}
		return *p
	}
	return RankingsSpec{
		PassagesMean: or(r.PassagesMean, DefaultRankingsPassages), PassagesStddev: or(r.PassagesStddev, 0),
		PassageTokensMean: or(r.PassageTokensMean, DefaultRankingsPassageTokens), PassageTokensStddev: or(r.PassageTokensStddev, 0),
		QueryTokensMean: or(r.QueryTokensMean, DefaultRankingsQueryTokens), QueryTokensStddev: or(r.QueryTokensStddev, 0),
	}
}

// Given reports whether any rankings option was set.
func (r *Rankings) Given() bool {
	return r.PassagesMean != nil || r.PassagesStddev != nil || r.PassageTokensMean != nil ||
		r.PassageTokensStddev != nil || r.QueryTokensMean != nil || r.QueryTokensStddev != nil
}

// IsRankings reports whether t is a rankings endpoint, which gets
// synthetic query-and-passages data (AIPerf: "rankings" in the name).
func (t EndpointType) IsRankings() bool {
	return t == EndpointNIMRankings || t == EndpointHFTEIRankings || t == EndpointCohereRankings
}

func (c *Config) validateRankings(p *problems) {
	r := &c.Rankings
	for _, f := range []struct {
		flag string
		v    *int
		min  int
	}{
		{"--rankings-passages-mean", r.PassagesMean, 1},
		{"--rankings-passages-stddev", r.PassagesStddev, 0},
		{"--rankings-passages-prompt-token-mean", r.PassageTokensMean, 1},
		{"--rankings-passages-prompt-token-stddev", r.PassageTokensStddev, 0},
		{"--rankings-query-prompt-token-mean", r.QueryTokensMean, 1},
		{"--rankings-query-prompt-token-stddev", r.QueryTokensStddev, 0},
	} {
		if f.v != nil && *f.v < f.min {
			p.add(f.flag, "must be >= %d, got %d", f.min, *f.v)
		}
	}
	if r.Given() && !c.Endpoint.Type.IsRankings() {
		p.add("--rankings-passages-mean", "the Rankings options apply to the rankings endpoint types (nim_rankings, hf_tei_rankings, cohere_rankings), not %q", c.Endpoint.Type)
	}
}
