package telemetry

import (
	"github.com/aiperf-go/aiperf/internal/live"
)

// PanelSink receives the latest telemetry of a source for live displays:
// the dashboard and the live integrations read them from a live.Board,
// which implements it. A collector posts a fresh Panel (never modified
// afterwards) after each scrape.
type PanelSink interface {
	PutPanel(live.Panel)
}

var _ PanelSink = (*live.Board)(nil)

// History keeps the last few values of named gauges, for the Series of a
// live.Gauge. It is used by one collector goroutine at a time.
type History struct {
	keep   int
	series map[string][]float64
}

// NewHistory keeps up to keep values per gauge.
func NewHistory(keep int) *History {
	return &History{keep: max(keep, 1), series: map[string][]float64{}}
}

// Gauge records v for name and returns the gauge with its recent history
// (a fresh slice the caller may publish).
func (h *History) Gauge(name, unit string, v float64) live.Gauge {
	s := append(h.series[name], v)
	if len(s) > h.keep {
		s = s[len(s)-h.keep:]
	}
	h.series[name] = s
	return live.Gauge{Name: name, Unit: unit, Value: v, Series: append([]float64(nil), s...)}
}
