package synthesis

import (
	"errors"
	"fmt"
	"math"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// Streams of the conversation-shaping draws (AIPerf's derived RNG names
// where it has one; see random.go).
const (
	streamTurnCount    = "composer.conversation.turn_count"
	streamTurnDelay    = "composer.conversation.turn_delay"
	streamSeqDist      = "models.sequence.distribution"
	streamPrefixChoice = "dataset.prompt.prefix"
)

// Shape is how synthetic conversations are laid out beyond the length of
// one prompt: turns and think time, texts per request, an (ISL, OSL)
// mixture, and the prompts that precede the user's (AIPerf's conversation,
// prompt batch, --seq-dist and prefix-prompt options). The zero value is
// AIPerf's default: one turn of one text, no prefixes, no context prompts.
type Shape struct {
	// TurnsMean and TurnsStddev are the normal distribution of the number
	// of turns per conversation (at least 1; a mean below 1 is 1).
	TurnsMean, TurnsStddev int
	// TurnDelayMean and TurnDelayStddev (milliseconds) are the normal
	// distribution of the Delay of each turn after the first, scaled by
	// TurnDelayRatio; a mean of 0 means no delay. As in AIPerf, both are
	// truncated to whole milliseconds before drawing.
	TurnDelayMean, TurnDelayStddev, TurnDelayRatio float64
	// BatchSize is the number of texts in each turn (-b); nil means 1, and 0
	// gives turns without text (media-only requests).
	BatchSize *int
	// SeqDist, when non-empty, replaces ISLMean/ISLStddev and the OSL
	// options: each turn draws one pair and every text of the turn has its
	// ISL (less the chat-template share; the prompt special tokens are not
	// subtracted, as in AIPerf), and its OSL is the turn's max tokens.
	SeqDist []SeqDistPair
	// RangeRatio, when set (and SeqDist is not), draws each turn's (ISL,
	// OSL) uniformly from a window around ISLMean and OSLMean
	// (--random-range-ratio).
	RangeRatio *RangeRatio
	// PrefixPoolSize prefixes of PrefixLength tokens are drawn once; each
	// text of a conversation's first turn starts with one of them, chosen
	// at random, and is PrefixLength tokens longer for it. Both must be
	// positive for prefixes to be used.
	PrefixPoolSize, PrefixLength int
	// SystemLength, when positive, is the token length of one system prompt
	// shared by every conversation (Turn.System).
	SystemLength int
	// UserContextLength, when positive, is the token length of a user
	// message unique to each conversation (Turn.UserContext).
	UserContextLength int
}

// RangeRatio is --random-range-ratio: ratios for the ISL and OSL windows
// and the benchmark style that defines them.
type RangeRatio struct {
	ISL, OSL float64
	// Style is StyleVLLM ("" too): windows [floor(m*(1-r)), ceil(m*(1+r))]
	// (the ISL mean less the prompt special tokens first); or StyleSGLang:
	// [max(1, int(m*r)), m], the special tokens subtracted from each draw.
	Style string
	// Special is the number of special tokens the server adds to a prompt.
	Special int
}

// streamRangeRatio draws --random-range-ratio pairs.
const streamRangeRatio = "models.range_ratio.distribution"

// bounds are the inclusive ISL and OSL windows.
func (r *RangeRatio) bounds(islMean, oslMean int) (il, ih, ol, oh int) {
	if r.Style == StyleSGLang {
		return max(1, int(float64(islMean)*r.ISL)), islMean, max(1, int(float64(oslMean)*r.OSL)), oslMean
	}
	adj := float64(max(0, islMean-r.Special))
	return max(0, int(math.Floor(adj*(1-r.ISL)))), int(math.Ceil(adj * (1 + r.ISL))),
		max(1, int(math.Floor(float64(oslMean)*(1-r.OSL)))), max(1, int(math.Ceil(float64(oslMean)*(1+r.OSL))))
}

// draw draws one (ISL, OSL) pair as AIPerf's RangeRatioDistribution does
// from its live generator.
func (r *RangeRatio) draw(rng *pyrand.Numpy, islMean, oslMean int) (isl, osl int) {
	il, ih, ol, oh := r.bounds(islMean, oslMean)
	isl = int(rng.Integers(int64(il), int64(ih)+1))
	osl = int(rng.Integers(int64(ol), int64(oh)+1))
	if r.Style == StyleSGLang {
		isl = max(1, isl-r.Special)
	}
	return isl, osl
}

// validate checks the ratios against the style's range.
func (r *RangeRatio) validate() error {
	for _, v := range []float64{r.ISL, r.OSL} {
		switch {
		case math.IsNaN(v) || v < 0:
			return fmt.Errorf("random range ratio must be >= 0, got %v", v)
		case r.Style == StyleSGLang && v > 1:
			return fmt.Errorf("random range ratio must be in [0, 1] for the sglang style, got %v", v)
		case r.Style != StyleSGLang && v >= 1:
			return fmt.Errorf("random range ratio must be in [0, 1) for the vllm style, got %v", v)
		}
	}
	if r.Style == StyleSGLang && r.ISL != r.OSL {
		return fmt.Errorf("the sglang style applies one ratio to ISL and OSL, got %v and %v", r.ISL, r.OSL)
	}
	return nil
}

// SeqDistPair is one entry of a --seq-dist mixture: with Probability
// percent, a turn's ISL is drawn around ISL and its OSL around OSL (exactly
// those when the stddevs are 0).
type SeqDistPair struct {
	ISL         int
	ISLStddev   float64
	OSL         int
	OSLStddev   float64
	Probability float64 // percent; the pairs' probabilities sum to 100
}

func (s *Shape) batchSize() int {
	if s.BatchSize == nil {
		return 1
	}
	return *s.BatchSize
}

func (s *Shape) prefixEnabled() bool { return s.PrefixPoolSize > 0 && s.PrefixLength > 0 }

func (s *Shape) validate() error {
	var errs []error
	if s.RangeRatio != nil {
		if err := s.RangeRatio.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if s.TurnsStddev < 0 {
		errs = append(errs, fmt.Errorf("turns stddev must not be negative, got %d", s.TurnsStddev))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"turn delay mean", s.TurnDelayMean}, {"turn delay stddev", s.TurnDelayStddev}, {"turn delay ratio", s.TurnDelayRatio}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s must be a finite number >= 0, got %v", f.name, f.v))
		}
	}
	if s.BatchSize != nil && *s.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("batch size must not be negative, got %d", *s.BatchSize))
	}
	if s.PrefixPoolSize < 0 || s.PrefixLength < 0 || s.SystemLength < 0 || s.UserContextLength < 0 {
		errs = append(errs, fmt.Errorf("prefix pool size and prompt lengths must not be negative, got %d, %d, %d, %d",
			s.PrefixPoolSize, s.PrefixLength, s.SystemLength, s.UserContextLength))
	}
	total := 0.0
	for _, p := range s.SeqDist {
		if p.ISL < 1 || p.OSL < 1 || !(p.ISLStddev >= 0) || !(p.OSLStddev >= 0) || math.IsInf(p.ISLStddev, 0) ||
			math.IsInf(p.OSLStddev, 0) || !(p.Probability >= 0 && p.Probability <= 100) {
			errs = append(errs, fmt.Errorf("invalid sequence distribution pair %+v", p))
		}
		total += p.Probability
	}
	if len(s.SeqDist) > 0 && !(math.Abs(total-100) <= 1e-6+1e-6*100) { // numpy.isclose(total, 100), as AIPerf
		errs = append(errs, fmt.Errorf("sequence distribution probabilities must sum to 100, got %v", total))
	}
	return errors.Join(errs...)
}

// cumulative returns the running sums of the SeqDist probabilities as
// fractions, nil without a mixture.
func (s *Shape) cumulative() []float64 {
	if len(s.SeqDist) == 0 {
		return nil
	}
	cum := make([]float64, len(s.SeqDist))
	sum := 0.0
	for i, p := range s.SeqDist {
		sum += p.Probability / 100
		cum[i] = sum
	}
	return cum
}

// drawPair draws an (ISL, OSL) pair as AIPerf's SequenceLengthDistribution
// does: u = random() picks the first pair whose cumulative probability
// exceeds u (the last pair if rounding leaves none), then each length with
// a stddev is drawn from a positive normal distribution, all from the one
// generator.
func (s *Shape) drawPair(rng *pyrand.Stream, cum []float64) (isl, osl int) {
	u := rng.Py().Random()
	i := 0
	for i < len(cum)-1 && cum[i] <= u {
		i++
	}
	p := s.SeqDist[i]
	isl, osl = p.ISL, p.OSL
	if p.ISLStddev > 0 {
		isl = rng.SamplePositiveNormalInteger(float64(p.ISL), p.ISLStddev)
	}
	if p.OSLStddev > 0 {
		osl = rng.SamplePositiveNormalInteger(float64(p.OSL), p.OSLStddev)
	}
	return isl, osl
}

// promptContext holds the texts shared across prompts: the prefix pool
// (as token ids), the shared system prompt and one user-context prompt
// per conversation.
type promptContext struct {
	prefixes [][]int
	system   string
	contexts []string
	// contextLength is the user-context prompts' length; 0 = none.
	contextLength int
}

// buildContext draws the shared system prompt and then the prefix pool of
// s, in AIPerf's order, from b's corpus draws. Each is cut to its exact
// token length as prompts are; prefixes are kept as the ids of their
// re-encoded text, which AIPerf prepends at the token level.
func (s *Shape) buildContext(b *promptBuilder) *promptContext {
	ctx := &promptContext{contextLength: s.UserContextLength}
	if s.SystemLength > 0 {
		ctx.system, _ = b.build(s.SystemLength)
	}
	if s.prefixEnabled() {
		ctx.prefixes = make([][]int, s.PrefixPoolSize)
		for j := range ctx.prefixes {
			text, _ := b.build(s.PrefixLength)
			ctx.prefixes[j] = b.tok.Encode(text)
		}
	}
	return ctx
}

// buildUserContexts draws one user-context prompt per conversation, in
// order, after every turn's texts (AIPerf generates them when it finalises
// the conversations).
func (ctx *promptContext) buildUserContexts(b *promptBuilder, entries int) {
	if ctx.contextLength <= 0 {
		return
	}
	ctx.contexts = make([]string, entries)
	for i := range ctx.contexts {
		ctx.contexts[i], _ = b.build(ctx.contextLength)
	}
}

// apply sets every turn's System and UserContext.
func (ctx *promptContext) apply(convs []dataset.Conversation) {
	if ctx.system == "" && ctx.contexts == nil {
		return
	}
	for i := range convs {
		for t := range convs[i].Turns {
			convs[i].Turns[t].System = ctx.system
			if ctx.contexts != nil {
				convs[i].Turns[t].UserContext = ctx.contexts[i]
			}
		}
	}
}
