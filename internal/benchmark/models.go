package benchmark

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// streamModelSelection names the random model choice's stream, AIPerf's
// derived identifier.
const streamModelSelection = "composer.turn.model_selection"

// assignModels gives every turn that names no model one of models, as
// AIPerf's composers do when -m lists several (--model-selection-strategy):
// round_robin gives the n-th such turn, in dataset order, models[n mod
// len]; random draws each turn's model as AIPerf does, with Python's
// random.choice on the generator AIPerf derives from the run's seed for
// "composer.turn.model_selection", so the same seed gives AIPerf's model
// sequence. A turn's own model (a dataset "model" field) and raw payloads
// are left alone. With one model nothing changes: the run's model is every
// request's.
func assignModels(ds *dataset.Dataset, models []string, strategy config.ModelSelectionStrategy, seed uint64) error {
	if len(models) < 2 {
		return nil
	}
	var rng *pyrand.Random
	switch strategy {
	case config.ModelRoundRobin:
	case config.ModelRandom:
		rng = pyrand.Derive(seed, streamModelSelection).Py()
	default:
		return fmt.Errorf("--model-selection-strategy: unknown strategy %q", strategy)
	}
	n := 0
	ds.Expand()
	for c := range ds.Conversations {
		for t := range ds.Conversations[c].Turns {
			turn := &ds.Conversations[c].Turns[t]
			if turn.Model != "" || turn.RawPayload != nil {
				continue
			}
			if rng != nil {
				turn.Model = models[rng.Choice(len(models))]
			} else {
				turn.Model = models[n%len(models)]
			}
			n++
		}
	}
	return nil
}
