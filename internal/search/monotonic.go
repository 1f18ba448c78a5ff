package search

import (
	"errors"
	"math"
)

// SLAPrecision is the monotonic planner's stopping precision: bisection
// ends when (infeasible_min - feasible_max) / infeasible_min drops below
// it (5 %, perf_analyzer's --binary-search default), or the two are
// adjacent integers.
const SLAPrecision = 0.05

// MonotonicPlanner finds the largest value of one integer dimension that
// still meets the SLA, assuming feasibility falls off once as the value
// grows (more concurrency, more latency), as AIPerf's monotonic_sla
// planner:
//
//  1. Exponential probe: lo, 2 lo, 4 lo, ... (hi last) until a point
//     fails. A failure at lo ends with "monotonic_no_pass_in_range"; a
//     pass at hi with "monotonic_no_failure_in_range".
//  2. Bisection between the highest pass (feasible_max) and the lowest
//     failure (infeasible_min) until they are adjacent or within
//     SLAPrecision: "monotonic_precision_reached".
//
// A verdict contradicting the bracket (a pass at or above infeasible_min,
// a failure at or below feasible_max) is flagged NonMonotonic and leaves
// the bracket as it is.
//
// Stability is AIPerf's stability window: a value's verdict latches once
// Stability observations of it agree (pass or fail); until then the same
// value is proposed again. 1 latches every observation at once.
type MonotonicPlanner struct {
	base
	lo, hi int
	next   int
	probe  bool
	// Stability is the agreeing verdicts a value needs (>= 1).
	Stability int
	votes     map[int][2]int // value -> passes, fails
	// FeasibleMax and InfeasibleMin bracket the SLA boundary; -1 until
	// known.
	FeasibleMax, InfeasibleMin int
	// FeasibleIter and InfeasibleIter are the iterations that set them.
	FeasibleIter, InfeasibleIter int
}

// NewMonotonic is a monotonic search of dim, which must be an integer
// dimension, within maxIter points.
func NewMonotonic(dim Dim, maxIter int) (*MonotonicPlanner, error) {
	if !dim.Int {
		return nil, errors.New("the monotonic planner searches an int dimension (path:lo,hi:int); use the bayesian planner for a real one")
	}
	lo, hi := int(math.Ceil(dim.Lo)), int(math.Floor(dim.Hi))
	if lo < 1 {
		lo = 1 // doubling from 0 never moves
	}
	if hi <= lo {
		return nil, errors.New("the monotonic planner needs at least two whole values in its range")
	}
	return &MonotonicPlanner{
		base: base{space: []Dim{dim}, maxIter: maxIter}, lo: lo, hi: hi, next: lo, probe: true, Stability: 1, votes: map[int][2]int{},
		FeasibleMax: -1, InfeasibleMin: -1, FeasibleIter: -1, InfeasibleIter: -1,
	}, nil
}

// Next implements Planner.
func (m *MonotonicPlanner) Next() (Point, bool) {
	if !m.budgetLeft() {
		return nil, false
	}
	return m.propose(Point{float64(m.next)})
}

// DefaultStability is AIPerf's monotonic_stability_trials.
const DefaultStability = 2

// Observe implements Planner.
func (m *MonotonicPlanner) Observe(o Observation) {
	v := int(m.pending[0])
	it := m.record(o)
	votes := m.votes[v]
	if o.Feasible {
		votes[0]++
	} else {
		votes[1]++
	}
	m.votes[v] = votes
	need := max(m.Stability, 1)
	if votes[0] < need && votes[1] < need {
		return // provisional: the same value again
	}
	pass := votes[0] >= need
	if pass {
		if m.InfeasibleMin >= 0 && v >= m.InfeasibleMin {
			it.NonMonotonic = true
		} else if v > m.FeasibleMax {
			m.FeasibleMax, m.FeasibleIter = v, it.Index
		}
	} else {
		if m.FeasibleMax >= 0 && v <= m.FeasibleMax {
			it.NonMonotonic = true
		} else if m.InfeasibleMin < 0 || v < m.InfeasibleMin {
			m.InfeasibleMin, m.InfeasibleIter = v, it.Index
		}
	}
	if m.probe {
		switch {
		case !pass && m.FeasibleMax < 0:
			m.reason = "monotonic_no_pass_in_range"
			return
		case !pass:
			m.probe = false
		case v >= m.hi:
			m.reason = "monotonic_no_failure_in_range"
			return
		default:
			m.next = min(2*v, m.hi)
			return
		}
	}
	m.bisect()
}

// bisect picks the midpoint of the bracket or ends the search.
func (m *MonotonicPlanner) bisect() {
	if m.FeasibleMax < 0 || m.InfeasibleMin < 0 {
		if m.FeasibleMax < 0 {
			m.reason = "monotonic_no_pass_in_range"
		} else {
			m.reason = "monotonic_no_failure_in_range"
		}
		return
	}
	gap := m.InfeasibleMin - m.FeasibleMax
	if gap <= 1 || float64(gap)/float64(max(m.InfeasibleMin, 1)) < SLAPrecision {
		m.reason = "monotonic_precision_reached"
		return
	}
	mid := m.FeasibleMax + gap/2 // biased down, as AIPerf
	m.next = min(max(mid, m.FeasibleMax+1), m.InfeasibleMin-1)
}
