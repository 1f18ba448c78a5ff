package benchmark

import (
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/ui"
)

// progressInterval is how often the live view is redrawn.
const progressInterval = 250 * time.Millisecond

// progressLoop publishes snapshots of the running phase to the view from
// its own goroutine; it only reads the atomic counters, never live state.
type progressLoop struct {
	view   ui.View
	clk    *clock.Clock
	counts *[2]counters

	mu      sync.Mutex
	spec    *PhaseSpec
	began   time.Duration
	done    chan struct{}
	stopped chan struct{}
}

func newProgressLoop(p *Plan, rio IO, clk *clock.Clock, counts *[2]counters) *progressLoop {
	l := &progressLoop{clk: clk, counts: counts, done: make(chan struct{}), stopped: make(chan struct{})}
	switch p.Config.UIType(rio.IsTTY) {
	case config.UINone:
		l.view = ui.None{}
	default: // simple; the dashboard draws the same live line for now
		l.view = &ui.Simple{W: rio.Stderr, TTY: rio.IsTTY, Width: rio.Width, Every: 5 * time.Second}
	}
	go l.loop()
	return l
}

// start switches the view to a new phase, closing the previous one's line.
func (l *progressLoop) start(spec *PhaseSpec, at time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spec != nil {
		l.view.Close(l.snapshotLocked())
	}
	l.spec, l.began = spec, at
}

func (l *progressLoop) loop() {
	defer close(l.stopped)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
			l.mu.Lock()
			if l.spec != nil {
				l.view.Update(l.snapshotLocked())
			}
			l.mu.Unlock()
		}
	}
}

// stop draws the final state and ends the loop.
func (l *progressLoop) stop() {
	close(l.done)
	<-l.stopped
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spec != nil {
		l.view.Close(l.snapshotLocked())
	}
}

func (l *progressLoop) snapshotLocked() ui.Snapshot {
	c := &l.counts[l.spec.Phase]
	sent, done := int(c.sent.Load()), int(c.done.Load())
	return ui.Snapshot{
		Phase:    l.spec.Phase.String(),
		Elapsed:  l.clk.Now() - l.began,
		Sent:     sent,
		Done:     done,
		Errors:   int(c.errors.Load()),
		InFlight: max(0, sent-done),
		Total:    l.spec.Count,
		Duration: l.spec.Duration,
		Late:     int(c.late.Load()),
		MaxLag:   time.Duration(c.maxLag.Load()),
	}
}
