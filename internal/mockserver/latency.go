package mockserver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"time"
)

// lognormal turns a standard normal draw z into a lognormal multiplier with
// mean 1 and coefficient of variation cv:
//
//	sigma  = sqrt(ln(1 + cv^2))
//	factor = exp(sigma*z - sigma^2/2)
//
// The -sigma^2/2 term makes E[factor] = exp(sigma^2/2 - sigma^2/2) = 1, so
// jitter never biases the mean latency. cv <= 0 gives exactly 1.
func lognormal(cv, z float64) float64 {
	if cv <= 0 {
		return 1
	}
	sigma := math.Sqrt(math.Log1p(cv * cv))
	return math.Exp(sigma*z - sigma*sigma/2)
}

// tokenClock yields, for one request, the deadline of each successive
// output token as an offset from the request's arrival.
//
// Latencies are fixed once per request (AIPerf's model):
//
//	ttft = (TTFT + TTFTPerISLToken*isl + TTFTConcurrencyQuad*active^2) * jitter
//	itl  =  ITL  + ITLPerOSLToken*osl  + ITLConcurrencyLin*active
//
// Token i is due at ttft + i*itl. With ITL jitter each gap is itl times a
// fresh lognormal factor, and deadlines accumulate gap by gap; without it
// the deadline is computed directly, so no rounding accumulates. Either way
// the deadlines are absolute offsets, never relative sleeps, so timer
// lateness cannot drift the stream.
type tokenClock struct {
	ttft  time.Duration
	itl   time.Duration
	itlMs float64    // un-jittered ITL in ms, for jittered gaps
	cv    float64    // ITL jitter CV
	rng   *rand.Rand // per-request ITL jitter source; nil without jitter
	i     int        // index of the next token
	at    time.Duration
}

// newTokenClock fixes the latencies of a request with isl prompt tokens,
// osl output tokens and active requests in flight (itself included).
// ttftZ is the standard normal draw for TTFT jitter; rng draws the ITL
// jitter and may be nil when cfg.ITLJitterCV is 0.
func newTokenClock(cfg *Config, isl, osl, active int, ttftZ float64, rng *rand.Rand) tokenClock {
	a := float64(active)
	ttftMs := (durationMillis(cfg.TTFT) + cfg.TTFTPerISLToken*float64(isl) + cfg.TTFTConcurrencyQuad*a*a) *
		lognormal(cfg.TTFTJitterCV, ttftZ)
	itlMs := durationMillis(cfg.ITL) + cfg.ITLPerOSLToken*float64(osl) + cfg.ITLConcurrencyLin*a
	c := tokenClock{ttft: millisDuration(ttftMs), itl: millisDuration(itlMs), itlMs: itlMs}
	if cfg.ITLJitterCV > 0 {
		c.cv, c.rng = cfg.ITLJitterCV, rng
	}
	return c
}

// next returns the deadline offset of the next token: ttft for the first,
// then one ITL later each call.
func (c *tokenClock) next() time.Duration {
	switch {
	case c.i == 0:
		c.at = c.ttft
	case c.rng == nil:
		c.at = c.ttft + time.Duration(c.i)*c.itl
	default:
		c.at += millisDuration(c.itlMs * lognormal(c.cv, c.rng.NormFloat64()))
	}
	c.i++
	return c.at
}

// complete returns when a non-streaming answer of n tokens is due: AIPerf's
// TTFT + ITL x n, i.e. the deadline a hypothetical token n would have.
// It consumes the clock.
func (c *tokenClock) complete(n int) time.Duration {
	if c.rng == nil {
		return c.ttft + time.Duration(n)*c.itl
	}
	var at time.Duration
	for range n + 1 {
		at = c.next()
	}
	return at
}

// errStopped reports that waiting ended because the server is closing.
var errStopped = errors.New("mock server closing")

// fineSleepWindow is how long before a deadline the coarse timer hands over
// to fineSleep. It exceeds the timer's ~1 ms lateness so that the hand-over
// happens before the deadline.
const fineSleepWindow = 1500 * time.Microsecond

// waiter sleeps a request until absolute deadlines with one reused timer.
//
// Where fine sleeping is enabled, the timer wakes fineSleepWindow early and
// the rest is slept precisely on an OS thread, if one of the server's
// fine-sleep slots is free (the slots bound the threads parked this way);
// otherwise the timer sleeps the rest. A request stops observing its
// context only for that last window.
type waiter struct {
	t    *time.Timer
	done <-chan struct{} // closed when the server shuts down
	fine chan struct{}   // fine-sleep slots; nil disables fine sleeping
}

// until blocks until deadline, the request's context ends, or the server
// closes, and reports which (nil for the deadline). A deadline already past
// returns at once.
func (w *waiter) until(ctx context.Context, deadline time.Time) error {
	if w.fine != nil {
		if err := w.sleep(ctx, deadline.Add(-fineSleepWindow)); err != nil {
			return err
		}
		if d := time.Until(deadline); d > 0 {
			select {
			case w.fine <- struct{}{}:
				fineSleep(d)
				<-w.fine
				return ctx.Err()
			default:
			}
		}
	}
	return w.sleep(ctx, deadline)
}

// sleep waits on the timer alone.
func (w *waiter) sleep(ctx context.Context, deadline time.Time) error {
	d := time.Until(deadline)
	if d <= 0 {
		return ctx.Err()
	}
	if w.t == nil {
		w.t = time.NewTimer(d)
	} else {
		w.t.Reset(d)
	}
	select {
	case <-w.t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-w.done:
		return errStopped
	}
}

// stop releases the timer.
func (w *waiter) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}
