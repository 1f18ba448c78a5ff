// Package sweep computes AIPerf's time-weighted "effective" and "active"
// metrics: step functions of time built by a sweep line over the requests'
// start, first-token and end times (how many requests are in flight, in
// prefill, in decode; tokens per second of prefill, decode and both;
// tokens held in flight), and their time-weighted statistics over the
// phase window. It reproduces AIPerf 0.13's sweep-line algorithms
// (aiperf.analysis.sweepline and its KV-cache and stats companions),
// including its ICL-aware variants that spread decode tokens over the
// response's chunk arrivals, so the same records give the same numbers;
// testdata/reference.json holds AIPerf's own results on fixed inputs.
//
// Everything is pure functions over float64 slices, with NaN meaning "no
// value" as in AIPerf's columns. The package imports nothing internal.
package sweep

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Step is a step function: Val[i] holds from TS[i] until TS[i+1] (the last
// value until the end of time) and the function is 0 before TS[0]. TS is
// sorted ascending and may repeat a timestamp; the last value at a repeated
// timestamp is the one that holds.
type Step struct {
	TS, Val []float64
}

// Len is the number of events.
func (s Step) Len() int { return len(s.TS) }

// event is one +delta or -delta at a time.
type event struct {
	t, d float64
}

// cumulate sorts events by time, ends (negative deltas) before starts
// (positive) at equal times and otherwise in the order given (numpy's
// stable lexsort), and returns the running sum of the deltas. Residues of
// float cancellation below 1e-9 of the largest magnitude are snapped to 0:
// every curve is physically non-negative.
func cumulate(ev []event) Step {
	if len(ev) == 0 {
		return Step{}
	}
	isStart := func(e event) int {
		if e.d > 0 {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ev, func(a, b event) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(isStart(a), isStart(b)))
	})
	s := Step{TS: make([]float64, len(ev)), Val: make([]float64, len(ev))}
	sum, peak := 0.0, 0.0
	for i, e := range ev {
		sum += e.d
		s.TS[i], s.Val[i] = e.t, sum
		peak = max(peak, math.Abs(sum))
	}
	if peak > 0 {
		for i, v := range s.Val {
			if math.Abs(v) < 1e-9*peak {
				s.Val[i] = 0
			}
		}
	}
	return s
}

func nan(x float64) bool { return math.IsNaN(x) }

// At returns the value of s at time t (0 before the first event).
func (s Step) At(t float64) float64 {
	i := sort.Search(len(s.TS), func(i int) bool { return s.TS[i] > t }) - 1
	if i < 0 {
		return 0
	}
	return s.Val[i]
}

// Concurrency is the number of intervals [start[i], end[i]) open at each
// event; records with a NaN bound are left out.
func Concurrency(start, end []float64) Step {
	return Weighted(start, end, nil)
}

// Weighted is Concurrency with interval i counting w[i] instead of 1 (nil
// w = 1 each); records with a NaN weight are left out.
func Weighted(start, end, w []float64) Step {
	var ev []event
	for i := range start {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if nan(start[i]) || nan(end[i]) || nan(wi) {
			continue
		}
		ev = append(ev, event{start[i], wi}, event{end[i], -wi})
	}
	return sortedPairs(ev)
}

// sortedPairs cumulates events appended as (+d at start, -d at end) pairs:
// AIPerf concatenates all the starts, then all the ends, before sorting,
// and the stable sort keeps that order among equal keys.
func sortedPairs(pairs []event) Step {
	ev := make([]event, 0, len(pairs))
	for i := 0; i < len(pairs); i += 2 {
		ev = append(ev, pairs[i])
	}
	for i := 1; i < len(pairs); i += 2 {
		ev = append(ev, pairs[i])
	}
	return cumulate(ev)
}

// Throughput is the decode rate in tokens per ns: each record with a first
// token and at least one output token contributes (osl-1)/(end-gen) over
// [gen, end) (the first token arrives with the first chunk, so only the
// rest spread over the decode time).
func Throughput(gen, end, osl []float64) Step {
	var ev []event
	for i := range gen {
		d := end[i] - gen[i]
		if nan(gen[i]) || nan(osl[i]) || !(d > 0) || !(osl[i] >= 1) {
			continue
		}
		r := (osl[i] - 1) / d
		ev = append(ev, event{gen[i], r}, event{end[i], -r})
	}
	return sortedPairs(ev)
}

// Prefill is the prefill rate in tokens per ns: isl/(gen-start) over
// [start, gen).
func Prefill(start, gen, isl []float64) Step {
	var ev []event
	for i := range start {
		d := gen[i] - start[i]
		if nan(start[i]) || nan(gen[i]) || nan(isl[i]) || !(d > 0) {
			continue
		}
		r := isl[i] / d
		ev = append(ev, event{start[i], r}, event{gen[i], -r})
	}
	return sortedPairs(ev)
}

// Total is Prefill plus Throughput in one sweep (AIPerf's
// total_throughput_sweep_line, whose event order it keeps: prefill starts,
// prefill ends, decode starts, decode ends).
func Total(start, gen, end, isl, osl []float64) Step {
	var pfS, pfE, gnS, gnE []event
	for i := range start {
		if d := gen[i] - start[i]; !nan(start[i]) && !nan(gen[i]) && !nan(isl[i]) && d > 0 {
			r := isl[i] / d
			pfS, pfE = append(pfS, event{start[i], r}), append(pfE, event{gen[i], -r})
		}
		if d := end[i] - gen[i]; !nan(gen[i]) && !nan(osl[i]) && d > 0 && osl[i] >= 1 {
			r := (osl[i] - 1) / d
			gnS, gnE = append(gnS, event{gen[i], r}), append(gnE, event{end[i], -r})
		}
	}
	return cumulate(slices.Concat(pfS, pfE, gnS, gnE))
}

// Divide is num/den on the union of their timestamps, 0 where den is not
// positive; empty when either is.
func Divide(num, den Step) Step {
	if num.Len() == 0 || den.Len() == 0 {
		return Step{}
	}
	ts := unionTS(num.TS, den.TS)
	out := Step{TS: ts, Val: make([]float64, len(ts))}
	for i, t := range ts {
		if d := den.At(t); d > 0 {
			out.Val[i] = num.At(t) / d
		}
	}
	return out
}

// unionTS is numpy.unique of the concatenation: sorted, without repeats.
func unionTS(a, b []float64) []float64 {
	ts := slices.Concat(a, b)
	slices.Sort(ts)
	return slices.Compact(ts)
}
