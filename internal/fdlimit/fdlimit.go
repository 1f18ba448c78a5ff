// Package fdlimit raises the process's open-file limit (RLIMIT_NOFILE) to
// what a run needs. Every stream holds a socket, on each side of the wire,
// so 100,000 concurrent streams need more descriptors than most systems
// give a process by default. Go already raises the soft limit to the hard
// one at start-up; above the hard limit only a privileged process
// (CAP_SYS_RESOURCE, e.g. root) may go, up to the kernel's fs.nr_open.
// Raise tries that and says plainly when it cannot.
//
// It imports only the standard library, so that the mock server's command
// uses it too.
package fdlimit

import "fmt"

// Remedy says how to allow more descriptors than Raise could.
const Remedy = "raise the hard limit (ulimit -Hn, /etc/security/limits.conf, sysctl fs.nr_open) or run with CAP_SYS_RESOURCE"

// Limit is a soft and a hard open-file limit.
type Limit struct{ Soft, Hard uint64 }

// Result is what Raise did.
type Result struct {
	Want   uint64 // descriptors asked for
	Before Limit
	After  Limit
	NrOpen uint64 // the kernel's ceiling (fs.nr_open); 0 when unknown
	// Err is the refusal of the last limit tried, when After.Soft < Want.
	Err error
	// Unsupported is set where the platform has no RLIMIT_NOFILE.
	Unsupported bool
}

// Short reports whether the limit stayed below what was asked.
func (r Result) Short() bool { return !r.Unsupported && r.After.Soft < r.Want }

// Changed reports whether Raise changed the limits.
func (r Result) Changed() bool { return r.After != r.Before }

// String says what happened, naming the remedy when the limit is short.
func (r Result) String() string {
	switch {
	case r.Unsupported:
		return "open-file limit: not adjustable on this platform"
	case r.Short():
		why := fmt.Sprintf("the hard limit is %d", r.After.Hard)
		if r.NrOpen > 0 && r.NrOpen < r.Want {
			why = fmt.Sprintf("the kernel's fs.nr_open is %d", r.NrOpen)
		}
		msg := fmt.Sprintf("open-file limit %d is below the %d this run needs (%s)", r.After.Soft, r.Want, why)
		if r.Err != nil {
			msg += fmt.Sprintf("; raising it failed: %v", r.Err)
		}
		return msg + "; connections beyond it fail with \"too many open files\": " + Remedy
	case r.Changed():
		return fmt.Sprintf("open-file limit raised from %d (hard %d) to %d (hard %d)",
			r.Before.Soft, r.Before.Hard, r.After.Soft, r.After.Hard)
	default:
		return fmt.Sprintf("open-file limit %d (hard %d) is enough for %d", r.After.Soft, r.After.Hard, r.Want)
	}
}

// plan returns the limits to try, in order, to reach want descriptors
// from cur: the soft limit alone while the hard one allows it; otherwise
// both raised to want (capped at nrOpen, when known), which needs
// privilege, and failing that the soft limit up to the hard one. It never
// lowers a limit; nil means nothing to do.
func plan(want uint64, cur Limit, nrOpen uint64) []Limit {
	if cur.Soft >= want {
		return nil
	}
	if cur.Hard >= want {
		return []Limit{{Soft: want, Hard: cur.Hard}}
	}
	var tries []Limit
	target := want
	if nrOpen > 0 {
		target = min(target, nrOpen)
	}
	if target > cur.Hard {
		tries = append(tries, Limit{Soft: target, Hard: target})
	}
	if cur.Soft < cur.Hard {
		tries = append(tries, Limit{Soft: cur.Hard, Hard: cur.Hard})
	}
	return tries
}

// Raise raises the open-file limit towards want and reports the outcome.
// It never lowers a limit and never fails the caller: a limit it cannot
// reach is in the Result (Short, String).
func Raise(want uint64) Result {
	cur, err := get()
	if err != nil {
		return Result{Want: want, Unsupported: true}
	}
	r := Result{Want: want, Before: cur, After: cur, NrOpen: nrOpen()}
	for _, l := range plan(want, cur, r.NrOpen) {
		if err := set(l); err != nil {
			r.Err = err
			continue
		}
		r.Err = nil
		break
	}
	if now, err := get(); err == nil {
		r.After = now
	}
	return r
}

// Current returns the process's open-file limit now; ok is false where the
// platform has none.
func Current() (l Limit, ok bool) {
	l, err := get()
	return l, err == nil
}
