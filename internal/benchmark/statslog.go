package benchmark

import (
	"log/slog"
	"math"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
)

// statsLog writes a block of live statistics to the run log every
// --stats-interval, AIPerf's realtime stats publish: the phase's progress
// and the headline metrics over the latest window. It is a live observer,
// so it reads snapshots only and never touches the request path.
type statsLog struct {
	log      *slog.Logger
	interval time.Duration
	last     time.Duration
	started  bool
}

// newStatsLog returns the observer for an interval in seconds; nil when
// the interval is 0 (off).
func newStatsLog(log *slog.Logger, seconds float64) live.Observer {
	if !(seconds > 0) || math.IsInf(seconds, 0) {
		return nil
	}
	return &statsLog{log: log, interval: time.Duration(seconds * float64(time.Second))}
}

// Observe implements live.Observer: one block per interval of run time,
// the first an interval after the first snapshot, none for the final one
// (the summary follows).
func (l *statsLog) Observe(s *live.Snapshot) {
	if s.Final || s.Phase.Phase == "" {
		return
	}
	if !l.started {
		l.started, l.last = true, s.At
		return
	}
	if s.At-l.last < l.interval {
		return
	}
	l.last = s.At
	p := s.Phase
	attrs := []any{"phase", p.Phase, "elapsed", p.Elapsed.Round(time.Millisecond), "sent", p.Sent, "done", p.Done,
		"errors", p.Errors, "in_flight", p.InFlight}
	for _, m := range s.Metrics {
		if m.Count == 0 || math.IsNaN(m.Avg) {
			continue
		}
		if m.Kind == live.Rate {
			attrs = append(attrs, m.Tag, roundTo(m.Avg, 2))
			continue
		}
		attrs = append(attrs, m.Tag+"_p50_"+m.Unit, roundTo(m.P50, 3), m.Tag+"_p99_"+m.Unit, roundTo(m.P99, 3))
	}
	l.log.Info("realtime stats", attrs...)
}

func roundTo(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}
