package loader

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// streamSynthesis draws the prefix-root tree of each synthesized request.
const streamSynthesis = "dataset.synthesis.synthesizer"

// Synthesis reshapes the requests of a trace as AIPerf 0.13's Synthesizer
// does (the Synthesis flags), keeping its prefix-sharing pattern:
//
//   - MaxISL drops requests whose recorded input_length exceeds it, before
//     anything else, and caps the synthesized ISL;
//   - with Transform, the hash ids every request shares with another are
//     its prefix (up to the first unshared one): PrefixLenMultiplier
//     stretches it (each id becomes int(m) interleaved ids, plus new ids
//     for the fraction) or cuts it, PromptLenMultiplier scales the rest of
//     the input (new ids, one per block), PrefixRootMultiplier spreads the
//     requests over that many copies of the prefix tree (each request's
//     ids offset into a randomly drawn copy), SpeedupRatio divides the
//     timestamps (int(ms / ratio)) and OutputLenMultiplier scales
//     output_length (rounded, at least 1);
//   - MaxOSL caps output_length, last.
//
// Requests are taken in session order (each session's requests together,
// sessions in order of first appearance), as AIPerf flattens them.
type Synthesis struct {
	// Transform applies the multipliers (AIPerf synthesizes only when one
	// of them differs from its default).
	Transform            bool
	SpeedupRatio         float64
	PrefixLenMultiplier  float64
	PrefixRootMultiplier int
	PromptLenMultiplier  float64
	OutputLenMultiplier  float64
	// MaxISL and MaxOSL are 0 when not set.
	MaxISL, MaxOSL int
}

// Active reports whether the synthesis changes anything.
func (s Synthesis) Active() bool { return s.Transform || s.MaxISL > 0 || s.MaxOSL > 0 }

// synthItem is what the Synthesizer sees of one request: its hash ids and
// input_length (hasInput: the request is given by its length, not by text,
// messages or a payload), timestamp and output_length (0 = none).
type synthItem struct {
	hashIDs  []int
	inputLen int
	hasInput bool
	ts       time.Duration
	hasTS    bool
	out      int
	// where names the request in errors.
	file string
	line int
}

// keep reports whether the request survives MaxISL.
func (s Synthesis) keep(it *synthItem) bool {
	return s.MaxISL <= 0 || !it.hasInput || it.inputLen <= s.MaxISL
}

// apply synthesizes items in place (already filtered by keep), with block
// size bs and the run's seed.
func (s Synthesis) apply(items []*synthItem, bs int, seed uint64) error {
	if s.Transform {
		ids, lens, err := s.multiply(items, bs, seed)
		if err != nil {
			return err
		}
		for i, it := range items {
			isl := lens[i]
			if len(ids[i]) == 0 {
				isl = bs // AIPerf's trace.get("input_length", block_size) for a trace with none
				if it.hasInput {
					isl = it.inputLen
				}
				it.hashIDs = nil
			} else {
				it.hashIDs = ids[i]
			}
			if s.MaxISL > 0 && isl > s.MaxISL {
				isl = s.MaxISL
			}
			if it.hasInput {
				it.inputLen = isl
			}
			if it.hasTS && s.SpeedupRatio > 0 {
				ms := math.Trunc(float64(it.ts) / float64(time.Millisecond) / s.SpeedupRatio)
				it.ts = time.Duration(ms) * time.Millisecond
			}
			if it.out > 0 {
				out := int(math.RoundToEven(float64(it.out) * s.OutputLenMultiplier))
				if s.MaxOSL > 0 {
					out = min(out, s.MaxOSL)
				}
				it.out = max(1, out)
			}
		}
	}
	if s.MaxOSL > 0 {
		for _, it := range items {
			it.out = min(it.out, s.MaxOSL)
		}
	}
	return nil
}

// multiply is the Synthesizer's _apply_multipliers: the new hash ids and
// input lengths of items.
func (s Synthesis) multiply(items []*synthItem, bs int, seed uint64) ([][]int, []int, error) {
	count := map[int]int{}
	for _, it := range items {
		for _, h := range it.hashIDs {
			count[h]++
		}
	}
	maxID := 0
	for h, n := range count {
		if n > 1 {
			maxID = max(maxID, h)
		}
	}
	pm, root := s.PrefixLenMultiplier, s.PrefixRootMultiplier
	mi := 1
	if pm > 1 {
		mi = int(pm)
	}
	maxID = (maxID + 1) * mi
	fresh := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = maxID + 1 + i
		}
		maxID += n
		return out
	}
	ids := make([][]int, len(items))
	lens := make([]int, len(items))
	for i, it := range items {
		inputLen := 0
		if it.hasInput {
			inputLen = it.inputLen
		}
		if len(it.hashIDs) == 0 {
			lens[i] = inputLen
			continue
		}
		var prefix []int
		for _, h := range it.hashIDs {
			if count[h] < 2 {
				break
			}
			prefix = append(prefix, h)
		}
		prefixLen := len(prefix) * bs
		promptLen := inputLen - prefixLen
		if promptLen < 0 {
			return nil, nil, &dataset.InputError{File: it.file, Line: it.line, Field: "input_length", Err: fmt.Errorf(
				"synthesis: input_length %d is shorter than its %d shared prefix blocks of %d tokens", inputLen, len(prefix), bs)}
		}
		var out []int
		newPrefixLen := prefixLen
		switch {
		case pm > 1:
			for _, h := range prefix {
				for j := range mi {
					out = append(out, h*mi+j)
				}
			}
			if extra := int(math.Ceil(float64(len(prefix))*pm)) - len(out); extra > 0 {
				out = append(out, fresh(extra)...)
			}
			newPrefixLen = len(out) * bs
		case pm < 1:
			n := max(1, int(float64(len(prefix))*pm))
			out = slices.Clone(prefix[:min(n, len(prefix))])
			newPrefixLen = n * bs // as AIPerf, even when the prefix is shorter
		default:
			out = slices.Clone(prefix)
		}
		newPromptLen := int(float64(promptLen) * s.PromptLenMultiplier)
		out = append(out, fresh((newPromptLen+bs-1)/bs)...)
		ids[i], lens[i] = out, newPrefixLen+newPromptLen
	}
	if root > 1 {
		base := maxID + 1
		rng := pyrand.Derive(seed, streamSynthesis).Py()
		for i := range ids {
			if len(ids[i]) == 0 {
				continue
			}
			if k := rng.RandInt(0, root-1); k > 0 {
				for j := range ids[i] {
					ids[i][j] += k * base
				}
			}
		}
	}
	return ids, lens, nil
}

// recorded applies the options to requests replayed as recorded, whose
// prompts cannot change (SageMaker captures, Baseten traces): MaxISL drops
// those with a longer recorded input (in[i] > 0), the output lengths and
// timestamps change as the Synthesizer changes them. keep lists the
// requests kept.
func (s Synthesis) recorded(in []int, turns []*dataset.Turn, seed uint64) (keep []bool) {
	keep = make([]bool, len(turns))
	var items []*synthItem
	var at []*dataset.Turn
	for i, t := range turns {
		it := synthItem{inputLen: in[i], hasInput: in[i] > 0, ts: t.Timestamp, hasTS: t.HasTimestamp, out: t.MaxTokens}
		if keep[i] = s.keep(&it); keep[i] {
			items, at = append(items, &it), append(at, t)
		}
	}
	s.apply(items, 1, seed) // no hash ids: nothing can fail
	for k, t := range at {
		t.Timestamp, t.MaxTokens = items[k].ts, items[k].out
	}
	return keep
}
