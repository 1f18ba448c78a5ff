// Package clock is the one place where run-relative monotonic offsets and
// wall-clock time meet.
//
// Every duration the tool measures is an offset from one monotonic start
// (time.Since on a time.Time that carries a monotonic reading), so NTP steps
// and wall-clock jumps never bend a latency. Wall time is derived from the
// same start only when an artifact needs an epoch timestamp.
package clock

import (
	"math"
	"time"
)

// Clock is a run's time base. The zero value is not usable; call New.
// A Clock is immutable after New and safe for concurrent use.
type Clock struct {
	start time.Time // carries both wall and monotonic readings
	wall  int64     // start's wall clock in Unix nanoseconds, cached
}

// New starts a clock now.
func New() *Clock {
	start := time.Now()
	return &Clock{start: start, wall: start.UnixNano()}
}

// Now returns the monotonic time elapsed since the clock started.
func (c *Clock) Now() time.Duration { return time.Since(c.start) }

// Start returns the instant the clock started (with its monotonic reading).
func (c *Clock) Start() time.Time { return c.start }

// Until returns how long from now until the offset d is reached; negative
// when d is already in the past.
func (c *Clock) Until(d time.Duration) time.Duration { return d - c.Now() }

// Wall converts a run offset to wall-clock time.
func (c *Clock) Wall(d time.Duration) time.Time {
	return time.Unix(0, c.wall+int64(d))
}

// WallNanos converts a run offset to Unix epoch nanoseconds, the form
// AIPerf's artifacts use (request_start_ns and friends).
func (c *Clock) WallNanos(d time.Duration) int64 { return c.wall + int64(d) }

// Aligned returns a clock that reads what a remote clock reads now, on
// this process's monotonic clock: its offsets are base's plus offset (the
// remote clock minus base, as measured by a clock exchange), and its wall
// time is the remote clock's, wallStart being the remote clock's wall
// reading at its own start.
//
// A load worker stamps its records with such a clock, so that they land on
// the controller's timeline while every duration within them is still
// measured on the worker's own monotonic clock: a constant shift moves
// positions, never lengths.
func Aligned(base *Clock, offset time.Duration, wallStart int64) *Clock {
	return &Clock{start: base.start.Add(-offset), wall: wallStart}
}

// Seconds converts validated (finite, non-negative) seconds to a
// duration, saturating at the longest time.Duration instead of overflowing
// into a negative one that would fire at once.
func Seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(s * float64(time.Second))
}
