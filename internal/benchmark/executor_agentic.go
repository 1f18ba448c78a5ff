package benchmark

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// agenticExecutor is the agentic replay (agentic.go plans it): it drives
// both its phases itself, the synthesized warmup and the profiling phase,
// on the calling goroutine. It owns the schedule (timing.AgenticReplay);
// every request runs on its own goroutine and reports back on a channel.
type agenticExecutor struct{}

func (agenticExecutor) applies(p *Plan, _ *PhaseSpec) bool { return p.Sessions.Agentic != nil }

func (agenticExecutor) shape(r *phaseRunner, spec *PhaseSpec, _ uint64, l *phaseLoad) error {
	l.drive = func(stop context.Context) (phaseResult, error) { return r.runAgentic(stop, spec) }
	return nil
}

// agenticReturn is a request that came back.
type agenticReturn struct {
	send timing.AgenticSend
	res  worker.TurnResult
}

// agenticPhase is one phase of the replay while it runs; only the
// goroutine running it touches it.
type agenticPhase struct {
	r        *phaseRunner
	a        *agenticRun
	spec     *PhaseSpec
	pool     *worker.Pool
	returns  chan agenticReturn
	seq      uint64 // requests sent
	inFlight int
	res      phaseResult
	stopping bool // sending has stopped: no request starts any more

	wake      *time.Timer      // the schedule's next due time
	deadlineT *time.Timer      // --benchmark-duration (profiling); nil without one
	deadline  <-chan time.Time // its channel
	stopC     <-chan struct{}  // the interrupt, until it came
	graceT    *time.Timer
	graceC    <-chan time.Time
}

// runAgentic runs one phase of the agentic replay (the synthesized warmup
// or the profiling phase).
func (r *phaseRunner) runAgentic(stop context.Context, spec *PhaseSpec) (phaseResult, error) {
	if r.agentic == nil {
		a, err := r.newAgenticRun()
		if err != nil {
			return phaseResult{}, err
		}
		r.agentic = a
	}
	ph, err := r.startAgentic(stop, spec)
	if err != nil {
		return phaseResult{}, err
	}
	defer ph.stopTimers()
	ph.loop()
	return ph.finish()
}

// startAgentic starts the phase: its pool, its timers and its first sends.
func (r *phaseRunner) startAgentic(stop context.Context, spec *PhaseSpec) (*agenticPhase, error) {
	a := r.agentic
	counts := &r.pl.counts[spec.Phase]
	wo := r.poolOptions(spec)
	wo.Pick, wo.Done = func() int { return 0 }, func(timing.Credit) {}
	wo.OnSend = func(rec *record.Record) { counts.noteSend(rec.Sent) }
	pool, err := worker.NewPool(r.requestContext(), wo)
	if err != nil {
		return nil, err
	}
	ph := &agenticPhase{r: r, a: a, spec: spec, pool: pool, stopC: stop.Done(),
		returns: make(chan agenticReturn, max(16, 2*spec.Concurrency))}
	ph.res = phaseResult{Start: r.clk.Now()}
	ph.res.Stats.Start = ph.res.Start
	if r.onStart != nil {
		r.onStart(spec, ph.res.Start)
	}
	r.log.Info("phase started", "phase", spec.Phase.String(), "timing_mode", config.TimingAgenticReplay, "lanes", len(a.replay.Trajectories()),
		"duration", spec.Duration, "requests", spec.Count)
	if spec.Phase == record.Warmup {
		ph.launch(a.replay.StartWarmup(ph.res.Start))
	} else {
		ph.launch(a.replay.StartProfiling(ph.res.Start))
	}
	if spec.Phase == record.Profiling && spec.Duration > 0 {
		ph.deadlineT = time.NewTimer(spec.Duration)
		ph.deadline = ph.deadlineT.C
	}
	ph.wake = time.NewTimer(time.Hour)
	ph.res.Stats.Reason = timing.StopCount
	return ph, nil
}

// stopTimers releases the phase's timers.
func (ph *agenticPhase) stopTimers() {
	ph.wake.Stop()
	for _, t := range []*time.Timer{ph.deadlineT, ph.graceT} {
		if t != nil {
			t.Stop()
		}
	}
}

// launch sends each request on its own goroutine.
func (ph *agenticPhase) launch(sends []timing.AgenticSend) {
	for _, s := range sends {
		st := ph.a.stream(ph.pool, s)
		o := worker.TurnOptions{Seq: ph.seq, Phase: ph.spec.Phase, Due: s.Due}
		if s.OneToken {
			o.MaxTokens = 1
		}
		ph.seq++
		ph.inFlight++
		wid := fmt.Sprintf("lane_%d", s.Lane)
		go func() {
			ph.returns <- agenticReturn{send: s, res: ph.pool.SendTurn(wid, st, o, s.Turn)}
		}()
	}
}

// startGrace starts the grace period g once (none when g < 0).
func (ph *agenticPhase) startGrace(g time.Duration) {
	if ph.graceT != nil || g < 0 {
		return
	}
	ph.graceT = time.NewTimer(g)
	ph.graceC = ph.graceT.C
}

// halt stops the sending for reason, once.
func (ph *agenticPhase) halt(reason timing.StopReason) {
	if ph.stopping {
		return
	}
	ph.stopping = true
	ph.res.Stats.Reason, ph.res.Stats.End = reason, ph.r.clk.Now()
	ph.a.replay.Stop()
}

// loop runs the schedule until nothing is in flight and nothing more can
// be sent.
func (ph *agenticPhase) loop() {
	for ph.inFlight > 0 || !ph.a.replay.Done() {
		if !ph.stopping && ph.spec.Phase == record.Warmup && ph.a.replay.SendingDone() {
			ph.startGrace(ph.spec.Grace) // the spread has ended: the warmup's grace runs
		}
		var wakeC <-chan time.Time
		if due, ok := ph.a.replay.Next(); ok && !ph.stopping {
			ph.wake.Reset(max(0, due-ph.r.clk.Now()))
			wakeC = ph.wake.C
		}
		if ph.inFlight == 0 && wakeC == nil {
			break // nothing can happen any more
		}
		ph.step(wakeC)
		ph.wake.Stop()
	}
}

// step waits for the next event and handles it.
func (ph *agenticPhase) step(wakeC <-chan time.Time) {
	select {
	case ret := <-ph.returns:
		ph.returned(ret)
	case <-wakeC:
		ph.launch(ph.a.replay.Due(ph.r.clk.Now()))
	case <-ph.deadline:
		ph.halt(timing.StopDuration)
		ph.startGrace(ph.spec.Grace)
	case <-ph.stopC:
		ph.interrupted()
	case <-ph.graceC:
		ph.graceC = nil
		ph.res.Cancelled = ph.inFlight
		ph.r.log.Warn("grace period over: cancelling requests still in flight", "phase", ph.spec.Phase.String(), "in_flight", ph.inFlight)
		ph.halt(ph.res.Stats.Reason)
		ph.pool.Cancel()
	case <-ph.r.abort:
		ph.res.Cancelled = ph.inFlight
		ph.halt(timing.StopCtx)
		ph.pool.Cancel()
	}
}

// returned tells the schedule a request came back, ends its stream after
// its last turn (or a context overflow), and sends what follows.
func (ph *agenticPhase) returned(ret agenticReturn) {
	ph.inFlight--
	overflow := ret.res.Failed && record.ContextOverflow(ret.res.Error)
	next := ph.a.replay.Returned(ph.r.clk.Now(), ret.send, timing.AgenticOutcome{
		Failed: ret.res.Failed, Cancelled: ret.res.Cancelled, Overflow: overflow})
	if c := &ph.a.convs[ret.send.Conv]; ret.send.Turn == len(c.Turns)-1 || overflow {
		ph.r.endStream(ph.pool, ph.a, ret.send.Stream)
	}
	if !ph.stopping {
		ph.launch(next)
	}
}

// interrupted stops the sending on an interrupt and starts the grace (the
// interrupt grace when the phase waits forever).
func (ph *agenticPhase) interrupted() {
	ph.stopC = nil
	ph.res.Stopped = true
	ph.halt(timing.StopCtx)
	g := ph.spec.Grace
	if g < 0 {
		g = ph.r.interruptGrace
	}
	ph.startGrace(g)
}

// finish ends the phase: the warmup hands the replay to profiling (and
// fails the run if a priming request failed); profiling ends every
// stream's session.
func (ph *agenticPhase) finish() (phaseResult, error) {
	r, a, res := ph.r, ph.a, &ph.res
	if !ph.stopping {
		res.Stats.End = r.clk.Now()
	}
	res.Stats.Issued = ph.seq
	res.End = r.clk.Now()
	ph.pool.Cancel()
	r.log.Info("phase finished", "phase", ph.spec.Phase.String(), "issued", ph.seq, "stop_reason", res.Stats.Reason.String(),
		"cancelled_in_flight", res.Cancelled, "elapsed", res.End-res.Start, "system_idle_cap_jumps", a.replay.IdleJumps)
	if ph.spec.Phase == record.Warmup {
		a.replay.FinishWarmup(res.End)
		return *res, ph.warmupFailure()
	}
	for id := range a.streams {
		r.endStream(ph.pool, a, id)
	}
	return *res, nil
}

// warmupFailure fails the run when priming requests failed: profiling
// would resume those trajectories without their context.
func (ph *agenticPhase) warmupFailure() error {
	f := ph.a.replay.WarmupFailures()
	if len(f) == 0 || ph.res.Stopped {
		return nil
	}
	ids := make([]string, 0, min(len(f), 5))
	for _, c := range f[:min(len(f), 5)] {
		ids = append(ids, ph.a.convs[c].ID)
	}
	return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf(
		"agentic_replay warmup: the priming request of %d trajectories failed or was cancelled (%s); profiling would resume them without their context",
		len(f), strings.Join(ids, ", "))}
}

// endStream ends a stream's session (a sticky transport lets go of it).
func (r *phaseRunner) endStream(pool *worker.Pool, a *agenticRun, id int) {
	if st, ok := a.streams[id]; ok {
		pool.EndStream(st)
		delete(a.streams, id)
	}
}
