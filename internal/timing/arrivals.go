package timing

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Arrivals is an iterator over the due times of a phase's requests.
//
// Each call to Next returns the next request's due time as an offset from
// the phase start. Invariants: offsets are >= 0 and non-decreasing; once Next
// returns ok == false it keeps doing so (the schedule is exhausted). An
// Arrivals is pure math: it never reads a clock, so the same construction
// always yields the same sequence. It is not safe for concurrent use; the
// scheduler owns it.
type Arrivals interface {
	Next() (due time.Duration, ok bool)
}

// maxNanos is 2^63 as a float64: the first nanosecond count that no longer
// fits a time.Duration (about 292 years). Schedules that would reach it end
// instead of overflowing.
const maxNanos = float64(math.MaxInt64)

// secondsToDuration converts a non-negative offset in seconds to a Duration,
// rounding to the nearest nanosecond. ok is false when s does not fit. The
// conversion is monotonic, so non-decreasing seconds give non-decreasing
// durations.
func secondsToDuration(s float64) (time.Duration, bool) {
	ns := math.Round(s * 1e9)
	if !(ns >= 0) || ns >= maxNanos { // !(ns >= 0) also catches NaN
		return 0, false
	}
	return time.Duration(ns), true
}

// validRate reports why rate cannot drive a schedule, or nil when it can.
func validRate(rate float64) error {
	if math.IsNaN(rate) || math.IsInf(rate, 0) || rate <= 0 {
		return fmt.Errorf("timing: request rate must be a finite number > 0, got %v", rate)
	}
	return nil
}

// fixedArrivals replays a precomputed schedule.
type fixedArrivals struct {
	dues []time.Duration
	i    int
}

// Fixed returns Arrivals that replay dues in order, for trace replay and
// tests. dues is copied. It must be non-negative and non-decreasing; every
// violation is reported, joined into one error.
func Fixed(dues []time.Duration) (Arrivals, error) {
	var errs []error
	for i, d := range dues {
		if d < 0 {
			errs = append(errs, fmt.Errorf("timing: fixed schedule entry %d is negative (%v)", i, d))
		}
		if i > 0 && d < dues[i-1] {
			errs = append(errs, fmt.Errorf("timing: fixed schedule entry %d (%v) is before entry %d (%v)", i, d, i-1, dues[i-1]))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &fixedArrivals{dues: append([]time.Duration(nil), dues...)}, nil
}

// Next implements Arrivals.
func (f *fixedArrivals) Next() (time.Duration, bool) {
	if f.i >= len(f.dues) {
		return 0, false
	}
	d := f.dues[f.i]
	f.i++
	return d, true
}
