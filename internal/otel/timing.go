package otel

import (
	"context"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Timing metric names (AIPerf's timing strategy). The sessions and
// timeout counters of AIPerf are not sent: the live progress carries
// requests, not sessions, and phase timeouts are not tracked there.
const (
	RequestsSent      = "aiperf.timing.requests.sent"
	RequestsCompleted = "aiperf.timing.requests.completed"
	RequestErrors     = "aiperf.timing.requests.errors"
	RequestsInFlight  = "aiperf.timing.requests.in_flight"
	PhaseElapsed      = "aiperf.timing.phase.elapsed_sec"
)

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
		opt := metric.WithAttributes(append(attrs, e.common...)...)
		for _, c := range []struct {
			name, field string
			v           int
		}{
			{RequestsSent, "requests_sent", p.Sent},
			{RequestsCompleted, "requests_completed", p.Done},
			{RequestErrors, "request_errors", p.Errors},
		} {
			if d := e.delta(p.Phase, c.name, float64(c.v)); d > 0 {
				e.counter(c.name, "AIPerf timing counter: "+c.field).Add(context.Background(), int64(d), opt)
			}
		}
		for _, g := range []struct {
			name, field, unit string
			v                 float64
		}{
			{RequestsInFlight, "in_flight_requests", "1", float64(p.InFlight)},
			{PhaseElapsed, "requests_elapsed_time", "s", p.Elapsed.Seconds()},
		} {
			if d := e.delta(p.Phase, g.name, g.v); math.Abs(d) >= 1e-9 {
				e.upDown(g.name, g.unit, "AIPerf timing gauge metric: "+g.field).Add(context.Background(), d, opt)
			}
		}
	}
}

// delta is v minus the value last sent for phase/name, recording v. A
// counter that went back (a reset) sends nothing, as in AIPerf.
func (e *Exporter) delta(phase, name string, v float64) float64 {
	k := phase + "\x00" + name
	prev := e.prev[k]
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
