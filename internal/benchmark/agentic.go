package benchmark

import (
	"errors"
	"fmt"
	"math"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// Agentic replay (AIPerf's agentic_replay timing mode): --concurrency
// lanes, each a Weka trace sampled at an instant t* of its recording; a
// synthesized warmup primes the server's cache with every lane's context
// at t* (one-token requests), then the profiling phase resumes every
// stream where the recording was at t* and follows the trace's own timing
// (recorded delays, subagent spawns and joins), recycling a lane into a
// fresh trace when its tree finishes. The schedule is the pure state
// machine timing.AgenticReplay; this file is the thin loop around it:
// it sends what the machine returns, tells it when requests return and
// when its timers fire, and keeps one worker.Stream per stream (one
// session across both phases).

// agenticPlan is the agentic replay's part of the plan, built with the
// dataset.
type agenticPlan struct {
	convs []timing.AgenticConversation
	roots []int // the root conversations, in dataset order
}

// newAgenticPlan reduces the dataset to what the schedule reads.
// Subagents name their parent by conversation ID; one whose parent is
// missing is never replayed (AIPerf drops it).
func newAgenticPlan(ds *dataset.Dataset) (*agenticPlan, error) {
	ds.Expand()
	idx := make(map[string]int, ds.Len())
	for i := range ds.Conversations {
		idx[ds.Conversations[i].ID] = i
	}
	ap := &agenticPlan{}
	for i := range ds.Conversations {
		c := &ds.Conversations[i]
		ac := timing.AgenticConversation{ID: c.ID, Parent: -1}
		if c.Parent != "" {
			p, ok := idx[c.Parent]
			if !ok {
				p = i
			}
			ac.Parent = p
			b := c.Branch
			ac.Branch = timing.AgenticBranch{ID: b.ID, SpawnTurn: b.SpawnTurn, JoinTurn: b.JoinTurn, Start: math.NaN()}
			if b.HasStart {
				ac.Branch.Start = ms(b.Start)
			}
		} else {
			ap.roots = append(ap.roots, i)
		}
		for k := range c.Turns {
			t := &c.Turns[k]
			at := math.NaN()
			if t.HasTraceAt {
				at = ms(t.TraceAt)
			}
			ac.Turns = append(ac.Turns, timing.AgenticTurn{At: at, Delay: t.Delay, Opens: turnOpens(t)})
		}
		ap.convs = append(ap.convs, ac)
	}
	if len(ap.roots) == 0 {
		return nil, errors.New("agentic_replay: the dataset has no root conversation (every conversation is a subagent)")
	}
	return ap, nil
}

// turnOpens reports whether a turn has something to send as the first
// request of a session.
func turnOpens(t *dataset.Turn) bool {
	return t.RawPayload != nil || len(t.Messages) > 0 || len(t.Texts) > 0 || len(t.Images) > 0 || len(t.Audios) > 0 || len(t.Videos) > 0
}

// agenticWarmupSpec is the synthesized warmup phase: it ends when every
// priming request has returned, or --agentic-warmup-grace-period after
// the last was sent (then the rest are cancelled and the run fails).
func agenticWarmupSpec(cfg *config.Config) *PhaseSpec {
	s := &PhaseSpec{Phase: record.Warmup, Grace: -1, Concurrency: cfg.Concurrency()}
	if g := cfg.Shape.AgenticWarmupGracePeriod; g != nil {
		s.Grace = seconds(*g)
	}
	return s
}

// agenticProfilingSpec bounds the profiling phase: --benchmark-duration,
// and --request-count only when given (or when nothing else bounds it);
// lanes are --concurrency.
func agenticProfilingSpec(cfg *config.Config, s *PhaseSpec) {
	s.Rate, s.Pattern = 0, ""
	if cfg.Load.BenchmarkDuration != nil && cfg.Load.RequestCount == nil {
		s.Count = 0
	}
}

// agenticRun is the replay's state across its two phases.
type agenticRun struct {
	replay  *timing.AgenticReplay
	convs   []timing.AgenticConversation
	streams map[int]*worker.Stream
	markers map[int]string   // trajectory tree -> cache-bust marker
	passes  map[string]int64 // root trace -> trees of it so far
	bust    *worker.CacheBust
}

// newAgenticRun samples the lanes and builds the schedule.
func (r *phaseRunner) newAgenticRun() (*agenticRun, error) {
	p := r.plan
	ap := p.Sessions.Agentic
	cfg := p.Config
	sampler, err := dataset.NewSampler(p.Sampling, len(ap.roots), p.Seed)
	if err != nil {
		return nil, err
	}
	next := func() int { return ap.roots[sampler.Next()] }
	lo, hi := cfg.TrajectoryStartRatios()
	seed := uint64(0)
	if p.SeedSet {
		seed = p.Seed
	}
	trajs, err := timing.SampleTrajectories(ap.convs, timing.TrajectoryOptions{Lanes: max(1, cfg.Concurrency()), Seed: seed, MinRatio: lo, MaxRatio: hi}, next)
	if err != nil {
		return nil, usageError(fmt.Errorf("agentic_replay: %w", err))
	}
	o := timing.AgenticOptions{Burst: cfg.Shape.BurstPhaseStarts, NextRoot: next,
		MaxRequests: p.Profiling.Count, MaxSessions: p.Profiling.Sessions}
	if v := cfg.Shape.TraceIdleGapCapSeconds; v != nil {
		o.TraceIdleCap, o.HasTraceIdleCap = seconds(*v), true
	}
	if v := cfg.Shape.SystemIdleGapCapSeconds; v != nil {
		o.SystemIdleCap, o.HasSystemIdleCap = seconds(*v), true
	}
	if v := cfg.Shape.AgenticCacheWarmup; v != nil {
		o.CacheWarmup = seconds(*v)
	}
	replay, err := timing.NewAgenticReplay(ap.convs, trajs, o)
	if err != nil {
		return nil, err
	}
	if len(trajs) < cfg.Concurrency() {
		r.log.Warn("agentic_replay: fewer lanes than --concurrency (too few traces have a request to resume at a sampled start)",
			"lanes", len(trajs), "concurrency", cfg.Concurrency())
	}
	return &agenticRun{replay: replay, convs: ap.convs, streams: map[int]*worker.Stream{}, markers: map[int]string{},
		passes: map[string]int64{}, bust: r.bust}, nil
}

// stream returns the worker stream of s, starting it (with its tree's
// cache-bust marker) on its first request.
func (a *agenticRun) stream(pool *worker.Pool, s timing.AgenticSend) *worker.Stream {
	if st, ok := a.streams[s.Stream]; ok {
		return st
	}
	marker, ok := a.markers[s.Tree]
	if !ok && a.bust != nil {
		// AIPerf's resolve_tree_marker: the tree's root trace id, the pass
		// counting that trace's trees over the run, and the lane.
		c := &a.convs[s.Conv]
		trace := c.ID
		if c.Parent >= 0 {
			trace = a.convs[c.Parent].ID
		}
		pass := a.passes[trace]
		a.passes[trace] = pass + 1
		marker = a.bust.TreeMarker(pass, s.Lane, trace)
		a.markers[s.Tree] = marker
	}
	st := pool.NewStream(s.Conv, marker)
	a.streams[s.Stream] = st
	return st
}

// planAgentic prepares the agentic replay once the dataset is built, and
// applies AIPerf's dataset-wrap policy: more lanes than distinct traces
// replay the same prompts side by side, which inflates prefix-cache hits,
// so a bounded run needs --allow-dataset-wrap or a cache-bust target
// (a session bound that fits the traces, or an unbounded one-pass run, is
// fine).
func (p *Plan) planAgentic() error {
	ap, err := newAgenticPlan(p.Dataset)
	if err != nil {
		return usageError(err)
	}
	cfg := p.Config
	p.Sessions.Agentic, p.Sessions.MultiTurn = ap, true
	lanes, distinct := cfg.Concurrency(), len(ap.roots)
	sessions := cfg.Conversation.NumSessions
	bounded := sessions != nil || cfg.Load.RequestCount != nil || cfg.Load.BenchmarkDuration != nil
	if cfg.Dataset.AllowDatasetWrap || cfg.Prompt.CacheBustEnabled() || !bounded || (sessions != nil && *sessions <= distinct) {
		return nil
	}
	if lanes > distinct {
		return usageError(fmt.Errorf("--concurrency %d exceeds the %d distinct traces loaded while dataset wrapping is disabled (agentic_replay): lower --concurrency to at most %d, bound --num-sessions within the traces, enable --cache-bust, or pass --allow-dataset-wrap",
			lanes, distinct, distinct))
	}
	return nil
}
