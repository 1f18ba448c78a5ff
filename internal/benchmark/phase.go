package benchmark

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// phaseResult is how a phase ended.
type phaseResult struct {
	Stats     timing.Stats
	Start     time.Duration // when the phase started issuing (run offset)
	End       time.Duration // when its last request finished or was cancelled
	Cancelled int           // requests still in flight when the grace period ran out
	Stopped   bool          // issuing was stopped early by an interrupt
	// Aborted says why the run cannot go on after this phase (every load
	// worker lost); empty otherwise.
	Aborted string
}

// phaseRunner holds what every phase shares.
type phaseRunner struct {
	plan    *Plan
	clk     *clock.Clock
	client  *transport.Client
	sampler dataset.Sampler
	pl      *pipeline
	log     *slog.Logger
	// interruptGrace bounds the drain after an interrupt in a phase that
	// would otherwise wait for every response.
	interruptGrace time.Duration
	// abort, closed by a second interrupt, cuts any drain short.
	abort <-chan struct{}
	// schedStat is IO.SchedStat, for the profiling phases' CPU monitor.
	schedStat func() (clienthealth.SchedStat, bool)
	onStart   func(spec *PhaseSpec, start time.Duration)
	// runID is the benchmark id, stamped on adaptive-scale events.
	runID string
	// requests is the parent of every request's context; cancelling it
	// (--failed-request-threshold) aborts every request in flight. nil
	// means context.Background().
	requests context.Context
	// bust marks requests (--cache-bust) across every phase; nil when off.
	bust *worker.CacheBust
	// agentic is the agentic replay's state, which carries over from its
	// warmup to its profiling phase; nil until it starts.
	agentic *agenticRun
	// cluster sends the requests from load workers (--workers); nil sends
	// them from this process.
	cluster *clusterRun
}

// phasePool runs a phase's credits: a worker.Pool in this process, or a
// cluster phase spread over load workers.
type phasePool interface {
	Dispatch(timing.Credit)
	StopSending()
	Cancel()
	InFlight() int
	Close()
}

// poolOptions are the worker options every phase's pool shares; the
// caller sets how credits are picked and returned.
func (r *phaseRunner) poolOptions(spec *PhaseSpec) worker.Options {
	wo := r.plan.poolOptions(r.client, r.clk, r.plan.Paths.WritesRaw())
	wo.Out, wo.CacheBust = r.pl.raw, r.bust
	if spec.Named {
		wo.PhaseName, wo.PhaseIndex, wo.ProfilingIndex = spec.Name, spec.Index, max(0, spec.ProfilingIndex)
	}
	return wo
}

// poolOptions are the worker.Options of the plan itself, the same in this
// process and in a load worker (which has no pipeline of its own).
func (p *Plan) poolOptions(client *transport.Client, clk *clock.Clock, keepHeader bool) worker.Options {
	wo := worker.Options{
		Sender:            p.requestSender(client),
		Clock:             clk,
		Dataset:           p.Dataset,
		Payloads:          p.Payloads,
		URLs:              p.URLs,
		Header:            p.Header,
		SessionHeader:     p.Config.Conversation.SessionHeader,
		KeepRequestHeader: keepHeader,
		BodyEndpoint:      p.Endpoint,
		BodyOptions:       &p.EOptions,
	}
	if p.Sessions.MultiTurn {
		wo.Endpoint, wo.EOptions = p.Endpoint, &p.EOptions
	}
	if capNS, ok := p.Config.InterTurnDelayCap(); ok && p.Config.InterTurnDelayCapApplies() {
		wo.CapDelays, wo.DelayCap = true, time.Duration(capNS)
	}
	p.workerRequestOptions(&wo)
	return wo
}

// pacerEnv selects the rate pacer for side-by-side measurements
// (bench/rate.sh PACERS): "spin" is the earlier timer-then-spin sleeper
// (timing.Precise); unset or anything else, timing.AutoSleeper's choice.
const pacerEnv = "AIPERF_PACER"

// rateSleeper is the sleeper of a rate schedule whose mean gap is mean.
func rateSleeper(env environ.Snapshot, mean time.Duration) timing.Sleeper {
	if mean < timing.PreciseThreshold && env.Getenv(pacerEnv) == "spin" {
		return &timing.Precise{}
	}
	return timing.AutoSleeper(mean)
}

// pacerQuantum is the rate scheduler's batching quantum: credits due
// within timing.DefaultQuantum of its last wake-up go out together. A
// trace replay (fixed) wakes for every timestamp instead: its fidelity to
// each one is the point of that mode.
// AIPERF_PACER_QUANTUM (a Go duration, e.g. 250us) replaces the default
// for measurements (bench/rate.sh QUANTA).
func pacerQuantum(env environ.Snapshot, fixed bool) time.Duration {
	if fixed {
		return 0
	}
	if q, err := time.ParseDuration(env.Getenv(pacerQuantumEnv)); err == nil && q >= 0 {
		return q
	}
	return timing.DefaultQuantum
}

// pacerQuantumEnv overrides pacerQuantum's default (measurements only).
const pacerQuantumEnv = "AIPERF_PACER_QUANTUM"

// backlog bounds a rate schedule's credits issued and not yet sent
// (timing.Options.Backlog): in this process only, where the pool reports
// each credit's first send (load workers do not).
func (r *phaseRunner) backlog(arrivals timing.Arrivals) int {
	if arrivals == nil || r.cluster != nil {
		return 0
	}
	return timing.DefaultBacklog
}

// requestContext is the parent of every request's context.
func (r *phaseRunner) requestContext() context.Context {
	if r.requests == nil {
		return context.Background()
	}
	return r.requests
}

// runScheduled runs a phase whose credits the timing.Scheduler issues: it
// issues them until the phase's stop condition (or stop being cancelled),
// then waits for the requests in flight: forever for a count-bound phase,
// for the grace period after a duration-bound one. What is still in flight
// after that is cancelled; those records end as client cancellations
// (code 499).
func (r *phaseRunner) runScheduled(stop context.Context, spec *PhaseSpec, l *phaseLoad) (phaseResult, error) {
	sched, err := timing.New(r.schedulerOptions(spec, l))
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase scheduler: %w", spec.Phase, err)
	}
	lost := &lostWorkers{done: make(chan struct{})}
	pool, err := r.startPool(spec, l, sched, lost)
	if err != nil {
		return phaseResult{}, err
	}
	res := r.beginPhase(spec)
	r.log.Info("phase started", "phase", spec.Phase.String(), "requests", spec.Count, "duration", spec.Duration,
		"concurrency", spec.Concurrency, "request_rate", spec.Rate, "arrival_pattern", string(spec.Pattern))
	// runCtx ends the sending early: an interrupt (stop), every load
	// worker lost, or a control (the adaptive controller) completing.
	runCtx, endPhase := context.WithCancel(stop)
	defer endPhase()
	go lost.endOn(runCtx, endPhase)
	ctlCtx, stopControls := context.WithCancel(runCtx)
	waitRamp := runLimitSteps(ctlCtx, r, res.Start, l.gateSteps, l.gate.SetLimit)
	waitControl := func() {}
	if l.control != nil {
		waitControl = l.control.start(ctlCtx, sched, res.Start, endPhase)
	}
	res.Stats = sched.Run(runCtx, r.clk, pool.Dispatch)
	stopControls()
	waitRamp()
	waitControl()
	r.stopIssuing(stop, spec, pool, &res)
	res.Aborted = lost.aborted(spec.Phase)
	if l.control != nil {
		if err := l.control.finish(res.Stopped); err != nil {
			return res, err
		}
	}
	r.log.Info("phase finished", "phase", spec.Phase.String(), "issued", res.Stats.Issued,
		"stop_reason", res.Stats.Reason.String(), "cancelled_in_flight", res.Cancelled,
		"elapsed", res.End-res.Start, "credits_that_waited_for_a_slot", res.Stats.Waited)
	return res, nil
}

// schedulerOptions are the scheduler's options for the phase's load. A
// request-rate phase in this process with no concurrency of its own is
// held to AIPerf's connection limit, as lag when reached (capsInFlight).
func (r *phaseRunner) schedulerOptions(spec *PhaseSpec, l *phaseLoad) timing.Options {
	limit := l.limit
	if limit == 0 && len(l.steps) == 0 && l.arrivals != nil && r.cluster == nil && capsInFlight(r.plan) {
		limit = connectionLimit(r.plan.Env)
	}
	return timing.Options{
		Phase:            spec.Phase,
		Arrivals:         l.arrivals,
		Concurrency:      limit,
		ConcurrencySteps: l.steps,
		Count:            l.count,
		Duration:         spec.Duration,
		Sleeper:          l.sleeper,
		Quantum:          pacerQuantum(r.plan.Env, l.fixed),
		Backlog:          r.backlog(l.arrivals),
		Exhausted:        l.exhausted(),
	}
}

// startPool starts the pool that sends the phase's credits: a
// worker.Pool in this process, or the load workers (--workers), which get
// the same options and report losing every worker to lost.
func (r *phaseRunner) startPool(spec *PhaseSpec, l *phaseLoad, sched *timing.Scheduler, lost *lostWorkers) (phasePool, error) {
	counts := &r.pl.counts[spec.Phase]
	wo := r.poolOptions(spec)
	wo.Pick, wo.Done = l.pick, sched.Done
	if r.backlog(l.arrivals) > 0 {
		wo.Started = sched.Started
	}
	wo.FixedSchedule, wo.Budget = l.fixed, l.budget
	wo.OnSend = func(rec *record.Record) { counts.noteSend(rec.Sent) }
	wo.OnSessionStart, wo.OnSessionEnd = counts.sessions.start, counts.sessions.end
	if l.gate != nil {
		wo.Prefill, wo.Parser = l.gate, r.plan.Endpoint
	}
	if spec.Wire > 0 {
		wo.Wire = timing.NewGate(spec.Wire)
	}
	if r.cluster == nil {
		return worker.NewPool(r.requestContext(), wo)
	}
	if wo.Wire != nil {
		return nil, usageError(fmt.Errorf("--workers: --request-concurrency is not supported with load workers yet"))
	}
	if l.gateSteps != nil {
		return nil, usageError(fmt.Errorf("--workers: prefill-concurrency ramps are not supported with load workers yet"))
	}
	return r.cluster.startPhase(r.requestContext(), spec, wo, l.gate, lost.lose)
}

// beginPhase clears the phase's end flags and marks its start.
func (r *phaseRunner) beginPhase(spec *PhaseSpec) phaseResult {
	counts := &r.pl.counts[spec.Phase]
	counts.timedOut.Store(false)
	counts.graceTimedOut.Store(false)
	counts.interrupted.Store(false)
	res := phaseResult{Start: r.clk.Now()}
	if r.onStart != nil {
		r.onStart(spec, res.Start)
	}
	return res
}

// stopIssuing records why the scheduler stopped, stops the pool's later
// turns once the phase is over, and drains it: for the phase's grace, or
// after an interrupt that found none, the interrupt grace.
func (r *phaseRunner) stopIssuing(stop context.Context, spec *PhaseSpec, pool phasePool, res *phaseResult) {
	counts := &r.pl.counts[spec.Phase]
	res.Stopped = res.Stats.Reason == timing.StopCtx && stop.Err() != nil
	counts.timedOut.Store(res.Stats.Reason == timing.StopDuration)
	counts.interrupted.Store(res.Stopped)
	if res.Stats.Reason == timing.StopDuration || res.Stats.Reason == timing.StopCtx {
		// Past the phase's end no turn starts, later turns included.
		pool.StopSending()
	}
	grace := spec.Grace
	if res.Stopped && grace < 0 {
		grace = r.interruptGrace
	}
	res.Cancelled = r.drain(pool, spec.Phase, grace)
	res.End = r.clk.Now()
}

// lostWorkers ends a phase when a run over load workers has lost them all
// (the cluster calls lose at most once).
type lostWorkers struct {
	cause error
	done  chan struct{}
}

// lose records why the last worker went and ends the phase.
func (w *lostWorkers) lose(cause error) {
	w.cause = cause
	close(w.done)
}

// endOn calls end when the workers are lost, until ctx is done.
func (w *lostWorkers) endOn(ctx context.Context, end func()) {
	select {
	case <-w.done:
		end()
	case <-ctx.Done():
	}
}

// aborted is phaseResult.Aborted: like an abort, what was recorded is
// still written, and the run fails.
func (w *lostWorkers) aborted(phase record.Phase) string {
	select {
	case <-w.done:
		return fmt.Sprintf("%s phase: %v", phase, w.cause)
	default:
		return ""
	}
}
