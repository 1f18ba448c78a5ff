package mockserver

import (
	"hash/crc32"
	"hash/fnv"
	"strings"
)

// Finish reasons, as OpenAI reports them.
const (
	finishLength = "length" // the output reached the token cap
	finishStop   = "stop"   // the "model" stopped on its own
)

// outputPlan is what a request will produce: how many tokens, why it stops,
// and which words. It is a pure function of the prompt and the length
// options, so the same request always gets the same answer.
type outputPlan struct {
	ISL int // user-turn prompt tokens (AIPerf's mock: the output length and latency follow it)
	// PromptTokens is usage.prompt_tokens: the whole conversation's tokens
	// (every message of a chat request, as a real server counts them).
	PromptTokens int
	Count        int    // output tokens (usage.completion_tokens)
	Finish       string // finishLength or finishStop
	Seed         uint32 // promptSeed of the prompt
	words        wordStream
}

// budget is AIPerf's output-length budget for a prompt of isl tokens.
//
//	max = max_tokens ?? max(2*isl, 16)
//	min = min(min_tokens ?? max(1, int(0.8*isl)), max)
//
// The default max is clamped to maxOutputTokens; explicit values were
// already bounded by parseRequest.
func budget(isl int, maxTokens, minTokens *int) (lo, hi int) {
	if maxTokens != nil {
		hi = *maxTokens
	} else {
		hi = min(max(2*isl, 16), maxOutputTokens)
	}
	if minTokens != nil {
		lo = *minTokens
	} else {
		lo = max(1, int(0.8*float64(isl)))
	}
	return min(lo, hi), hi
}

// outputCount picks the output length the way AIPerf's mock does:
//
//	target_max = max                             if max_tokens or min_tokens was given
//	           = max(min(int(1.2*isl), max), min) otherwise
//	count      = min + seed % (target_max - min + 1)
//
// ignore_eos yields exactly max. The finish reason is "length" exactly when
// count == max. seed is promptSeed of the prompt.
func outputCount(isl int, maxTokens, minTokens *int, ignoreEOS bool, seed uint32) (int, string) {
	lo, hi := budget(isl, maxTokens, minTokens)
	if ignoreEOS {
		return hi, finishLength
	}
	target := hi
	if maxTokens == nil && minTokens == nil {
		target = max(min(int(1.2*float64(isl)), hi), lo)
	}
	n := lo + int(seed%uint32(target-lo+1))
	if n == hi {
		return n, finishLength
	}
	return n, finishStop
}

// promptSeed is AIPerf's length seed: the CRC-32 of the first five prompt
// tokens joined by U+001F, modulo 1000. The mock sees no token strings, so
// the whitespace-separated words of the prompt stand in for tokens (the
// ids, for a pre-tokenized prompt). Stable across processes and platforms.
func promptSeed(text string) uint32 {
	f := strings.Fields(text)
	if len(f) == 0 {
		return 0
	}
	return crc32.ChecksumIEEE([]byte(strings.Join(f[:min(5, len(f))], "\x1f"))) % 1000
}

// planOutput computes the output plan of r, counting prompt tokens with
// count unless the prompt is pre-tokenized.
func planOutput(r *parsedRequest, count func(string) int) outputPlan {
	isl := len(r.Prompt.TokenIDs)
	if r.Prompt.TokenIDs == nil {
		isl = count(r.Prompt.Text)
	}
	seed := promptSeed(r.Prompt.Text)
	n, finish := outputCount(isl, r.maxOutput(), r.MinTokens, r.IgnoreEOS, seed)
	promptTokens := isl
	if r.Prompt.Context != "" {
		promptTokens = count(r.Prompt.Context)
	}
	return outputPlan{ISL: isl, PromptTokens: promptTokens, Count: n, Finish: finish, Seed: seed, words: newWordStream(r.Prompt.Text)}
}

// wordStream yields a deterministic sequence of vocabulary indices seeded
// by a 64-bit FNV-1a hash of the prompt (SplitMix64 steps), so the same
// prompt always produces the same text.
type wordStream struct{ state uint64 }

// newWordStream seeds a stream from the prompt text.
func newWordStream(text string) wordStream {
	h := fnv.New64a()
	h.Write([]byte(text))
	return wordStream{state: h.Sum64()}
}

// next returns the next index in [0, n).
func (w *wordStream) next(n int) int {
	w.state += 0x9e3779b97f4a7c15
	z := w.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}
