package benchmark

import (
	"context"
	"fmt"
	"time"

	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// Load modes as executors. Each load mode is one executor in its own file
// (executor_*.go); the executors registry below is the one place that
// lists them. An executor turns a phase spec into the phase's load: its
// arrivals and sleeper, its concurrency limit and ramp, its prefill gate,
// its bounds and picks, and any control that moves the load while the
// phase runs. The executors that apply to a phase shape its load in the
// registry's order, each on what the ones before it built (a fixed
// schedule replaces the request-rate arrivals; adaptive scale takes over
// one variable of what is below it). An executor that drives its phase
// itself (agentic replay) sets drive and is the only one to shape it.
//
// The phase loop (phaseRunner.run) is then one thing: shape the load and
// run it on the credit scheduler and a pool (phase.go), or let the
// executor drive. Where the credits are sent - this process or load
// workers - is the pool's business, not the mode's.
//
// To add a load mode: write its executor in a new executor_<mode>.go, add
// it to the registry, and give PhaseSpec (loadshape.go) the field that
// selects it.

// executor is one load mode.
type executor interface {
	// applies reports whether the mode shapes spec in plan p.
	applies(p *Plan, spec *PhaseSpec) bool
	// shape turns spec into the phase's load on top of l. seed feeds
	// random schedules. An error names the phase.
	shape(r *phaseRunner, spec *PhaseSpec, seed uint64, l *phaseLoad) error
}

// executors is the registry of load modes, in the order they shape a
// phase.
var executors = []executor{
	agenticExecutor{},  // agentic replay: drives its phases itself
	rateExecutor{},     // closed loop or request rate, ramps and series, limits: every phase
	fixedExecutor{},    // fixed schedule and traces: the profiling phase of a timestamped dataset
	userExecutor{},     // user-centric: a phase with users
	adaptiveExecutor{}, // adaptive scale: the profiling phase, moving one variable
}

// phaseLoad is what the executors make of a phase spec: everything the
// credit scheduler and the pool need to run it.
type phaseLoad struct {
	arrivals  timing.Arrivals    // nil: a closed loop
	sleeper   timing.Sleeper     // nil: the scheduler's default
	limit     int                // credits outstanding at the start; 0 = unlimited
	steps     []timing.LimitStep // the concurrency ramp's steps
	gate      *timing.Gate       // the prefill-concurrency gate; nil without one
	gateSteps []timing.LimitStep // its ramp's steps
	count     int                // the scheduler's credit (conversation) bound
	budget    *worker.Budget     // the request bound, when turns are counted
	pick      func() int         // the conversation of the next credit
	fixed     bool               // a replayed fixed schedule
	// control moves the load while the phase runs; nil when nothing does.
	control phaseControl
	// drive runs the whole phase in place of the credit scheduler; nil
	// for a scheduled phase.
	drive func(stop context.Context) (phaseResult, error)
}

// exhausted is the scheduler's stop check for a request budget; nil
// without one.
func (l *phaseLoad) exhausted() func() bool {
	if l.budget == nil {
		return nil
	}
	return l.budget.Exhausted
}

// phaseControl moves a scheduled phase's load while it runs.
type phaseControl interface {
	// start begins controlling the phase that started at start (run
	// offset) until ctx is done; end stops the phase's sending. The
	// returned function waits for the control to stop.
	start(ctx context.Context, sched *timing.Scheduler, start time.Duration, end func()) (wait func())
	// finish runs once the phase has drained; stopped says it was
	// interrupted.
	finish(stopped bool) error
}

// run runs one phase: the executors shape its load, which runs on the
// credit scheduler unless its executor drives it.
func (r *phaseRunner) run(stop context.Context, spec *PhaseSpec, seed uint64) (phaseResult, error) {
	l, err := r.load(spec, seed)
	if err != nil {
		return phaseResult{}, err
	}
	if l.drive != nil {
		return l.drive(stop)
	}
	return r.runScheduled(stop, spec, l)
}

// load is the phase's load as the registry's executors shape it.
func (r *phaseRunner) load(spec *PhaseSpec, seed uint64) (*phaseLoad, error) {
	l := &phaseLoad{}
	for _, e := range executors {
		if !e.applies(r.plan, spec) {
			continue
		}
		if err := e.shape(r, spec, seed, l); err != nil {
			return nil, err
		}
		if l.drive != nil {
			break
		}
	}
	return l, nil
}

// phaseErr names the phase (and what of it failed) in an executor's error.
func phaseErr(spec *PhaseSpec, what string, err error) error {
	if what == "" {
		return fmt.Errorf("%s phase: %w", spec.Phase, err)
	}
	return fmt.Errorf("%s phase %s: %w", spec.Phase, what, err)
}
