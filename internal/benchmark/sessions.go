package benchmark

import (
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
	for i := range ds.Len() {
		turns, _, has := ds.FirstTurn(i)
		if turns > 1 {
			p.Sessions.MultiTurn = true
		}
		if has {
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
	return p.planFixedSchedule(anyTS, all)
}

// bounds is how spec's conversations are counted: the scheduler's credit
// (conversation) bound, and the request budget. The request count bounds
// credits directly when every conversation is one request; with multi-turn
// conversations it becomes a Budget spent turn by turn, and the scheduler
// stops once it is spent. Sessions bound credits.
func (s *sessionPlan) bounds(spec *PhaseSpec) (count int, budget *worker.Budget) {
	count = spec.Count
	if s.MultiTurn && spec.Count > 0 {
		budget, count = worker.NewBudget(spec.Count), 0
	}
	if spec.Sessions > 0 && (count == 0 || spec.Sessions < count) {
		count = spec.Sessions
	}
	return count, budget
}
