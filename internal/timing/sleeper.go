package timing

import (
	"context"
	"runtime"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// Sleeper waits until an absolute offset on the run clock.
//
// SleepUntil returns nil once clk.Now() >= deadline (immediately when the
// deadline has already passed: a late caller catches up instead of waiting a
// full interval), or ctx.Err() as soon as ctx is done, including when it is
// already done on entry. Implementations reuse internal state (a timer), so
// one Sleeper must not be used by two goroutines at once; the scheduler owns
// its Sleeper.
type Sleeper interface {
	SleepUntil(ctx context.Context, clk *clock.Clock, deadline time.Duration) error
}

// PreciseThreshold is the mean request interval below which AutoSleeper
// picks Precise. Below it, the ~1 ms quantisation of plain timers is a large
// fraction of each gap and visibly distorts the arrival distribution.
const PreciseThreshold = 5 * time.Millisecond

// DefaultSpinMargin is how long before a deadline Precise stops waiting on
// its timer and starts spinning. It covers the 0.5-1.1 ms by which Go timers
// wake late on Linux, with room to spare.
const DefaultSpinMargin = 1500 * time.Microsecond

// AutoSleeper returns the sleeper suited to a schedule whose mean gap is
// meanInterval. Below PreciseThreshold (high request rates, where
// millisecond timer quantisation matters) it is a Wake where the platform
// has a timerfd, which wakes precisely without spinning, and Precise
// elsewhere; otherwise Coarse (where neither precision is needed). A Wake
// holds a descriptor: Scheduler.Run closes the sleeper it was given when it
// implements io.Closer.
func AutoSleeper(meanInterval time.Duration) Sleeper {
	if meanInterval < PreciseThreshold {
		if w, err := NewWake(); err == nil {
			return w
		}
		return &Precise{}
	}
	return &Coarse{}
}

// Coarse waits on one reused *time.Timer. It is accurate to the runtime's
// timer resolution: on Linux it wakes about 0.5 ms late at p50 and 1.1 ms at
// p99. The zero value is ready to use. The timer is created on first use and
// belongs to the goroutine's synctest bubble, if any, from then on.
type Coarse struct {
	timer *time.Timer
}

// SleepUntil implements Sleeper.
func (c *Coarse) SleepUntil(ctx context.Context, clk *clock.Clock, deadline time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	wait := clk.Until(deadline)
	if wait <= 0 {
		return nil
	}
	if c.timer == nil {
		c.timer = time.NewTimer(wait)
	} else {
		// Since Go 1.23 Reset also discards any undelivered tick, so a stale
		// expiry can never end this wait early.
		c.timer.Reset(wait)
	}
	select {
	case <-c.timer.C:
		return nil
	case <-ctx.Done():
		c.timer.Stop()
		return ctx.Err()
	}
}

// Precise waits on a timer until SpinMargin before the deadline, then spins
// (yielding with runtime.Gosched) until the deadline. It wakes within
// microseconds of the deadline at the cost of one busy core for up to
// SpinMargin per wait. The zero value is ready to use.
//
// Precise needs real time to pass while it spins, so it cannot be used
// inside a testing/synctest bubble (fake time only advances when every
// goroutine is blocked); use Coarse there.
type Precise struct {
	// SpinMargin is how long before the deadline spinning starts;
	// 0 means DefaultSpinMargin.
	SpinMargin time.Duration

	coarse Coarse
}

// SleepUntil implements Sleeper.
func (p *Precise) SleepUntil(ctx context.Context, clk *clock.Clock, deadline time.Duration) error {
	margin := p.SpinMargin
	if margin <= 0 {
		margin = DefaultSpinMargin
	}
	if err := p.coarse.SleepUntil(ctx, clk, deadline-margin); err != nil {
		return err
	}
	done := ctx.Done()
	for clk.Now() < deadline {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
		runtime.Gosched()
	}
	return nil
}
