package dataset

import (
	"errors"
	"fmt"

	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// Dataset sampling strategies (--dataset-sampling-strategy): the order in
// which conversations are handed out.
const (
	// SamplingSequential hands out conversations in order, wrapping around.
	// AIPerf 0.13's default for synthetic data and traces.
	SamplingSequential = "sequential"
	// SamplingRandom picks uniformly with replacement.
	SamplingRandom = "random"
	// SamplingShuffle hands out a random permutation, then a fresh one, and
	// so on: every conversation is used once before any repeats.
	SamplingShuffle = "shuffle"
)

// Sampler picks the index of the next conversation to send.
//
// A Sampler is not safe for concurrent use: Next is meant to be called from
// the one goroutine that issues credits.
type Sampler interface {
	// Next returns an index in [0, n) for the n the sampler was made for.
	Next() int
}

// NewSampler returns a sampler of n conversations using strategy (one of the
// Sampling constants). Its sequence is determined by seed, from the
// generator AIPerf derives for that sampler (Python's choice for random,
// numpy's shuffle for shuffle), so with the same seed the conversations go
// out in AIPerf's order; it does not depend on how the dataset was built.
func NewSampler(strategy string, n int, seed uint64) (Sampler, error) {
	var errs []error
	if n < 1 {
		errs = append(errs, fmt.Errorf("sampler needs at least 1 conversation, got %d", n))
	}
	switch strategy {
	case SamplingSequential, SamplingRandom, SamplingShuffle:
	default:
		errs = append(errs, fmt.Errorf("unknown dataset sampling strategy %q (want %q, %q or %q)",
			strategy, SamplingSequential, SamplingRandom, SamplingShuffle))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	switch strategy {
	case SamplingRandom:
		return &randomSampler{n: n, rng: pyrand.Derive(seed, streamRandom).Py()}, nil
	case SamplingShuffle:
		s := &shuffleSampler{order: make([]int, n), rng: pyrand.Derive(seed, streamShuffle).NP()}
		for i := range s.order {
			s.order[i] = i
		}
		s.reshuffle()
		return s, nil
	default:
		return &sequentialSampler{n: n}, nil
	}
}

// sequentialSampler yields 0, 1, ..., n-1, 0, 1, ...
type sequentialSampler struct {
	n, next int
}

func (s *sequentialSampler) Next() int {
	i := s.next
	s.next = (s.next + 1) % s.n
	return i
}

// randomSampler yields independent uniform indices (random.choice).
type randomSampler struct {
	n   int
	rng *pyrand.Random
}

func (s *randomSampler) Next() int { return s.rng.Choice(s.n) }

// shuffleSampler yields each index once per pass, in a fresh random order
// each pass.
type shuffleSampler struct {
	order []int
	next  int
	rng   *pyrand.Numpy
}

func (s *shuffleSampler) Next() int {
	if s.next == len(s.order) {
		s.reshuffle()
	}
	i := s.order[s.next]
	s.next++
	return i
}

// reshuffle starts a new pass in a new random order. Each pass shuffles the
// previous pass's order, as AIPerf does.
func (s *shuffleSampler) reshuffle() {
	s.rng.Shuffle(len(s.order), func(a, b int) { s.order[a], s.order[b] = s.order[b], s.order[a] })
	s.next = 0
}
