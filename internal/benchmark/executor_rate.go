package benchmark

import (
	"time"
)

// rateExecutor is the closed loop (--concurrency) and the request rate
// (--request-rate with its arrival pattern, ramp and series), with the
// limits every scheduled phase has: the session and request bounds, the
// concurrency cap and its ramp, and the prefill-concurrency gate and its
// ramp. It shapes every phase; the modes after it replace what they own.
type rateExecutor struct{}

func (rateExecutor) applies(*Plan, *PhaseSpec) bool { return true }

func (rateExecutor) shape(r *phaseRunner, spec *PhaseSpec, seed uint64, l *phaseLoad) error {
	arrivals, err := spec.NewArrivals(seed)
	if err != nil {
		return phaseErr(spec, "arrivals", err)
	}
	l.arrivals = arrivals
	if spec.Rate > 0 {
		l.sleeper = rateSleeper(r.plan.Env, time.Duration(float64(time.Second)/spec.Rate))
	}
	l.count, l.budget = r.plan.Sessions.bounds(spec)
	l.pick = r.sampler.Next
	if l.limit, l.steps, err = spec.concurrencySteps(seed); err != nil {
		return phaseErr(spec, "", err)
	}
	if l.gate, l.gateSteps, err = spec.prefillGate(seed); err != nil {
		return phaseErr(spec, "", err)
	}
	return nil
}
