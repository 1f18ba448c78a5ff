package endpoint

import "github.com/aiperf-go/aiperf/internal/dataset"

// WithTurnExtra returns the options to format turn t with: o itself when
// the turn has no per-turn extra fields, else a copy whose Extra is the
// run's extra inputs followed by the turn's (dataset "extra"). Since Extra
// is merged in order with dict-update semantics, the turn's fields win on
// collision and land after the run's, as AIPerf merges Turn.extra_body
// after the endpoint's extra; stream handling then sees the merged body.
// o is not modified.
func WithTurnExtra(o *Options, t *dataset.Turn) *Options {
	if len(t.Extra) == 0 {
		return o
	}
	c := *o
	c.Extra = make([]ExtraInput, 0, len(o.Extra)+len(t.Extra))
	c.Extra = append(c.Extra, o.Extra...)
	for _, f := range t.Extra {
		c.Extra = append(c.Extra, ExtraInput{Key: f.Key, Value: f.Value, Turn: true})
	}
	return &c
}
