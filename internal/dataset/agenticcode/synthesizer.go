package agenticcode

import (
	"encoding/hex"
	"fmt"
	"math"

	"github.com/aiperf-go/aiperf/internal/pyrand"
)

// outputFloor is the shortest output drawn (or the output maximum, when
// that is lower).
const outputFloor = 30

// EndReason says why a session ended.
type EndReason string

// AIPerf's session end reasons.
const (
	ForcedRetire       EndReason = "forced_retire"       // the next turn would reach max_prompt_tokens
	ProbabilisticReset EndReason = "probabilistic_reset" // the reset draw
	RestartSplit       EndReason = "restart_split"       // split in two, the rest a later session
	TargetTurnCount    EndReason = "target_turn_count"   // turns mode: the drawn count reached
)

// Turn is one synthesized request. Input is the whole context sent
// (every earlier turn's input and output plus NewTokens); HashIDs cover
// Input in blocks.
type Turn struct {
	Index       int
	Input       int
	Output      int
	NewTokens   int
	DelayMs     float64
	TimestampMs float64
	HashIDs     []int
}

// Session is one synthesized multi-turn session.
type Session struct {
	ID    string
	Group int
	Turns []Turn
	End   EndReason
	// Continuation marks the second half of a restart split: its first
	// turn carries the whole context the first half built.
	Continuation bool
}

// Synthesizer draws sessions as AIPerf 0.13's SessionSynthesizer does,
// from numpy's default_rng(seed) in the same order, so that the same
// configuration and seed give the same sessions.
type Synthesizer struct {
	cfg      Config
	rng      *pyrand.Numpy
	prefix   prefixes
	groupCDF []float64
	newTok   Lognormal // with the bias applied
	outMin   int
	sessions int
}

// NewSynthesizer returns a synthesizer for a validated configuration.
func NewSynthesizer(cfg Config, seed uint64) *Synthesizer {
	s := &Synthesizer{cfg: cfg, rng: pyrand.NewNumpy(seed), prefix: newPrefixes(cfg.Cache, cfg.BlockSize)}
	g := cfg.Cache.Groups
	w := make([]float64, g.NumGroups)
	for k := range w {
		w[k] = 1 / math.Pow(float64(k+1), g.ZipfAlpha)
	}
	total := pairwiseSum(w)
	for k := range w {
		w[k] /= total
	}
	s.groupCDF = pyrand.ChoiceCDF(w)
	s.outMin = outputFloor
	if m := cfg.GenerationLength.Max; m != nil {
		s.outMin = min(outputFloor, int(*m))
	}
	s.newTok = cfg.NewTokensPerTurn.Lognormal
	if b := cfg.NewTokensPerTurn.Bias; b != 1 {
		mu := *s.newTok.Mu + pyLog(b)
		s.newTok.Mu = &mu
	}
	return s
}

// lognormal draws from l: rejected and drawn again (up to 100 times)
// outside [Min, Max], clamped to them after that, then raised to floor.
func (s *Synthesizer) lognormal(l Lognormal, floor float64) float64 {
	x := s.rng.Lognormal(*l.Mu, *l.Sigma)
	if l.Min != nil || l.Max != nil {
		out := func(v float64) bool { return (l.Min != nil && v < *l.Min) || (l.Max != nil && v > *l.Max) }
		for range 100 {
			if !out(x) {
				break
			}
			x = s.rng.Lognormal(*l.Mu, *l.Sigma)
		}
		if l.Min != nil {
			x = math.Max(x, *l.Min)
		}
		if l.Max != nil {
			x = math.Min(x, *l.Max)
		}
	}
	return math.Max(x, floor)
}

// trunc is Python's int() of a float.
func trunc(x float64) int { return int(math.Trunc(x)) }

func (s *Synthesizer) sessionID() string {
	return "sess-" + hex.EncodeToString(s.rng.Bytes(16))[:12]
}

func (s *Synthesizer) group() int { return s.rng.Choice(s.groupCDF) }

// initialContext is L1 + L1.5 (in whole blocks) plus a drawn L2, below
// max_prompt_tokens.
func (s *Synthesizer) initialContext() int {
	l2 := max(trunc(s.lognormal(s.cfg.Cache.Layer2, math.Inf(-1))), 1)
	return min(s.prefix.prefixTokens()+l2, s.cfg.MaxPromptTokens-1)
}

func (s *Synthesizer) outputLength() int {
	return trunc(s.lognormal(s.cfg.GenerationLength, float64(s.outMin)))
}

// delayMs draws the mixture (both components, always), shortened as the
// context fills (down to a fifth at the limit), clipped to its maximum.
func (s *Synthesizer) delayMs(prevInput int) float64 {
	m := s.cfg.InterTurnDelay
	agentic := s.rng.Random() < m.AgenticFraction
	a := s.lognormal(m.Agentic, math.Inf(-1))
	h := s.lognormal(m.Human, math.Inf(-1))
	d := h
	if agentic {
		d = a
	}
	if m.Max != nil {
		d = math.Min(d, *m.Max)
	}
	d *= math.Max(0.2, 1-0.8*(float64(prevInput)/float64(s.cfg.MaxPromptTokens)))
	if m.Max != nil {
		d = math.Min(d, *m.Max)
	}
	return d
}

func (s *Synthesizer) newTokens() int {
	return max(trunc(s.lognormal(s.newTok, math.Inf(-1))), 1)
}

func (s *Synthesizer) reset(input int) bool {
	r := s.cfg.Reset
	if r == nil {
		return false
	}
	p := r.BaseProbability * (1 + (r.ContextScaling-1)*(float64(input)/float64(s.cfg.MaxPromptTokens)))
	return s.rng.Random() < p
}

func (s *Synthesizer) nextIndex() int {
	i := s.sessions
	s.sessions++
	return i
}

// turnTarget draws a turns-mode session's turn count.
func (s *Synthesizer) turnTarget() int {
	t := s.cfg.Turns
	lo, hi := float64(t.Min), float64(t.Max)
	l := Lognormal{Mean: float64(t.Mean), Median: float64(t.Median), Min: &lo, Max: &hi}
	l.derive()
	return min(max(int(math.RoundToEven(s.lognormal(l, math.Inf(-1)))), t.Min), t.Max)
}

// Sessions draws n sessions. Without turns mode, the first three
// quarters of them may be split in two (restart_initial_probability,
// falling linearly to zero), each second half inserted at a random place
// at least a quarter of the sessions later.
func (s *Synthesizer) Sessions(n int) ([]Session, error) {
	out := make([]Session, 0, n)
	if s.cfg.Turns != nil {
		for range n {
			sess, err := s.explicitTurns()
			if err != nil {
				return nil, err
			}
			out = append(out, sess)
		}
		return out, nil
	}
	type deferred struct {
		s      Session
		origin int
	}
	var later []deferred
	for i := range n {
		progress := float64(i) / float64(max(1, n-1))
		p := 0.0
		if progress < 0.75 {
			p = s.cfg.RestartInitialProbability * (1 - progress/0.75)
		}
		inject := s.rng.Random() < p
		a, b, err := s.session(inject)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		if b != nil {
			later = append(later, deferred{*b, len(out) - 1})
		}
	}
	minOffset := max(1, trunc(float64(n)*0.25))
	for _, d := range later {
		pos := len(out)
		if low := min(d.origin+minOffset, len(out)); low < len(out) {
			pos = int(s.rng.Integers(int64(low), int64(len(out)+1)))
		}
		out = append(out[:pos], append([]Session{d.s}, out[pos:]...)...)
	}
	return out, nil
}

// session draws one session, and its continuation when split.
func (s *Synthesizer) session(inject bool) (Session, *Session, error) {
	index := s.nextIndex()
	sess := Session{ID: s.sessionID(), End: ForcedRetire}
	restartAt := -1
	if inject {
		restartAt = int(s.rng.Integers(int64(s.cfg.RestartTurnRange[0]), int64(s.cfg.RestartTurnRange[1])))
	}
	sess.Group = s.group()
	input := s.initialContext()
	output := s.outputLength()
	ids, err := s.prefix.turnIDs(index, sess.Group, input, nil)
	if err != nil {
		return sess, nil, err
	}
	sess.Turns = []Turn{{Input: input, Output: output, NewTokens: input, HashIDs: ids}}
	ts := 0.0
	for t := 1; ; t++ {
		if t == restartAt {
			sess.End = RestartSplit
			b, err := s.continuation(index, sess.Group, input, output, sess.Turns[len(sess.Turns)-1].HashIDs)
			return sess, &b, err
		}
		turn, end, err := s.nextTurn(index, sess.Group, &sess.Turns[len(sess.Turns)-1], input, output)
		if err != nil {
			return sess, nil, err
		}
		if end != "" {
			sess.End = end
			return sess, nil, nil
		}
		ts += turn.DelayMs
		turn.Index, turn.TimestampMs = t, ts
		sess.Turns = append(sess.Turns, turn)
		input, output = turn.Input, turn.Output
	}
}

// nextTurn draws the turn after prev (with the context input + output
// before it), or why the session ends there.
func (s *Synthesizer) nextTurn(index, group int, prev *Turn, input, output int) (Turn, EndReason, error) {
	delay := s.delayMs(input)
	fresh := s.newTokens()
	in := input + output + fresh
	if in >= s.cfg.MaxPromptTokens {
		return Turn{}, ForcedRetire, nil
	}
	if s.reset(in) {
		return Turn{}, ProbabilisticReset, nil
	}
	out := s.outputLength()
	ids, err := s.prefix.turnIDs(index, group, in, s.prefix.sessionIDs(prev.HashIDs))
	return Turn{Input: in, Output: out, NewTokens: fresh, DelayMs: delay, HashIDs: ids}, "", err
}

// continuation is a split session's second half: its first turn carries
// the first half's whole context.
func (s *Synthesizer) continuation(index, group, input, output int, prevIDs []int) (Session, error) {
	sess := Session{ID: s.sessionID(), Group: group, End: ForcedRetire, Continuation: true}
	in := min(input+output, s.cfg.MaxPromptTokens-1)
	out := s.outputLength()
	ids, err := s.prefix.turnIDs(index, group, in, s.prefix.sessionIDs(prevIDs))
	if err != nil {
		return sess, err
	}
	sess.Turns = []Turn{{Input: in, Output: out, NewTokens: in, HashIDs: ids}}
	for t := 1; ; t++ {
		last := &sess.Turns[len(sess.Turns)-1]
		turn, end, err := s.nextTurn(index, group, last, last.Input, last.Output)
		if err != nil {
			return sess, err
		}
		if end != "" {
			sess.End = end
			return sess, nil
		}
		turn.Index, turn.TimestampMs = t, last.TimestampMs+turn.DelayMs
		sess.Turns = append(sess.Turns, turn)
	}
}

// explicitTurns draws a turns-mode session: a drawn turn count, the
// session drawn again (a new index and id each time) when it would
// overrun the context, unless truncation is allowed.
func (s *Synthesizer) explicitTurns() (Session, error) {
	t := s.cfg.Turns
	target := s.turnTarget()
	attempts := 1
	if t.MaxSessionAttempts != nil {
		attempts = *t.MaxSessionAttempts
	}
	for range attempts {
		index := s.nextIndex()
		sess := Session{ID: s.sessionID(), End: TargetTurnCount}
		sess.Group = s.group()
		input := s.initialContext()
		if input >= s.cfg.MaxPromptTokens {
			continue
		}
		output := s.outputLength()
		ids, err := s.prefix.turnIDs(index, sess.Group, input, nil)
		if err != nil {
			return sess, err
		}
		sess.Turns = []Turn{{Input: input, Output: output, NewTokens: input, HashIDs: ids}}
		ts, realized := 0.0, true
		for i := 1; i < target; i++ {
			delay := s.delayMs(input)
			ts += delay
			fresh := s.newTokens()
			in := input + output + fresh
			if in >= s.cfg.MaxPromptTokens {
				if t.AllowTruncation {
					sess.End = ForcedRetire
					return sess, nil
				}
				realized = false
				break
			}
			out := s.outputLength()
			ids, err := s.prefix.turnIDs(index, sess.Group, in, s.prefix.sessionIDs(sess.Turns[len(sess.Turns)-1].HashIDs))
			if err != nil {
				return sess, err
			}
			sess.Turns = append(sess.Turns, Turn{Index: i, Input: in, Output: out, NewTokens: fresh, DelayMs: delay, TimestampMs: ts, HashIDs: ids})
			input, output = in, out
		}
		if realized {
			return sess, nil
		}
	}
	return Session{}, fmt.Errorf("could not draw a session of %d turns in %d attempts under max_prompt_tokens=%d", target, attempts, s.cfg.MaxPromptTokens)
}

// pairwiseSum adds as numpy's add.reduce does over a contiguous float64
// array (8-way unrolled blocks of up to 128, halves above), so sums and
// means round exactly as numpy's.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		h := n / 2
		h -= h % 8
		return pairwiseSum(a[:h]) + pairwiseSum(a[h:])
	}
}
