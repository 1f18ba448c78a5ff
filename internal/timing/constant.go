package timing

import (
	"math"
	"time"
)

// constantArrivals is a perfectly regular schedule: due_n = (n+1) / rate.
type constantArrivals struct {
	rate float64
	n    uint64
	done bool
}

// Constant returns Arrivals at a fixed rate (requests per second): request n
// (from 0) is due at (n+1)/rate, so the first request goes out one interval
// after the phase start.
//
// That is AIPerf 0.13's definition (its rate loop targets start +
// next_interval() before the first credit, for every arrival pattern), kept
// so that the same flags give the same schedule: a phase of D seconds at
// rate R sends the requests due at 1/R, 2/R, ... before D, as AIPerf does.
// It also makes the constant pattern consistent with Poisson and gamma,
// whose first request is one gap after the start.
//
// Each due time is computed directly from n ((n+1)*1e9/rate, rounded to the
// nanosecond), never by adding intervals, so there is no accumulated drift:
// due_n is within half a nanosecond of the exact value for any n.
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
	ns := math.Round(float64(c.n+1) * 1e9 / c.rate)
	if ns >= maxNanos {
		c.done = true
		return 0, false
	}
	c.n++
	return time.Duration(ns), true
}
