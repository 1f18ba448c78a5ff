package benchmark

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Overload warnings while the run goes: the summary's
// client_health says after the run that the client could not keep the
// asked rate; these say so as soon as it happens, so nobody waits out a
// long run whose load never arrived.
const (
	// overloadMinElapsed is how long a phase runs before it is judged: the
	// first sends are few and their rate noisy.
	overloadMinElapsed = time.Second
	// overloadShare is the share of the due sends below which the send
	// rate counts as fallen behind.
	overloadShare = 0.9
	// overloadLag is the window's schedule-lag p99 above which the sends
	// count as late, whatever their count.
	overloadLag = 100 * time.Millisecond
	// overloadEvery is the least time between two warnings.
	overloadEvery = 5 * time.Second
)

// overloadWatch is a live.Observer that warns, at most every
// overloadEvery, while a fixed-rate phase sends less than overloadShare of
// the requests due so far or its schedule lag p99 passes overloadLag.
// Phases without one fixed rate (concurrency, ramps, rate series, users)
// are not judged, nor those whose sends a limit the user chose holds back
// (--concurrency with the rate, --prefill-concurrency: PhaseSpec.heldBy).
// Observe runs on the publisher's goroutine only.
type overloadWatch struct {
	log    *slog.Logger
	rates  map[string]float64 // phase name -> asked requests/s
	last   time.Duration      // when the last warning was given (snapshot At)
	warned bool
}

// heldBy names the flags of the phase whose limits, chosen by the user,
// hold requests past their due time: a concurrency cap under a request
// rate (a closed loop has no schedule a slot could delay) and a prefill
// gate. Neither client-health judgement blames the client for them.
func (s *PhaseSpec) heldBy() []string {
	var flags []string
	if (s.Rate > 0 || s.RateRamp != nil || len(s.RateSeries) > 0) && (s.Concurrency > 0 || s.ConcurrencyRamp != nil) {
		flags = append(flags, "--concurrency")
	}
	if s.Prefill > 0 || s.PrefillRamp != nil {
		flags = append(flags, "--prefill-concurrency")
	}
	return flags
}

// newOverloadWatch returns the watch for p's fixed-rate phases; nil when
// it has none.
func newOverloadWatch(p *Plan, log *slog.Logger) *overloadWatch {
	rates := map[string]float64{}
	for _, ph := range p.Phases {
		if ph.Rate > 0 && ph.RateRamp == nil && len(ph.RateSeries) == 0 && ph.Users == 0 && len(ph.heldBy()) == 0 {
			rates[ph.Phase.String()] = ph.Rate
		}
	}
	if len(rates) == 0 {
		return nil
	}
	return &overloadWatch{log: log, rates: rates}
}

// Observe implements live.Observer.
func (w *overloadWatch) Observe(s *live.Snapshot) {
	if s.Final {
		return
	}
	msg, ok := overloadMessage(s.Phase, w.rates[s.Phase.Phase], s.Health.LagP99)
	if !ok || (w.warned && s.At-w.last < overloadEvery) {
		return
	}
	w.warned, w.last = true, s.At
	w.log.Warn(msg, "phase", s.Phase.Phase, "sent", s.Phase.Sent, "in_flight", s.Phase.InFlight, "goroutines", s.Health.Goroutines)
}

// overloadMessage is the decision: the warning for a phase that asked for
// rate requests/s and whose window's lag p99 is lag, or false when the
// client keeps up (or the phase is not judged).
func overloadMessage(p live.Progress, rate float64, lag time.Duration) (string, bool) {
	if !(rate > 0) || p.Elapsed < overloadMinElapsed {
		return "", false
	}
	// The schedule ends with the phase's duration: past it the phase only
	// waits for its last responses, and no request more is due.
	sending := p.Elapsed
	if p.Duration > 0 {
		sending = min(sending, p.Duration)
	}
	due := rate * sending.Seconds()
	if p.Total > 0 {
		due = min(due, float64(p.Total))
	}
	behind := float64(p.Sent) < overloadShare*due
	if !behind && lag <= overloadLag {
		return "", false
	}
	achieved := float64(p.Sent) / sending.Seconds()
	return fmt.Sprintf("client overloaded: sent %d of the %.0f requests due after %.1f s (%.0f/s of the asked %.0f/s), schedule lag p99 %.1f ms: the offered load is short of the schedule; see client_health in the summary",
		p.Sent, due, p.Elapsed.Seconds(), achieved, rate, float64(lag)/float64(time.Millisecond)), true
}
