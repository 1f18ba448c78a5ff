package dataset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// SyntheticOptions describes a synthetic text dataset: AIPerf's default
// workload, prompts cut from the Shakespeare corpus by token count.
type SyntheticOptions struct {
	// ISLMean is the mean prompt length in tokens (--isl); at least 1.
	ISLMean int
	// ISLStddev is the standard deviation of the prompt length
	// (--isl-stddev); 0 makes every prompt exactly ISLMean tokens.
	ISLStddev float64
	// OSLMean is the mean requested output length (--osl), sent as the
	// turn's max tokens; 0 leaves max tokens unset.
	OSLMean int
	// OSLStddev is the standard deviation of the requested output length
	// (--osl-stddev).
	OSLStddev int
	// Entries is the number of conversations (--num-dataset-entries); at
	// least 1.
	Entries int
	// Seed is the random seed (--random-seed); it is used only when SeedSet.
	Seed uint64
	// SeedSet reports whether a seed was given. Without one, a random seed
	// is drawn, so every run differs, and conversation IDs are random UUIDs
	// rather than AIPerf's "session_000000" sequence.
	SeedSet bool
	// PromptSpecialTokens is the number of special tokens the server adds
	// to every prompt (see PromptSpecialTokens); it is subtracted from
	// ISLMean, as AIPerf 0.13 does, so the server sees ISLMean tokens.
	PromptSpecialTokens int
	// ChatOverhead is the chat template's wrapping (--apply-chat-template;
	// see EstimateChatOverhead). Each prompt is shortened by its FirstTurn
	// share so that the rendered prompt has the drawn length. Zero without
	// a template.
	ChatOverhead ChatOverhead
	// ChatTemplate, when set, is the template the prompts are rendered with
	// (--apply-chat-template). The estimate above is exact only when the
	// template's text and the prompt do not interact (no merge across
	// their boundary, no trimming of the prompt); each prompt is then fitted
	// so that its rendering has the drawn length plus ChatOverhead's share
	// plus PromptSpecialTokens (see fitRendered).
	ChatTemplate *chattemplate.Template
}

// islMean is the mean length of the prompt text itself: ISLMean less the
// prompt special tokens (floored at 0) and less the chat-template share
// of the first turn (floored at 1), in AIPerf's order.
func (o SyntheticOptions) islMean() int {
	mean := max(0, o.ISLMean-o.PromptSpecialTokens)
	if adj := o.ChatOverhead.FirstTurn(); adj > 0 {
		mean -= adj
	}
	return max(1, mean)
}

// Validate reports every problem with o at once.
func (o SyntheticOptions) Validate() error {
	var errs []error
	if o.ISLMean < 1 {
		errs = append(errs, fmt.Errorf("synthetic input length mean must be at least 1, got %d", o.ISLMean))
	}
	if math.IsNaN(o.ISLStddev) || math.IsInf(o.ISLStddev, 0) || o.ISLStddev < 0 {
		errs = append(errs, fmt.Errorf("synthetic input length stddev must be a non-negative number, got %v", o.ISLStddev))
	}
	if o.OSLMean < 0 {
		errs = append(errs, fmt.Errorf("output length mean must not be negative, got %d", o.OSLMean))
	}
	if o.OSLStddev < 0 {
		errs = append(errs, fmt.Errorf("output length stddev must not be negative, got %d", o.OSLStddev))
	}
	if o.Entries < 1 {
		errs = append(errs, fmt.Errorf("number of dataset entries must be at least 1, got %d", o.Entries))
	}
	if o.PromptSpecialTokens < 0 || o.ChatOverhead.PerRequest < 0 || o.ChatOverhead.PerMessage < 0 {
		errs = append(errs, fmt.Errorf("prompt special tokens and chat-template overhead must not be negative, got %d, %+v", o.PromptSpecialTokens, o.ChatOverhead))
	}
	return errors.Join(errs...)
}

// Synthetic builds o.Entries single-turn conversations of synthetic prompts,
// as AIPerf's synthetic composer does with its default corpus.
//
// Each prompt's length n is drawn from a normal distribution around ISLMean
// (at least 1 token), less the prompt special tokens and chat-template
// overhead when those are set. The prompt is n consecutive corpus tokens from a random
// position, decoded to text; since byte-pair boundaries can merge or split
// when text is re-encoded, the text is re-encoded and trimmed or extended up
// to ten times until it encodes to exactly n tokens. When that fails (rare)
// the closest text is kept. Either way Turn.InputTokens is the true token
// count of the final text. Turn.MaxTokens is drawn around OSLMean when it is
// set.
//
// The same options, seed and tokenizer always give the same dataset. Only
// the corpus chunks the prompts touch are tokenized, and prompts are built in
// parallel, so the cost is proportional to Entries x ISLMean.
func Synthetic(o SyntheticOptions, tok tokenizer.Tokenizer) (*Dataset, error) {
	err := o.Validate()
	if tok == nil {
		err = errors.Join(err, errors.New("synthetic prompts need a tokenizer"))
	}
	if err != nil {
		return nil, err
	}
	seed := o.Seed
	if !o.SeedSet {
		seed = rand.Uint64()
	}
	// Let the tokenizer load its vocabulary (if it loads lazily) while the
	// corpus decompresses.
	var warm sync.WaitGroup
	warm.Go(func() { tok.Count("") })
	c, err := newCorpus(tok)
	warm.Wait()
	if err != nil {
		return nil, err
	}

	lengthRNG := newStream(seed, streamPromptLength)
	lengths := make([]int, o.Entries)
	for i := range lengths {
		lengths[i] = positiveNormalInt(lengthRNG, float64(o.islMean()), o.ISLStddev)
	}

	var maxTokensRNG, idRNG *rand.Rand
	if o.OSLMean > 0 {
		maxTokensRNG = newStream(seed, streamMaxTokens)
	}
	if !o.SeedSet {
		idRNG = newStream(seed, streamSessionID)
	}
	convs := make([]Conversation, o.Entries)
	for i := range convs {
		conv := &convs[i]
		if idRNG != nil {
			conv.ID = newUUID(idRNG)
		} else {
			conv.ID = fmt.Sprintf("session_%06d", i)
		}
		turn := Turn{Role: "user"}
		if maxTokensRNG != nil {
			turn.MaxTokens = positiveNormalInt(maxTokensRNG, float64(o.OSLMean), float64(o.OSLStddev))
		}
		conv.Turns = []Turn{turn}
	}

	b := promptBuilder{tok: tok, corpus: c}
	forEachParallel(o.Entries, func(i int) {
		rng := promptStream(seed, i)
		text, count := b.build(rng, lengths[i])
		if o.ChatTemplate != nil {
			target := lengths[i] + o.ChatOverhead.FirstTurn() + o.PromptSpecialTokens
			text, count = b.fitRendered(rng, o.ChatTemplate, target, text, count)
		}
		turn := &convs[i].Turns[0]
		turn.Texts = []string{text}
		turn.InputTokens = count
	})
	return &Dataset{Conversations: convs}, nil
}

// maxLengthFixups bounds the re-encode/adjust loop of promptBuilder.build,
// as in AIPerf 0.12+.
const maxLengthFixups = 10

// promptBuilder cuts prompts of a given token length from a corpus. It is
// safe for concurrent use.
type promptBuilder struct {
	tok    tokenizer.Tokenizer
	corpus *corpus
}

// build returns a prompt of n tokens drawn with rng, and its true token
// count, which differs from n only when maxLengthFixups rounds of adjustment
// did not reach n exactly; the text returned is then the closest seen.
func (b *promptBuilder) build(rng *rand.Rand, n int) (text string, count int) {
	ids := b.corpus.window(rng, n, make([]int, 0, n))
	best, bestCount := "", -1
	consider := func(t string, c int) bool {
		if bestCount < 0 || absInt(c-n) < absInt(bestCount-n) {
			best, bestCount = t, c
		}
		return c == n
	}
	for range maxLengthFixups {
		t := b.tok.Decode(ids)
		// Continue from the re-encoded ids, as AIPerf (and vLLM's
		// benchmark) do: trimming them, rather than the original window,
		// is what converges.
		ids = b.tok.Encode(t)
		if consider(t, len(ids)) {
			return t, n
		}
		if len(ids) > n {
			ids = ids[:n]
		} else {
			ids = b.corpus.window(rng, n-len(ids), ids)
		}
	}
	t := b.tok.Decode(ids)
	consider(t, b.tok.Count(t))
	return best, bestCount
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// forEachParallel calls f(0) ... f(n-1) from up to GOMAXPROCS goroutines
// and returns when all calls have returned.
func forEachParallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}
