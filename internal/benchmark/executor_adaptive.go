package benchmark

import (
	"context"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
)

// adaptiveExecutor is adaptive scale (a config file's adaptive_scale):
// in the profiling phase, a controller moves one variable of the load
// below it - the concurrency, the prefill-concurrency gate or the request
// rate - from its minimum, every assessment period, until the SLAs fail
// or its bound is reached (adaptive.go runs the controller).
type adaptiveExecutor struct{}

func (adaptiveExecutor) applies(p *Plan, spec *PhaseSpec) bool {
	return p.Adaptive != nil && spec.Phase == record.Profiling
}

func (adaptiveExecutor) shape(r *phaseRunner, spec *PhaseSpec, seed uint64, l *phaseLoad) error {
	ac := r.plan.Adaptive
	ar, err := newAdaptiveRun(r.plan, ac, r.clk, r.log, r.runID)
	if err != nil {
		return err
	}
	c := &adaptiveControl{r: r, ar: ar}
	// The controller starts the variable at its minimum.
	switch config.AdaptiveVariable(ac.Variable) {
	case config.AdaptiveConcurrency:
		l.limit = int(ac.Min)
	case config.AdaptivePrefillConcurrency:
		l.gate, l.gateSteps = timing.NewGate(int(ac.Min)), nil
	case config.AdaptiveRequestRate:
		if c.rate, err = adaptiveArrivals(spec, seed, ac.Min); err != nil {
			return phaseErr(spec, "", err)
		}
		l.arrivals = c.rate
		l.sleeper = rateSleeper(r.plan.Env, time.Duration(float64(time.Second)/ac.Max))
	}
	c.gate, l.control = l.gate, c
	return nil
}

// adaptiveControl is the controller at work in a scheduled phase.
type adaptiveControl struct {
	r    *phaseRunner
	ar   *adaptiveRun
	gate *timing.Gate           // the prefill gate it moves
	rate *timing.AdjustableRate // the arrivals it moves
}

func (c *adaptiveControl) start(ctx context.Context, sched *timing.Scheduler, start time.Duration, end func()) func() {
	ar := c.ar
	ar.end = end
	ar.apply = func(v float64) {
		switch config.AdaptiveVariable(ar.ctl.Config().Variable) {
		case config.AdaptiveConcurrency:
			sched.SetConcurrency(int(v))
		case config.AdaptivePrefillConcurrency:
			c.gate.SetLimit(int(v))
		case config.AdaptiveRequestRate:
			_ = c.rate.SetRate(c.r.clk.Now()-start, v) // v is within the validated bounds
		}
	}
	c.r.pl.adaptive.Store(ar)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ar.run(ctx, start)
	}()
	return func() { <-done }
}

func (c *adaptiveControl) finish(stopped bool) error {
	c.r.pl.adaptive.Store(nil)
	return c.ar.finish(stopped)
}

// adaptiveArrivals replaces the phase's rate schedule with one the
// controller can move, for control.variable request_rate.
func adaptiveArrivals(spec *PhaseSpec, seed uint64, start float64) (*timing.AdjustableRate, error) {
	pattern := string(spec.Pattern)
	if pattern == "" || spec.Pattern == config.ArrivalConcurrencyBurst {
		pattern = string(config.ArrivalPoisson)
	}
	return timing.NewAdjustableRate(pattern, start, spec.Smoothness, seed)
}
