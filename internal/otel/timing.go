package otel

import (
	"context"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Timing metric names (AIPerf's timing strategy): counters of requests
// and user sessions, and the gauges sent as up-down counters.
const (
	RequestsSent      = "aiperf.timing.requests.sent"
	RequestsCompleted = "aiperf.timing.requests.completed"
	RequestsCancelled = "aiperf.timing.requests.cancelled"
	RequestErrors     = "aiperf.timing.requests.errors"
	SessionsSent      = "aiperf.timing.sessions.sent"
	SessionsCompleted = "aiperf.timing.sessions.completed"
	SessionsCancelled = "aiperf.timing.sessions.cancelled"
	SessionTurns      = "aiperf.timing.sessions.turns_total"

	RequestsInFlight = "aiperf.timing.requests.in_flight"
	SessionsInFlight = "aiperf.timing.sessions.in_flight"
	PhaseTimeout     = "aiperf.timing.phase.timeout_triggered"
	PhaseGrace       = "aiperf.timing.phase.grace_timeout_triggered"
	PhaseCancelled   = "aiperf.timing.phase.was_cancelled"
	PhaseElapsed     = "aiperf.timing.phase.elapsed_sec"
)

// flag is a phase flag as a gauge value, as AIPerf sends it.
func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// timing exports the counters of every phase of s: cumulative counts as
// counter deltas, gauges as up-down-counter deltas (so a sum over the
// series is the latest value), each attributed to its phase.
func (e *Exporter) timing(s *live.Snapshot) {
	if s.Seq == 1 {
		clear(e.prev) // a new run of an experiment
	}
	phases := append([]live.Progress(nil), s.Finished...)
	if s.Phase.Phase != "" {
		phases = append(phases, s.Phase)
	}
	for _, p := range phases {
		attrs := []attribute.KeyValue{attribute.String("aiperf.benchmark_phase", p.Phase)}
		if p.Total > 0 {
			attrs = append(attrs, attribute.Int("aiperf.total_expected_requests", p.Total))
		}
		if p.Duration > 0 {
			attrs = append(attrs, attribute.Float64("aiperf.expected_duration_sec", p.Duration.Seconds()))
		}
		if p.Sessions.Expected > 0 {
			attrs = append(attrs, attribute.Int("aiperf.expected_num_sessions", p.Sessions.Expected))
		}
		opt := metric.WithAttributes(append(attrs, e.common...)...)
		for _, c := range []struct {
			name, field string
			v           int
		}{
			{RequestsSent, "requests_sent", p.Sent},
			{RequestsCompleted, "requests_completed", p.Completed()},
			{RequestsCancelled, "requests_cancelled", p.Cancelled},
			{RequestErrors, "request_errors", p.Failed()},
			{SessionsSent, "sent_sessions", p.Sessions.Sent},
			{SessionsCompleted, "completed_sessions", p.Sessions.Completed},
			{SessionsCancelled, "cancelled_sessions", p.Sessions.Cancelled},
			{SessionTurns, "total_session_turns", p.Sessions.Turns},
		} {
			if d := e.rise(p.Phase, c.name, float64(c.v)); d > 0 {
				e.counter(c.name, "AIPerf timing counter: "+c.field).Add(context.Background(), int64(d), opt)
			}
		}
		for _, g := range []struct {
			name, field, unit string
			v                 float64
		}{
			{RequestsInFlight, "in_flight_requests", "1", float64(p.InFlight)},
			{SessionsInFlight, "in_flight_sessions", "1", float64(p.Sessions.InFlight())},
			{PhaseTimeout, "timeout_triggered", "1", flag(p.TimedOut)},
			{PhaseGrace, "grace_period_timeout_triggered", "1", flag(p.GraceTimedOut)},
			{PhaseCancelled, "was_cancelled", "1", flag(p.Interrupted)},
			{PhaseElapsed, "requests_elapsed_time", "s", p.Elapsed.Seconds()},
		} {
			if d := e.delta(p.Phase, g.name, g.v); math.Abs(d) >= 1e-9 {
				e.upDown(g.name, g.unit, "AIPerf timing gauge metric: "+g.field).Add(context.Background(), d, opt)
			}
		}
	}
}

// delta is v minus the value last sent for phase/name, recording v: a
// gauge's change.
func (e *Exporter) delta(phase, name string, v float64) float64 {
	k := phase + "\x00" + name
	prev := e.prev[k]
	e.prev[k] = v
	return v - prev
}

// rise is how far the counter phase/name rose above the highest value
// sent, recording the new high. A value below it sends nothing and is not
// recorded: the completed and errors counts are differences of counters
// read one after the other, which may dip for one snapshot, and a counter
// that went back sends nothing, as in AIPerf.
func (e *Exporter) rise(phase, name string, v float64) float64 {
	k := phase + "\x00" + name
	prev := e.prev[k]
	if v <= prev {
		return 0
	}
	e.prev[k] = v
	return v - prev
}

func (e *Exporter) counter(name, desc string) metric.Int64Counter {
	if c, ok := e.counts[name]; ok {
		return c
	}
	c, err := e.meter.Int64Counter(name, metric.WithUnit("1"), metric.WithDescription(desc))
	if err != nil {
		e.opts.Log.Warn("otel: instrument", "name", name, "error", err)
	}
	e.counts[name] = c
	return c
}

func (e *Exporter) upDown(name, unit, desc string) metric.Float64UpDownCounter {
	if c, ok := e.updowns[name]; ok {
		return c
	}
	c, err := e.meter.Float64UpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		e.opts.Log.Warn("otel: instrument", "name", name, "error", err)
	}
	e.updowns[name] = c
	return c
}
