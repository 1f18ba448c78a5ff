package benchmark

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
)

// streamModelSelection names the random model choice's stream, AIPerf's
// derived identifier.
const streamModelSelection = "composer.turn.model_selection"

// assignModels gives every turn that names no model one of models, as
// AIPerf's composers do when -m lists several (--model-selection-strategy):
// round_robin gives the n-th such turn, in dataset order, models[n mod
// len]; random picks uniformly from a stream of the run's seed. A turn's
// own model (a dataset "model" field) and raw payloads are left alone. With
// one model nothing changes: the run's model is every request's.
func assignModels(ds *dataset.Dataset, models []string, strategy config.ModelSelectionStrategy, seed uint64) error {
	if len(models) < 2 {
		return nil
	}
	var rng *rand.Rand
	switch strategy {
	case config.ModelRoundRobin:
	case config.ModelRandom:
		key := sha256.Sum256([]byte(strconv.FormatUint(seed, 10) + ":" + streamModelSelection))
		rng = rand.New(rand.NewChaCha8(key))
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
				turn.Model = models[rng.IntN(len(models))]
			} else {
				turn.Model = models[n%len(models)]
			}
			n++
		}
	}
	return nil
}
