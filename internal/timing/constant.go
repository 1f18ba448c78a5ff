package timing

import (
	"math"
	"time"
)

// constantArrivals is a perfectly regular schedule: due_n = n / rate.
type constantArrivals struct {
	rate float64
	n    uint64
	done bool
}

// Constant returns Arrivals at a fixed rate (requests per second): request n
// (from 0) is due at n/rate, so the first request goes out at the phase start.
//
// Each due time is computed directly from n (n*1e9/rate, rounded to the
// nanosecond), never by adding intervals, so there is no accumulated drift:
// due_n is within half a nanosecond of the exact value for any n.
//
// AIPerf 0.13 starts its constant pattern one interval after the phase start
// (first request at 1/rate); this port sends the first request at 0, as
// vegeta and k6 do, so a phase of duration D at rate R issues R*D requests.
func Constant(rate float64) (Arrivals, error) {
	if err := validRate(rate); err != nil {
		return nil, err
	}
	return &constantArrivals{rate: rate}, nil
}

// Next implements Arrivals.
func (c *constantArrivals) Next() (time.Duration, bool) {
	if c.done {
		return 0, false
	}
	ns := math.Round(float64(c.n) * 1e9 / c.rate)
	if ns >= maxNanos {
		c.done = true
		return 0, false
	}
	c.n++
	return time.Duration(ns), true
}
