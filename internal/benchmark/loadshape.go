package benchmark

import (
	"context"
	"fmt"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
)

// A phase's spec and its load shape: the config's load, ramps, series,
// prefill concurrency and user-centric settings as a PhaseSpec, and the
// pieces of the timing package's schedules the executors (executor.go)
// build from it. Everything here is resolved before the phase starts; the
// only thing that changes while it runs is what the schedules say.

// PhaseSpec is how one phase sends and when it stops.
type PhaseSpec struct {
	Phase record.Phase
	// Name, Index and ProfilingIndex place the phase in the run (its
	// phases/<Name>/ artifacts); ProfilingIndex is -1 for a warmup. Named
	// is true for a config file's named phases.
	Name           string
	Index          int
	ProfilingIndex int
	Named          bool
	Count          int           // stop after this many requests; 0 = no count bound
	Sessions       int           // stop after this many conversations; 0 = no session bound
	Duration       time.Duration // stop issuing after this long; 0 = no time bound
	Grace          time.Duration // wait this long for in-flight requests once issuing stops; <0 = forever
	Concurrency    int           // cap on credits outstanding; 0 = unlimited
	Pattern        config.ArrivalPattern
	Rate           float64 // requests/s in request-rate mode; 0 in concurrency mode
	Smoothness     float64 // gamma shape

	// Load shapes (below). Prefill caps requests awaiting their
	// first token (0 = none); the ramps move Concurrency, Prefill and Rate
	// from a low start to those targets; RateSeries follows Rate's ramp;
	// Users > 0 selects user-centric mode at UserRate requests/s shared.
	Prefill int
	// Wire caps requests on the wire (--request-concurrency); 0 = none.
	Wire                                   int
	ConcurrencyRamp, PrefillRamp, RateRamp *config.Ramp
	RateSeries                             []config.RatePoint
	Users                                  int
	UserRate                               float64
}

// shapeSpec fills the profiling phase's load-shape fields from cfg.
func shapeSpec(cfg *config.Config, s *PhaseSpec) {
	sh := &cfg.Shape
	s.Prefill = cfg.PrefillConcurrency()
	if sh.RequestConcurrency != nil {
		s.Wire = *sh.RequestConcurrency
	}
	s.ConcurrencyRamp, s.PrefillRamp, s.RateRamp = sh.ConcurrencyRamp, sh.PrefillRamp, sh.RateRamp
	s.RateSeries = sh.RateSeries
	if r, ok := cfg.SeriesRate(); ok {
		s.Rate = r
		if s.Pattern == "" || s.Pattern == config.ArrivalConcurrencyBurst {
			s.Pattern = config.ArrivalPoisson
		}
	}
	if cfg.UserCentric() {
		s.UserRate, s.Users = *sh.UserCentricRate, *sh.NumUsers
		s.Rate, s.Pattern = 0, ""
		if cfg.Load.BenchmarkDuration != nil && cfg.Load.BenchmarkGracePeriod == nil {
			s.Grace = -1 // AIPerf: a duration-bound user-centric run waits for every user
		}
	}
}

// warmupSpec is the warmup phase: its own stop conditions, and its own
// load where --warmup-* flags give one, else the profiling phase's, as
// AIPerf builds it. A rate only applies when one is given (warmup or
// profiling); otherwise the warmup is a closed loop at the warmup
// concurrency, else the profiling concurrency, else 1.
func warmupSpec(cfg *config.Config, prof *PhaseSpec) *PhaseSpec {
	w := &cfg.Shape.Warmup
	s := PhaseSpec{Phase: record.Warmup, Grace: -1, Smoothness: prof.Smoothness}
	if cfg.Warmup.RequestCount != nil {
		s.Count = *cfg.Warmup.RequestCount
	}
	if cfg.Warmup.Duration != nil {
		s.Duration = seconds(*cfg.Warmup.Duration)
		if w.GracePeriod != nil {
			s.Grace = grace(float64(*w.GracePeriod))
		}
	}
	rate := cfg.Load.RequestRate
	if w.RequestRate != nil {
		rate = w.RequestRate
	}
	switch {
	case rate != nil:
		s.Rate = *rate
		s.Pattern = cfg.ArrivalPattern()
		if w.ArrivalPattern != "" {
			s.Pattern = w.ArrivalPattern
		}
		if s.Pattern == config.ArrivalConcurrencyBurst {
			s.Pattern = config.ArrivalPoisson
		}
		if w.Concurrency != nil {
			s.Concurrency = *w.Concurrency
		} else if cfg.Load.Concurrency != nil {
			s.Concurrency = *cfg.Load.Concurrency
		}
	default:
		s.Pattern = config.ArrivalConcurrencyBurst
		s.Concurrency = 1
		if w.Concurrency != nil {
			s.Concurrency = *w.Concurrency
		} else if cfg.Load.Concurrency != nil {
			s.Concurrency = *cfg.Load.Concurrency
		}
	}
	s.Prefill = prof.Prefill
	if w.PrefillConcurrency != nil {
		s.Prefill = *w.PrefillConcurrency
	}
	s.Wire = prof.Wire
	if w.RequestConcurrency != nil {
		s.Wire = *w.RequestConcurrency
	}
	s.ConcurrencyRamp = orRamp(w.ConcurrencyRamp, prof.ConcurrencyRamp)
	s.PrefillRamp = orRamp(w.PrefillRamp, prof.PrefillRamp)
	if s.Rate > 0 {
		s.RateRamp = orRamp(w.RateRamp, prof.RateRamp)
	}
	if s.Concurrency == 0 {
		s.ConcurrencyRamp = nil
	}
	if s.Prefill == 0 {
		s.PrefillRamp = nil
	}
	return &s
}

// orRamp is a, else b.
func orRamp(a, b *config.Ramp) *config.Ramp {
	if a != nil {
		return a
	}
	return b
}

// rampOf turns a configured ramp into the timing package's.
func rampOf(r *config.Ramp, start, target float64, seed uint64) timing.Ramp {
	return timing.Ramp{
		Strategy: timing.RampStrategy(r.StrategyOrLinear()),
		Start:    start,
		Target:   target,
		Duration: seconds(r.Duration),
		Seed:     seed,
	}
}

// rateCurve is the phase's request rate over time, nil when it is flat:
// a rate ramp from rate x interval/duration (AIPerf's proportional start),
// then a rate series when one is given.
func (s *PhaseSpec) rateCurve(seed uint64) (timing.RateCurve, error) {
	if s.RateRamp == nil && len(s.RateSeries) == 0 {
		return nil, nil
	}
	var curve timing.RateCurve
	var offset time.Duration
	if s.RateRamp != nil {
		start := s.Rate * timing.RampUpdateInterval.Seconds() / s.RateRamp.Duration
		samples, err := rampOf(s.RateRamp, start, s.Rate, seed).Samples(timing.RampUpdateInterval)
		if err != nil {
			return nil, fmt.Errorf("request-rate ramp: %w", err)
		}
		curve, offset = timing.RateCurve(samples), seconds(s.RateRamp.Duration)
	}
	if len(s.RateSeries) > 0 {
		pts := make([]timing.SeriesPoint, len(s.RateSeries))
		for i, p := range s.RateSeries {
			pts[i] = timing.SeriesPoint{Time: p.TimeS, QPS: p.QPS}
		}
		series, err := timing.SeriesSamples(pts, timing.RampUpdateInterval)
		if err != nil {
			return nil, fmt.Errorf("request-rate series: %w", err)
		}
		curve = curve.Then(offset, series)
	}
	return curve, nil
}

// concurrencySteps is the phase's concurrency ramp: the limit at the
// start and its steps, or (Concurrency, nil) without a ramp.
func (s *PhaseSpec) concurrencySteps(seed uint64) (int, []timing.LimitStep, error) {
	if s.ConcurrencyRamp == nil || s.Concurrency <= 1 {
		return s.Concurrency, nil, nil
	}
	steps, err := rampOf(s.ConcurrencyRamp, 1, float64(s.Concurrency), seed).Steps()
	if err != nil {
		return 0, nil, fmt.Errorf("concurrency ramp: %w", err)
	}
	start, ls := timing.IntSteps(1, steps)
	return start, ls, nil
}

// prefillGate is the phase's prefill-concurrency gate and the steps of
// its ramp; nil without prefill concurrency.
func (s *PhaseSpec) prefillGate(seed uint64) (*timing.Gate, []timing.LimitStep, error) {
	if s.Prefill <= 0 {
		return nil, nil, nil
	}
	if s.PrefillRamp == nil || s.Prefill <= 1 {
		return timing.NewGate(s.Prefill), nil, nil
	}
	steps, err := rampOf(s.PrefillRamp, 1, float64(s.Prefill), seed).Steps()
	if err != nil {
		return nil, nil, fmt.Errorf("prefill concurrency ramp: %w", err)
	}
	start, ls := timing.IntSteps(1, steps)
	return timing.NewGate(start), ls, nil
}

// runLimitSteps applies a gate's ramp in the background until the steps
// are done or ctx ends; the returned function waits for it.
func runLimitSteps(ctx context.Context, r *phaseRunner, start time.Duration, steps []timing.LimitStep, set func(int)) func() {
	if len(steps) == 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		timing.RunLimitSteps(ctx, r.clk, start, steps, set)
	}()
	return func() { <-done }
}

// replaySpeedup applies --replay-speedup to a trace replayed on a fixed
// schedule: every timestamp and inter-turn delay is divided by it (10 = ten
// times faster than recorded). The baseten_trace loader has applied it
// already, before its idle-gap cap.
func (p *Plan) replaySpeedup() {
	sp := p.Config.Shape.Replay.Speedup
	if sp == nil || *sp == 1 || p.DatasetType == "baseten_trace" {
		return
	}
	if rows := p.Dataset.Rows; rows != nil { // no delays: one turn each
		rows.MapTimestamps(func(at time.Duration) time.Duration { return time.Duration(float64(at) / *sp) })
		return
	}
	for i := range p.Dataset.Conversations {
		turns := p.Dataset.Conversations[i].Turns
		for t := range turns {
			turns[t].Timestamp = time.Duration(float64(turns[t].Timestamp) / *sp)
			turns[t].Delay = time.Duration(float64(turns[t].Delay) / *sp)
		}
	}
}

// replayWarnings are the trace-replay flags that only baseten_trace honours,
// given for another dataset: AIPerf warns and ignores them, and so does
// this run.
func (p *Plan) replayWarnings() []string {
	if p.DatasetType == "baseten_trace" {
		return nil
	}
	r := &p.Config.Shape.Replay
	var out []string
	for _, f := range []struct {
		flag string
		set  bool
	}{
		{"--max-idle-gap-cap-seconds", r.MaxIdleGapCapSeconds != nil},
		{"--no-open-loop-replay", r.ClosedLoop},
		{"--open-loop-strict", r.Strict},
		{"--omit-kv-hints", r.OmitKVHints},
		{"--no-force-min-tokens", r.NoForceMinTokens},
	} {
		if f.set {
			out = append(out, f.flag)
		}
	}
	return out
}

// phaseList is the run's phases in order: the config file's named phases,
// each with its own load, or the warmup (if any) and the profiling phase.
// In a named run Warmup and Profiling become the first phase of each kind.
func phaseList(cfg *config.Config, p *Plan) []*PhaseSpec {
	if len(cfg.Shape.Phases) == 0 {
		var out []*PhaseSpec
		if p.Warmup != nil {
			p.Warmup.Name, p.Warmup.Index, p.Warmup.ProfilingIndex = "warmup", 0, -1
			out = append(out, p.Warmup)
		}
		p.Profiling.Name, p.Profiling.Index, p.Profiling.ProfilingIndex = "profiling", len(out), 0
		return append(out, &p.Profiling)
	}
	var out []*PhaseSpec
	prof := 0
	p.Warmup = nil
	for i, ph := range cfg.Shape.Phases {
		pc := ph.Phase
		s := profilingSpec(pc)
		shapeSpec(pc, &s)
		if n := pc.Conversation.NumSessions; n != nil {
			s.Sessions = *n
		}
		s.Name, s.Index, s.Named = ph.Name, i, true
		if ph.Kind == "warmup" {
			s.Phase, s.ProfilingIndex = record.Warmup, -1
			if pc.Load.BenchmarkGracePeriod == nil {
				s.Grace = -1 // a warmup waits for all its responses unless told otherwise
			}
		} else {
			s.ProfilingIndex = prof
			prof++
		}
		out = append(out, &s)
		switch {
		case ph.Kind == "warmup" && p.Warmup == nil:
			p.Warmup = &s
		case ph.Kind == "profiling" && s.ProfilingIndex == 0:
			p.Profiling = s
			out[len(out)-1] = &p.Profiling
		}
	}
	return out
}

// traceIdleGapCap applies --trace-idle-gap-cap-seconds to a replayed
// trace: within each conversation (one trace), a gap between consecutive
// request timestamps longer than the cap is shortened to it, shifting the
// later requests earlier, and so is every inter-turn delay. Conversations'
// own start times are kept. It runs after --replay-speedup, so the cap is
// in replay seconds.
func (p *Plan) traceIdleGapCap() {
	c := p.Config.Shape.TraceIdleGapCapSeconds
	if c == nil {
		return
	}
	limit := seconds(*c)
	if p.Dataset.Rows != nil && limit >= 0 {
		return // one turn each, without a delay: no gap to cap
	}
	p.Dataset.Expand()
	for i := range p.Dataset.Conversations {
		turns := p.Dataset.Conversations[i].Turns
		var shift, prev time.Duration // prev: the previous timestamp as recorded
		for t := range turns {
			turns[t].Delay = min(turns[t].Delay, limit)
			if !turns[t].HasTimestamp {
				continue
			}
			orig := turns[t].Timestamp
			if t > 0 && turns[t-1].HasTimestamp && orig-prev > limit {
				shift += orig - prev - limit
			}
			turns[t].Timestamp, prev = orig-shift, orig
		}
	}
}
