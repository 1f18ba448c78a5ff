package timing

import (
	"context"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// Gate is a counting semaphore whose limit can change while it is in use:
// the prefill-concurrency gate (--prefill-concurrency), which every request
// passes before it is sent and leaves at its first content chunk. Waiters
// are served first come, first served. A lowered limit never revokes a
// slot; it only delays the next grants until enough are released.
//
// Acquire, Release, SetLimit and the getters are safe from any goroutine.
type Gate struct {
	mu      sync.Mutex
	limit   int
	held    int
	maxHeld int
	waiters []chan struct{} // FIFO; a closed channel has been granted a slot
}

// NewGate returns a gate admitting limit holders at once (limit > 0).
func NewGate(limit int) *Gate { return &Gate{limit: max(1, limit)} }

// Acquire blocks until the caller holds a slot, or ctx is done (then it
// returns ctx.Err() and holds nothing).
func (g *Gate) Acquire(ctx context.Context) error {
	g.mu.Lock()
	if g.held < g.limit && len(g.waiters) == 0 {
		g.take()
		g.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	g.waiters = append(g.waiters, ch)
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-ch: // granted while we were giving up: hand it on
			g.held--
			g.grant()
		default:
			for i, w := range g.waiters {
				if w == ch {
					g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
					break
				}
			}
		}
		return ctx.Err()
	}
}

// Release returns a slot taken by Acquire.
func (g *Gate) Release() {
	g.mu.Lock()
	if g.held > 0 {
		g.held--
	}
	g.grant()
	g.mu.Unlock()
}

// SetLimit changes the limit (values below 1 mean 1) and admits waiters
// that now fit.
func (g *Gate) SetLimit(n int) {
	g.mu.Lock()
	g.limit = max(1, n)
	g.grant()
	g.mu.Unlock()
}

// Limit returns the current limit.
func (g *Gate) Limit() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.limit
}

// MaxHeld returns the most slots held at once so far.
func (g *Gate) MaxHeld() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.maxHeld
}

// take holds one slot; g.mu must be held.
func (g *Gate) take() {
	g.held++
	g.maxHeld = max(g.maxHeld, g.held)
}

// grant admits waiters in order while slots are free; g.mu must be held.
func (g *Gate) grant() {
	for len(g.waiters) > 0 && g.held < g.limit {
		close(g.waiters[0])
		g.waiters[0] = nil
		g.waiters = g.waiters[1:]
		g.take()
	}
}

// RunLimitSteps applies steps to set at their times (offsets from start on
// clk), then returns; it returns early when ctx is done. It is the thin
// loop around a ramp's pure schedule for limits the scheduler does not own
// (the prefill gate).
func RunLimitSteps(ctx context.Context, clk *clock.Clock, start time.Duration, steps []LimitStep, set func(int)) {
	var timer *time.Timer
	for _, st := range steps {
		if wait := clk.Until(start + st.At); wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
				defer timer.Stop()
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
		}
		set(st.Limit)
	}
}
