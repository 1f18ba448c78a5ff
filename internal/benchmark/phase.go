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
	sched, err := timing.New(timing.Options{
		Phase:       spec.Phase,
		Arrivals:    arrivals,
		Concurrency: spec.Concurrency,
		Count:       spec.Count,
		Duration:    spec.Duration,
		Sleeper:     sleeper,
	})
	if err != nil {
		return phaseResult{}, fmt.Errorf("%s phase scheduler: %w", spec.Phase, err)
	}
	counts := &r.pl.counts[spec.Phase]
	requests := r.requests
	if requests == nil {
		requests = context.Background()
	}
	pool, err := worker.NewPool(requests, worker.Options{
		Sender:   r.plan.requestSender(r.client),
		Clock:    r.clk,
		Dataset:  r.plan.Dataset,
		Payloads: r.plan.Payloads,
		URLs:     r.plan.URLs,
		Header:   r.plan.Header,
		Pick:     r.sampler.Next,
		Out:      r.pl.raw,
		Done:     sched.Done,
	})
	if err != nil {
		return phaseResult{}, err
	}
	dispatch := func(c timing.Credit) {
		counts.sent.Add(1)
		pool.Dispatch(c)
	}

	res := phaseResult{Start: r.clk.Now()}
	if r.onStart != nil {
		r.onStart(spec, res.Start)
	}
	r.log.Info("phase started", "phase", spec.Phase.String(), "requests", spec.Count, "duration", spec.Duration,
		"concurrency", spec.Concurrency, "request_rate", spec.Rate, "arrival_pattern", string(spec.Pattern))
	res.Stats = sched.Run(stop, r.clk, dispatch)
	res.Stopped = res.Stats.Reason == timing.StopCtx

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
