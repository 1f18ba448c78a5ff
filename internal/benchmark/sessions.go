package benchmark

import (
	"errors"
	"fmt"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// sessionPlan is how conversations are executed, decided once the dataset
// exists: whether the profiling phase replays a fixed schedule, and whether
// conversations have several turns (then every later turn is built at run
// time with the history and the request count is spent turn by turn).
type sessionPlan struct {
	// Fixed: the profiling phase replays the dataset's first-turn
	// timestamps; Replay is the schedule, in send order.
	Fixed  bool
	Replay []timing.ReplayEntry
	// MultiTurn: some conversation has more than one turn.
	MultiTurn bool
	// Agentic is the agentic replay's view of the dataset; nil unless the
	// profiling phase is agentic_replay (then both phases run it).
	Agentic *agenticPlan
}

// planSessions decides the sessionPlan from the built dataset and adjusts
// the phases to it, as AIPerf does:
//
//   - A dataset whose conversations carry first-turn timestamps switches
//     the profiling phase to fixed schedule unless --no-fixed-schedule;
//     --fixed-schedule forces it (every conversation then needs a first-turn
//     timestamp). The whole (windowed) trace is sent: the phase stops after
//     its last conversation, or earlier at an explicit --request-count or
//     --benchmark-duration. --concurrency stays a ceiling (unlimited when not
//     given), --request-rate is ignored, and the FIXED_SCHEDULE_ONLY fidelity
//     metrics are selected.
//   - --num-sessions / --num-warmup-sessions bound the phases in
//     conversations.
//
// Problems are usage errors (exit code 2).
func (p *Plan) planSessions() error {
	cfg := p.Config
	ds := p.Dataset
	anyTS, all := false, ds.Len() > 0
	for i := range ds.Conversations {
		c := &ds.Conversations[i]
		if len(c.Turns) > 1 {
			p.Sessions.MultiTurn = true
		}
		if len(c.Turns) > 0 && c.Turns[0].HasTimestamp {
			anyTS = true
		} else {
			all = false
		}
	}
	if n := cfg.Conversation.NumSessions; n != nil {
		p.Profiling.Sessions = *n
	}
	if p.Warmup != nil && cfg.Conversation.NumWarmupSessions != nil {
		p.Warmup.Sessions = *cfg.Conversation.NumWarmupSessions
	}

	if cfg.AgenticReplay() {
		return p.planAgentic()
	}
	r := &cfg.Replay
	if !cfg.FixedScheduleWanted(anyTS) {
		if r.AutoOffset || r.StartOffset != nil || r.EndOffset != nil {
			return usageError(errors.New("--fixed-schedule-auto-offset, --fixed-schedule-start-offset and --fixed-schedule-end-offset need a fixed schedule, and the dataset has no timestamps to replay"))
		}
		return nil
	}
	p.replaySpeedup()
	p.traceIdleGapCap()
	if !all {
		return usageError(fmt.Errorf("--fixed-schedule: every conversation needs a timestamp on its first turn; %s", firstUntimed(ds)))
	}
	ts := make([]time.Duration, ds.Len())
	for i := range ds.Conversations {
		ts[i] = ds.Conversations[i].Turns[0].Timestamp
	}
	w := timing.ReplayWindow{AutoOffset: r.AutoOffset}
	if r.StartOffset != nil {
		w.Start, w.HasStart = time.Duration(*r.StartOffset)*time.Millisecond, true
	}
	if r.EndOffset != nil {
		w.End, w.HasEnd = time.Duration(*r.EndOffset)*time.Millisecond, true
	}
	entries, err := timing.Replay(ts, w)
	if err != nil {
		return usageError(fmt.Errorf("fixed schedule: %w", err))
	}
	p.Sessions.Fixed, p.Sessions.Replay = true, entries

	s := &p.Profiling
	s.Count = 0
	if cfg.Load.RequestCount != nil {
		s.Count = *cfg.Load.RequestCount
	}
	if s.Sessions == 0 || s.Sessions > len(entries) {
		s.Sessions = len(entries)
	}
	s.Concurrency = 0
	if cfg.Load.Concurrency != nil {
		s.Concurrency = *cfg.Load.Concurrency
	}
	s.Rate = 0
	p.selectFixedScheduleMetrics()
	return nil
}

// firstUntimed names the first conversation without a first-turn timestamp.
func firstUntimed(ds *dataset.Dataset) string {
	for i := range ds.Conversations {
		c := &ds.Conversations[i]
		if len(c.Turns) == 0 || !c.Turns[0].HasTimestamp {
			return fmt.Sprintf("conversation %d (%s) has none", i, c.ID)
		}
	}
	return "the dataset is empty"
}

// selectFixedScheduleMetrics adds the FIXED_SCHEDULE_ONLY metrics to the
// run's selection, which NewPlan made before the dataset could say whether
// it replays a trace. They depend only on each other, so appending them in
// registry (dependency) order keeps the selection ordered.
func (p *Plan) selectFixedScheduleMetrics() {
	have := make(map[*metrics.Metric]bool, len(p.Metrics))
	for _, m := range p.Metrics {
		have[m] = true
	}
	for _, m := range p.Registry.Metrics() {
		if m.Flags.Has(metrics.FlagFixedScheduleOnly) && !have[m] {
			p.Metrics = append(p.Metrics, m)
		}
	}
}

// phaseSessions is the per-phase part of the session plan.
type phaseSessions struct {
	arrivals timing.Arrivals // nil: the spec's own schedule
	sleeper  timing.Sleeper  // nil: the spec's own choice
	count    int             // the scheduler's credit (conversation) bound
	budget   *worker.Budget  // the request bound, when turns are counted
	pick     func() int      // nil: the dataset sampler
	fixed    bool
}

// forPhase resolves how spec runs its conversations. The request count
// bounds credits directly when every conversation is one request; with
// multi-turn conversations it becomes a Budget spent turn by turn, and the
// scheduler stops once it is spent. Sessions bound credits. Only the
// profiling phase replays a fixed schedule; warmup keeps the load mode.
func (s *sessionPlan) forPhase(spec *PhaseSpec) (phaseSessions, error) {
	ps := phaseSessions{count: spec.Count}
	if s.MultiTurn && spec.Count > 0 {
		ps.budget, ps.count = worker.NewBudget(spec.Count), 0
	}
	if spec.Sessions > 0 && (ps.count == 0 || spec.Sessions < ps.count) {
		ps.count = spec.Sessions
	}
	if !s.Fixed || spec.Phase != record.Profiling {
		return ps, nil
	}
	arr, err := timing.Fixed(timing.Dues(s.Replay))
	if err != nil {
		return ps, err
	}
	next := 0
	entries := s.Replay
	ps.arrivals, ps.fixed = arr, true
	// Replay fidelity is the point of this mode: wake within microseconds
	// of each timestamp rather than the timer's millisecond.
	ps.sleeper = &timing.Precise{}
	ps.pick = func() int {
		i := entries[next%len(entries)].Index
		next++
		return i
	}
	return ps, nil
}
