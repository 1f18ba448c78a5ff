package timing

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ReplayWindow selects and anchors the part of a trace a fixed-schedule
// replay sends (AIPerf's --fixed-schedule-* options).
type ReplayWindow struct {
	// AutoOffset makes the earliest kept timestamp the schedule's zero, so
	// the replay starts at once.
	AutoOffset bool
	// Start and End keep only entries whose timestamp t satisfies
	// Start <= t <= End (both inclusive), when HasStart / HasEnd. Without
	// AutoOffset, Start is also the schedule's zero.
	Start, End       time.Duration
	HasStart, HasEnd bool
}

// ReplayEntry is one conversation of a fixed schedule: Index is its
// position in the caller's list, Due its offset from the phase start.
type ReplayEntry struct {
	Index int
	Due   time.Duration
}

// Replay turns trace timestamps (one per conversation: its first turn's)
// into a fixed schedule, as AIPerf's fixed_schedule strategy does: entries
// outside the window are dropped, the rest are sorted by timestamp (stable,
// so equal timestamps keep the trace order), and each is due at
// timestamp - zero, where zero is the first kept timestamp with AutoOffset,
// else Start when given, else 0.
//
// Every timestamp must be >= 0, and the result must not be empty: a window
// that keeps nothing is an error naming it. Pass the entries' Due values to
// Fixed to get the Arrivals.
func Replay(timestamps []time.Duration, w ReplayWindow) ([]ReplayEntry, error) {
	var errs []error
	for i, ts := range timestamps {
		if ts < 0 {
			errs = append(errs, fmt.Errorf("timing: replay timestamp %d is negative (%v)", i, ts))
		}
	}
	if w.HasStart && w.HasEnd && w.Start > w.End {
		errs = append(errs, fmt.Errorf("timing: replay window start %v is after its end %v", w.Start, w.End))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	kept := make([]ReplayEntry, 0, len(timestamps))
	for i, ts := range timestamps {
		if (w.HasStart && ts < w.Start) || (w.HasEnd && ts > w.End) {
			continue
		}
		kept = append(kept, ReplayEntry{Index: i, Due: ts})
	}
	if len(kept) == 0 {
		if len(timestamps) == 0 {
			return nil, errors.New("timing: the trace has no timestamped entries to replay")
		}
		return nil, fmt.Errorf("timing: no trace entry lies in the replay window %s (timestamps span %v to %v)",
			w.describe(), slices.Min(timestamps), slices.Max(timestamps))
	}
	slices.SortStableFunc(kept, func(a, b ReplayEntry) int {
		switch {
		case a.Due < b.Due:
			return -1
		case a.Due > b.Due:
			return 1
		}
		return 0
	})
	var zero time.Duration
	switch {
	case w.AutoOffset:
		zero = kept[0].Due
	case w.HasStart:
		zero = w.Start
	}
	for i := range kept {
		kept[i].Due -= zero
	}
	return kept, nil
}

// describe renders the window as "[start, end]" with open ends shown as
// "-inf"/"+inf".
func (w ReplayWindow) describe() string {
	lo, hi := "-inf", "+inf"
	if w.HasStart {
		lo = w.Start.String()
	}
	if w.HasEnd {
		hi = w.End.String()
	}
	return "[" + lo + ", " + hi + "]"
}

// Dues returns the entries' due offsets, in order, for Fixed.
func Dues(entries []ReplayEntry) []time.Duration {
	out := make([]time.Duration, len(entries))
	for i, e := range entries {
		out[i] = e.Due
	}
	return out
}
