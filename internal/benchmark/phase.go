package benchmark

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
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
	abort   <-chan struct{}
	onStart func(spec *PhaseSpec, start time.Duration)
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
	}
	if p.Sessions.MultiTurn {
		wo.Endpoint, wo.EOptions = p.Endpoint, &p.EOptions
	}
	p.workerRequestOptions(&wo)
	return wo
}

// pacerEnv selects the rate pacer for side-by-side measurements
// (bench/rate.sh PACERS): "spin" is the earlier timer-then-spin sleeper
// (timing.Precise); unset or anything else, timing.AutoSleeper's choice.
const pacerEnv = "AIPERF_PACER"

// rateSleeper is the sleeper of a rate schedule whose mean gap is mean.
func rateSleeper(mean time.Duration) timing.Sleeper {
	if mean < timing.PreciseThreshold && os.Getenv(pacerEnv) == "spin" {
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
func pacerQuantum(fixed bool) time.Duration {
	if fixed {
		return 0
	}
	if q, err := time.ParseDuration(os.Getenv(pacerQuantumEnv)); err == nil && q >= 0 {
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

// run issues the phase's credits until its stop condition (or stop being
// cancelled), then waits for the requests in flight: forever for a
// count-bound phase, for the grace period after a duration-bound one. What
// is still in flight after that is cancelled; those records end as client
// cancellations (code 499).
func (r *phaseRunner) run(stop context.Context, spec *PhaseSpec, seed uint64) (phaseResult, error) {
	if r.plan.Sessions.Agentic != nil {
		return r.runAgentic(stop, spec)
	}
	arrivals, err := spec.NewArrivals(seed)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase arrivals: %w", spec.Phase, err)
	}
	var sleeper timing.Sleeper
	if spec.Rate > 0 {
		sleeper = rateSleeper(time.Duration(float64(time.Second) / spec.Rate))
	}
	sess, err := r.plan.Sessions.forPhase(spec)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase schedule: %w", spec.Phase, err)
	}
	if sess.arrivals != nil {
		arrivals, sleeper = sess.arrivals, sess.sleeper
	}
	var exhausted func() bool
	if sess.budget != nil {
		exhausted = sess.budget.Exhausted
	}
	pick := r.sampler.Next
	if sess.pick != nil {
		pick = sess.pick
	}
	if spec.Users > 0 {
		users := &userPicks{next: pick, turns: func(c int) int { return len(r.plan.Dataset.Conversations[c].Turns) }}
		uc, err := timing.NewUserCentric(spec.UserRate, spec.Users, r.plan.meanTurns(), users.length)
		if err != nil {
			return phaseResult{}, fmt.Errorf("%s phase user-centric schedule: %w", spec.Phase, err)
		}
		arrivals, pick = uc, users.pick
		sleeper = rateSleeper(time.Duration(float64(time.Second) / spec.UserRate))
	}
	limit, steps, err := spec.concurrencySteps(seed)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase: %w", spec.Phase, err)
	}
	if limit == 0 && len(steps) == 0 && arrivals != nil && r.cluster == nil && capsInFlight(r.plan) {
		limit = connectionLimit() // AIPerf's connection limit, as lag when reached
	}
	gate, gateSteps, err := spec.prefillGate(seed)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase: %w", spec.Phase, err)
	}
	var ar *adaptiveRun
	var adjustable *timing.AdjustableRate
	if ac := r.plan.Adaptive; ac != nil && spec.Phase == record.Profiling {
		if ar, err = newAdaptiveRun(r.plan, ac, r.clk, r.log, r.runID); err != nil {
			return phaseResult{}, err
		}
		// The controller starts the variable at its minimum.
		switch config.AdaptiveVariable(ac.Variable) {
		case config.AdaptiveConcurrency:
			limit = int(ac.Min)
		case config.AdaptivePrefillConcurrency:
			gate, gateSteps = timing.NewGate(int(ac.Min)), nil
		case config.AdaptiveRequestRate:
			if adjustable, err = adaptiveArrivals(spec, seed, ac.Min); err != nil {
				return phaseResult{}, fmt.Errorf("%s phase: %w", spec.Phase, err)
			}
			arrivals = adjustable
			sleeper = rateSleeper(time.Duration(float64(time.Second) / ac.Max))
		}
	}
	sched, err := timing.New(timing.Options{
		Phase:            spec.Phase,
		Arrivals:         arrivals,
		Concurrency:      limit,
		ConcurrencySteps: steps,
		Count:            sess.count,
		Duration:         spec.Duration,
		Sleeper:          sleeper,
		Quantum:          pacerQuantum(sess.fixed),
		Backlog:          r.backlog(arrivals),
		Exhausted:        exhausted,
	})
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase scheduler: %w", spec.Phase, err)
	}
	counts := &r.pl.counts[spec.Phase]
	wo := r.poolOptions(spec)
	wo.Pick, wo.Done = pick, sched.Done
	if r.backlog(arrivals) > 0 {
		wo.Started = sched.Started
	}
	wo.FixedSchedule, wo.Budget = sess.fixed, sess.budget
	wo.OnSend = func(*record.Record) { counts.noteSend(r.clk) }
	wo.OnSessionStart, wo.OnSessionEnd = counts.sessions.start, counts.sessions.end
	if gate != nil {
		wo.Prefill, wo.Parser = gate, r.plan.Endpoint
	}
	if capNS, ok := r.plan.Config.InterTurnDelayCap(); ok {
		wo.CapDelays, wo.DelayCap = true, time.Duration(capNS)
	}
	// noWorkers ends the phase when a run over load workers has lost them
	// all (the cluster calls it at most once).
	var lostAll error
	noWorkers := make(chan struct{})
	var pool phasePool
	if r.cluster != nil {
		if gateSteps != nil {
			return phaseResult{}, usageError(fmt.Errorf("--workers: prefill-concurrency ramps are not supported with load workers yet"))
		}
		pool, err = r.cluster.startPhase(r.requestContext(), spec, wo, gate, func(cause error) {
			lostAll = cause
			close(noWorkers)
		})
	} else {
		pool, err = worker.NewPool(r.requestContext(), wo)
	}
	if err != nil {
		return phaseResult{}, err
	}
	dispatch := pool.Dispatch

	counts.timedOut.Store(false)
	counts.graceTimedOut.Store(false)
	counts.interrupted.Store(false)
	res := phaseResult{Start: r.clk.Now()}
	if r.onStart != nil {
		r.onStart(spec, res.Start)
	}
	r.log.Info("phase started", "phase", spec.Phase.String(), "requests", spec.Count, "duration", spec.Duration,
		"concurrency", spec.Concurrency, "request_rate", spec.Rate, "arrival_pattern", string(spec.Pattern))
	// runCtx ends the sending early: an interrupt (stop), or the adaptive
	// controller completing.
	runCtx, endPhase := context.WithCancel(stop)
	defer endPhase()
	go func() {
		select {
		case <-noWorkers:
			endPhase()
		case <-runCtx.Done():
		}
	}()
	rampCtx, stopRamp := context.WithCancel(runCtx)
	waitRamp := runLimitSteps(rampCtx, r, res.Start, gateSteps, gate.SetLimit)
	waitAdaptive := func() {}
	if ar != nil {
		ar.end = endPhase
		ar.apply = func(v float64) {
			switch config.AdaptiveVariable(ar.ctl.Config().Variable) {
			case config.AdaptiveConcurrency:
				sched.SetConcurrency(int(v))
			case config.AdaptivePrefillConcurrency:
				gate.SetLimit(int(v))
			case config.AdaptiveRequestRate:
				_ = adjustable.SetRate(r.clk.Now()-res.Start, v) // v is within the validated bounds
			}
		}
		r.pl.adaptive.Store(ar)
		done := make(chan struct{})
		go func() {
			defer close(done)
			ar.run(rampCtx, res.Start)
		}()
		waitAdaptive = func() { <-done }
	}
	res.Stats = sched.Run(runCtx, r.clk, dispatch)
	stopRamp()
	waitRamp()
	waitAdaptive()
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
	select {
	case <-noWorkers:
		// Like an abort: what was recorded is still written, and the
		// run fails.
		res.Aborted = fmt.Sprintf("%s phase: %v", spec.Phase, lostAll)
	default:
	}
	if ar != nil {
		r.pl.adaptive.Store(nil)
		if err := ar.finish(res.Stopped); err != nil {
			return res, err
		}
	}
	r.log.Info("phase finished", "phase", spec.Phase.String(), "issued", res.Stats.Issued,
		"stop_reason", res.Stats.Reason.String(), "cancelled_in_flight", res.Cancelled,
		"elapsed", res.End-res.Start, "credits_that_waited_for_a_slot", res.Stats.Waited)
	return res, nil
}
