package benchmark

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
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
	// requests is the parent of every request's context; cancelling it
	// (--failed-request-threshold) aborts every request in flight. nil
	// means context.Background().
	requests context.Context
}

// run issues the phase's credits until its stop condition (or stop being
// cancelled), then waits for the requests in flight: forever for a
// count-bound phase, for the grace period after a duration-bound one. What
// is still in flight after that is cancelled; those records end as client
// cancellations (code 499).
func (r *phaseRunner) run(stop context.Context, spec *PhaseSpec, seed uint64) (phaseResult, error) {
	arrivals, err := spec.NewArrivals(seed)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase arrivals: %w", spec.Phase, err)
	}
	var sleeper timing.Sleeper
	if spec.Rate > 0 {
		sleeper = timing.AutoSleeper(time.Duration(float64(time.Second) / spec.Rate))
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
		sleeper = timing.AutoSleeper(time.Duration(float64(time.Second) / spec.UserRate))
	}
	limit, steps, err := spec.concurrencySteps(seed)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase: %w", spec.Phase, err)
	}
	gate, gateSteps, err := spec.prefillGate(seed)
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase: %w", spec.Phase, err)
	}
	sched, err := timing.New(timing.Options{
		Phase:            spec.Phase,
		Arrivals:         arrivals,
		Concurrency:      limit,
		ConcurrencySteps: steps,
		Count:            sess.count,
		Duration:         spec.Duration,
		Sleeper:          sleeper,
		Exhausted:        exhausted,
	})
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase scheduler: %w", spec.Phase, err)
	}
	counts := &r.pl.counts[spec.Phase]
	requests := r.requests
	if requests == nil {
		requests = context.Background()
	}
	wo := worker.Options{
		Sender:            r.plan.requestSender(r.client),
		Clock:             r.clk,
		Dataset:           r.plan.Dataset,
		Payloads:          r.plan.Payloads,
		URLs:              r.plan.URLs,
		Header:            r.plan.Header,
		SessionHeader:     r.plan.Config.Conversation.SessionHeader,
		KeepRequestHeader: r.plan.Paths.WritesRaw(),
		Pick:              pick,
		Out:               r.pl.raw,
		Done:              sched.Done,
		FixedSchedule:     sess.fixed,
		Budget:            sess.budget,
		OnSend:            func() { counts.noteSend(r.clk) },
	}
	if gate != nil {
		wo.Prefill, wo.Parser = gate, r.plan.Endpoint
	}
	if r.plan.Sessions.MultiTurn {
		wo.Endpoint, wo.EOptions = r.plan.Endpoint, &r.plan.EOptions
	}
	r.plan.workerRequestOptions(&wo)
	if capNS, ok := r.plan.Config.InterTurnDelayCap(); ok {
		wo.CapDelays, wo.DelayCap = true, time.Duration(capNS)
	}
	pool, err := worker.NewPool(requests, wo)
	if err != nil {
		return phaseResult{}, err
	}
	dispatch := pool.Dispatch

	res := phaseResult{Start: r.clk.Now()}
	if r.onStart != nil {
		r.onStart(spec, res.Start)
	}
	r.log.Info("phase started", "phase", spec.Phase.String(), "requests", spec.Count, "duration", spec.Duration,
		"concurrency", spec.Concurrency, "request_rate", spec.Rate, "arrival_pattern", string(spec.Pattern))
	rampCtx, stopRamp := context.WithCancel(stop)
	waitRamp := runLimitSteps(rampCtx, r, res.Start, gateSteps, gate.SetLimit)
	res.Stats = sched.Run(stop, r.clk, dispatch)
	stopRamp()
	waitRamp()
	res.Stopped = res.Stats.Reason == timing.StopCtx
	if res.Stats.Reason == timing.StopDuration || res.Stopped {
		// Past the phase's end no turn starts, later turns included.
		pool.StopSending()
	}

	grace := spec.Grace
	if res.Stopped && grace < 0 {
		grace = r.interruptGrace
	}
	res.Cancelled = r.drain(pool, spec.Phase, grace)
	res.End = r.clk.Now()
	r.log.Info("phase finished", "phase", spec.Phase.String(), "issued", res.Stats.Issued,
		"stop_reason", res.Stats.Reason.String(), "cancelled_in_flight", res.Cancelled,
		"elapsed", res.End-res.Start, "credits_that_waited_for_a_slot", res.Stats.Waited)
	return res, nil
}
