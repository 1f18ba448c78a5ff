// Package synthesis builds prompt text: the embedded Shakespeare, coding
// and random corpora, synthetic datasets cut from them by token count,
// hash-id prompts for traces, rankings datasets, and the chat-template
// overhead estimate.
package synthesis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/chattemplate"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
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
	// Corpus is where prompts are cut from (--prompt-corpus); nil means the
	// sonnet corpus.
	Corpus *PromptCorpus
	// FirstTurnMarker is the token cost of the cache-bust marker each
	// conversation's first user turn will carry (--cache-bust); its prompt
	// is that much shorter so the request has the drawn length.
	FirstTurnMarker int
	// Shape lays out conversations beyond one prompt: turns, delays, texts
	// per turn, an (ISL, OSL) mixture, prefix and context prompts. The zero
	// value is one turn of one text. The chat-template fit applies only to
	// the first turn of a request whose one text is its only message; later
	// turns, batches and requests with context prompts use the estimate
	// alone, as AIPerf does.
	Shape Shape
	// Deferred leaves the texts to be built in order as conversations are
	// asked for (dataset.NewDeferred), so the first request does not wait
	// for every prompt; the texts are the same. Without user-context
	// prompts only: those are drawn after every text.
	Deferred bool
}

// corpus is the corpus the prompts are cut from: o.Corpus, else the
// sonnet corpus.
func (o SyntheticOptions) corpus(tok tokenizer.Tokenizer) (*Corpus, error) {
	if o.Corpus != nil {
		return o.Corpus.Tokens(), nil
	}
	return newCorpus(tok)
}

// islMean is the mean length of the prompt text itself: ISLMean less the
// prompt special tokens (floored at 0) and less the chat-template share
// of the first turn (floored at 1), in AIPerf's order.
func (o SyntheticOptions) islMean() int {
	mean := max(0, o.ISLMean-o.PromptSpecialTokens)
	if adj := o.firstTurnAdjust(); adj > 0 {
		mean -= adj
	}
	return max(1, mean)
}

// firstTurnAdjust is what a conversation's first user turn gives up: the
// chat-template share and the cache-bust marker it will carry
// (AIPerf's first_turn_isl_adjustment).
func (o SyntheticOptions) firstTurnAdjust() int {
	return o.ChatOverhead.FirstTurn() + o.FirstTurnMarker
}

// laterISLMean is islMean for turns after the first, which give up only
// the per-message share of the chat-template overhead (AIPerf's
// subsequent_turn_isl_adjustment).
func (o SyntheticOptions) laterISLMean() int {
	return max(1, max(0, o.ISLMean-o.PromptSpecialTokens)-o.ChatOverhead.PerMessage)
}

// Validate reports every problem with o at once.
func (o SyntheticOptions) Validate() error {
	var errs []error
	if o.ISLMean < 1 && len(o.Shape.SeqDist) == 0 {
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
	errs = append(errs, o.Shape.validate())
	return errors.Join(errs...)
}

// runSeed checks a synthetic dataset's options (invalid, their Validate
// error) and tokenizer, and returns the seed its draws derive from: seed
// when seeded, else a random one.
func runSeed(what string, invalid error, tok tokenizer.Tokenizer, seed uint64, seeded bool) (uint64, error) {
	if tok == nil {
		invalid = errors.Join(invalid, errors.New(what+" need a tokenizer"))
	}
	if invalid != nil {
		return 0, invalid
	}
	if !seeded {
		seed = rand.Uint64()
	}
	return seed, nil
}

// Synthetic builds o.Entries conversations of synthetic prompts, as AIPerf's
// synthetic composer does with its default corpus.
//
// Each conversation has one turn unless o.Shape asks for more (see
// Shape); every turn has Shape's batch size of texts (one by default).
// Each text's length n is drawn from a normal distribution around ISLMean
// (at least 1 token), less the prompt special tokens and chat-template
// overhead when those are set; with a sequence distribution, each turn
// draws its (ISL, OSL) pair instead and all its texts have that ISL. The
// text is n consecutive corpus tokens from a random position, decoded to
// text; since byte-pair boundaries can merge or split when text is
// re-encoded, the text is re-encoded and trimmed or extended up to ten
// times until it encodes to exactly n tokens (when that fails, rarely, the
// last attempt is kept, as in AIPerf). A first turn's texts start with a
// prefix from the pool when there is one, joined at the token level so
// that the text has prefix + n tokens. Turn.MaxTokens is the drawn OSL, or
// is drawn around OSLMean when that is set. Turn.InputTokens is the true
// token count of the turn's system, user-context and text parts joined
// with spaces, as AIPerf counts ISL.
//
// Every draw follows AIPerf 0.13: each purpose has the generator AIPerf
// derives for it from the seed (pyrand.Derive, Python's random.Random
// under the same names), drawn in the same order (the shared system
// prompt, the prefix pool, then every text of every turn of every
// conversation, then the user-context prompts), so with the same seed,
// corpus and tokenizer the prompts are AIPerf's, byte for byte. The texts
// are therefore built one after another: where a window starts depends on
// how many fix-up draws the texts before it took. With o.Deferred they
// are built so, in order, as the conversations are asked for.
func Synthetic(o SyntheticOptions, tok tokenizer.Tokenizer) (*dataset.Dataset, error) {
	seed, err := runSeed("synthetic prompts", o.Validate(), tok, o.Seed, o.SeedSet)
	if err != nil {
		return nil, err
	}
	// Let the tokenizer load its vocabulary (if it loads lazily) while the
	// corpus decompresses.
	var warm sync.WaitGroup
	warm.Go(func() { tok.Count("") })
	c, err := o.corpus(tok)
	warm.Wait()
	if err != nil {
		return nil, err
	}
	b := promptBuilder{tok: tok, corpus: c, pick: pyrand.Derive(seed, dataset.StreamPromptCorpus).Py().RandRange}
	ctx := o.Shape.buildContext(&b)
	convs, jobs := o.layout(seed)
	s := &synthesizer{o: &o, tok: tok, b: &b, ctx: ctx, convs: convs, jobs: jobs}
	if o.Deferred && ctx.contextLength <= 0 {
		ctx.apply(convs) // the system prompt, built already
		return dataset.NewDeferred(convs, s.conversation), nil
	}
	for i := range convs {
		s.texts(i)
	}
	ctx.buildUserContexts(&b, len(convs))
	ctx.apply(convs)
	dataset.ForEachParallel(len(convs), s.count)
	return &dataset.Dataset{Conversations: convs}, nil
}

// synthesizer builds a synthetic dataset's texts, conversation after
// conversation, each from where the generator was left by the ones
// before (see Synthetic).
type synthesizer struct {
	o     *SyntheticOptions
	tok   tokenizer.Tokenizer
	b     *promptBuilder
	ctx   *promptContext
	convs []dataset.Conversation
	jobs  []promptJob // in conversation order
	next  int         // the first job not built
}

// conversation builds conversation i's texts and counts: a deferred
// dataset's build (the user-context prompts, drawn after every text,
// are then absent).
func (s *synthesizer) conversation(i int) {
	s.texts(i)
	s.count(i)
}

// texts builds the texts of conversation i, which follows the last one
// built.
func (s *synthesizer) texts(i int) {
	o := s.o
	for ; s.next < len(s.jobs) && s.jobs[s.next].conv == i; s.next++ {
		j := s.jobs[s.next]
		var prefix []int
		if j.prefix >= 0 {
			prefix = s.ctx.prefixes[j.prefix]
		}
		text, count := s.b.buildAfter(prefix, j.length)
		if j.fit && o.ChatTemplate != nil {
			target := len(prefix) + j.length + o.ChatOverhead.FirstTurn() + o.PromptSpecialTokens
			text, count = s.b.fitRendered(o.ChatTemplate, target, prefix, text, count)
		}
		turn := &s.convs[j.conv].Turns[j.turn]
		turn.Texts[j.text] = text
		if len(turn.Texts) == 1 {
			turn.InputTokens = count
		}
	}
}

// count sets the input token count of conversation i's turns that are
// more than their one text (AIPerf counts the parts joined with spaces).
func (s *synthesizer) count(i int) {
	for t := range s.convs[i].Turns {
		turn := &s.convs[i].Turns[t]
		if len(turn.Texts) != 1 || turn.System != "" || turn.UserContext != "" {
			turn.InputTokens = s.tok.Count(dataset.JoinInputs(turn))
		}
	}
}

// promptJob is one synthetic text to build: where it goes and how long it
// is.
type promptJob struct {
	conv, turn, text int
	length           int  // tokens after the prefix
	prefix           int  // index into the prefix pool; -1 = none
	fit              bool // fit the rendered length (see fitRendered)
}

// sessionIDs names conversation i as AIPerf's session ID generator does:
// "session_%06d" when the run has a seed, else a UUID drawn from the
// seed's session-ID stream (called in order, i = 0, 1, ...).
func sessionIDs(seed uint64, seeded bool) func(i int) string {
	if seeded {
		return func(i int) string { return fmt.Sprintf("session_%06d", i) }
	}
	rng := dataset.NewStream(seed, dataset.StreamSessionID)
	return func(int) string { return dataset.NewUUID(rng) }
}

// layout draws everything but the texts, in AIPerf's order (conversations,
// then turns, then texts), each kind from the generator AIPerf derives for
// it: turn counts, delays, (ISL, OSL) pairs, text lengths, prefix choices
// and max tokens. It returns the conversations with empty texts and one job
// per text, in the order the texts are built.
func (o SyntheticOptions) layout(seed uint64) ([]dataset.Conversation, []promptJob) {
	sh := &o.Shape
	lengthRNG := pyrand.Derive(seed, dataset.StreamPromptLength)
	maxTokensRNG := pyrand.Derive(seed, dataset.StreamMaxTokens)
	turnsRNG := pyrand.Derive(seed, streamTurnCount)
	delayRNG := pyrand.Derive(seed, streamTurnDelay)
	seqRNG := pyrand.Derive(seed, streamSeqDist)
	rangeRNG := pyrand.Derive(seed, streamRangeRatio).NP()
	prefixRNG := pyrand.Derive(seed, streamPrefixChoice)
	sessionID := sessionIDs(seed, o.SeedSet)
	batch := sh.batchSize()
	// A rendered-length fit needs the text to be the request's only message
	// (see fitRendered).
	fit := batch == 1 && sh.SystemLength == 0 && sh.UserContextLength == 0
	cum := sh.cumulative()
	// AIPerf passes whole-number stddevs to its length draws.
	islStddev := math.Trunc(o.ISLStddev)

	convs := make([]dataset.Conversation, o.Entries)
	jobs := make([]promptJob, 0, o.Entries*max(1, batch))
	for i := range convs {
		conv := &convs[i]
		conv.ID = sessionID(i)
		turns := turnsRNG.SamplePositiveNormalInteger(float64(max(1, sh.TurnsMean)), float64(sh.TurnsStddev))
		conv.Turns = make([]dataset.Turn, turns)
		for t := range conv.Turns {
			turn := &conv.Turns[t]
			turn.Role = "user"
			turn.Texts = make([]string, batch)
			first := t == 0
			withPrefix := first && sh.prefixEnabled()
			// The turn's length: a drawn (ISL, OSL) pair, used as is by
			// every text, or a mean each text draws around.
			exact, osl := -1, 0
			if cum != nil || sh.RangeRatio != nil {
				isl := 0
				if cum != nil {
					isl, osl = sh.drawPair(seqRNG, cum)
				} else {
					isl, osl = sh.RangeRatio.draw(rangeRNG, o.ISLMean, o.OSLMean)
				}
				adj, floor := o.ChatOverhead.PerMessage, 1
				if first {
					adj = o.firstTurnAdjust()
				}
				if withPrefix {
					floor = 0
				}
				exact = max(floor, isl-adj)
			}
			mean := o.laterISLMean()
			if first {
				mean = o.islMean()
			}
			for x := range batch {
				n := exact
				if n < 0 {
					n = lengthRNG.SamplePositiveNormalInteger(float64(mean), islStddev)
				}
				job := promptJob{conv: i, turn: t, text: x, length: n, prefix: -1, fit: fit && first}
				if withPrefix {
					job.prefix = prefixRNG.Py().Choice(sh.PrefixPoolSize)
				}
				jobs = append(jobs, job)
			}
			if !first && sh.TurnDelayMean > 0 {
				ms := delayRNG.SamplePositiveNormalInteger(math.Trunc(sh.TurnDelayMean), math.Trunc(sh.TurnDelayStddev))
				turn.Delay = time.Duration(float64(ms) * sh.TurnDelayRatio * float64(time.Millisecond))
			}
			switch {
			case osl > 0:
				turn.MaxTokens = osl
			case cum == nil && o.OSLMean > 0:
				turn.MaxTokens = maxTokensRNG.SamplePositiveNormalInteger(float64(o.OSLMean), float64(o.OSLStddev))
			}
		}
	}
	return convs, jobs
}

// maxLengthFixups bounds the re-encode/adjust loop of promptBuilder.build,
// as in AIPerf 0.12+.
const maxLengthFixups = 10

// promptBuilder cuts prompts of a given token length from a corpus, the
// windows starting where pick says. It is used from one goroutine at a
// time (pick is a sequential random source).
type promptBuilder struct {
	tok    tokenizer.Tokenizer
	corpus *Corpus
	pick   picker
}

// build returns a prompt of n tokens and its true token count, which
// differs from n only when maxLengthFixups rounds of adjustment did not
// reach n exactly.
func (b *promptBuilder) build(n int) (text string, count int) {
	return b.buildAfter(nil, n)
}

// buildAfter is build for a prompt that starts with the token ids prefix,
// AIPerf's generate_prompt and _decode_to_exact_len: the prefix and a
// window of n corpus tokens are joined as ids (joining decoded strings
// would let byte-pair merges across the seam change the count), decoded,
// and re-encoded; the re-encoded ids are cut to len(prefix)+n tokens or
// extended with a fresh window, and decoded again, until the text encodes
// to exactly that many tokens or maxLengthFixups rounds are spent, when
// the last decoding is kept.
//
// A window without a prefix that re-encodes to itself, nearly every one,
// is taken as it is when the corpus can say so without encoding it again
// (Corpus.runText): the text and count the first round would give.
func (b *promptBuilder) buildAfter(prefix []int, n int) (text string, count int) {
	start := b.pick(b.corpus.size())
	if len(prefix) == 0 {
		if text, count, ok := b.corpus.runText(start, n); ok && count == n {
			return text, n
		}
	}
	ids := make([]int, len(prefix), len(prefix)+n)
	copy(ids, prefix)
	ids = b.corpus.appendWindow(ids, start, n)
	n += len(prefix)
	for range maxLengthFixups {
		t := b.tok.Decode(ids)
		// Continue from the re-encoded ids, as AIPerf (and vLLM's
		// benchmark) do: trimming them, rather than the original window,
		// is what converges.
		ids = b.tok.Encode(t)
		if len(ids) == n {
			return t, n
		}
		if len(ids) > n {
			ids = ids[:n]
		} else {
			ids = b.corpus.Window(b.pick, n-len(ids), ids)
		}
	}
	t := b.tok.Decode(ids)
	return t, b.tok.Count(t)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// MaxTokens draws turn max tokens as AIPerf's composer does for turns a
// dataset leaves without one: from --osl's distribution, on its own
// stream.
type MaxTokens struct {
	rng          *pyrand.Stream
	mean, stddev float64
}

// NewMaxTokens returns the draw for a run seeded with seed.
func NewMaxTokens(seed uint64, mean, stddev float64) *MaxTokens {
	return &MaxTokens{rng: pyrand.Derive(seed, dataset.StreamMaxTokens), mean: mean, stddev: stddev}
}

// Next draws one max tokens (at least 1).
func (m *MaxTokens) Next() int {
	return max(1, m.rng.SamplePositiveNormalInteger(m.mean, math.Trunc(m.stddev)))
}
