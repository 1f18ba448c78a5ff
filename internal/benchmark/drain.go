package benchmark

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// drain closes pool and waits for its requests in flight: until they are
// done, until grace runs out (grace >= 0; forever when negative), or until
// a second interrupt closes r.abort, whichever comes first. What is still
// in flight then is cancelled, and drain returns how many requests that
// was; their records end as client cancellations (code 499) and still
// reach the artifacts.
func (r *phaseRunner) drain(pool phasePool, phase record.Phase, grace time.Duration) (cancelled int) {
	drained := make(chan struct{})
	go func() {
		pool.Close()
		close(drained)
	}()
	var expired <-chan time.Time
	if grace >= 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-drained:
		return 0
	case <-expired:
		cancelled = pool.InFlight()
		r.pl.counts[phase].graceTimedOut.Store(true)
		r.log.Warn("grace period over: cancelling requests still in flight",
			"phase", phase.String(), "grace", grace, "in_flight", cancelled)
	case <-r.abort:
		cancelled = pool.InFlight()
		r.log.Warn("second interrupt: cancelling requests still in flight",
			"phase", phase.String(), "in_flight", cancelled)
	}
	pool.Cancel()
	<-drained
	return cancelled
}
