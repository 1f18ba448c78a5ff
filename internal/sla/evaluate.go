package sla

import (
	"math"
	"strconv"
	"strings"
)

// Source gives the statistics filters are checked against: stat of
// metric, in the metric's display unit, and whether it exists. A run's
// summary, a multi-run aggregate and an adaptive-scale window each
// implement it.
type Source interface {
	Value(metric, stat string) (float64, bool)
}

// Table is a Source held in memory: metric tag -> statistic -> value.
type Table map[string]map[string]float64

// Value implements Source.
func (t Table) Value(metric, stat string) (float64, bool) {
	v, ok := t[metric][stat]
	return v, ok
}

// Set stores one value and returns t (a nil Table is allocated).
func (t Table) Set(metric, stat string, v float64) Table {
	if t == nil {
		t = Table{}
	}
	if t[metric] == nil {
		t[metric] = map[string]float64{}
	}
	t[metric][stat] = v
	return t
}

// Check is one filter evaluated against a Source.
type Check struct {
	Filter Filter `json:"filter"`
	// Value is the statistic read; NaN when the Source lacks it.
	Value float64 `json:"value"`
	// Found is false when the Source has no such statistic: the check
	// fails, as AIPerf treats a missing metric as infeasible (skipping it
	// would hide a misspelt filter).
	Found bool `json:"found"`
	Pass  bool `json:"pass"`
}

// Margin is the check's normalised headroom (see Filter.Margin).
func (c Check) Margin() (float64, bool) {
	if !c.Found {
		return 0, false
	}
	return c.Filter.Margin(c.Value)
}

// Result is a set of filters evaluated against one Source.
type Result struct {
	// Pass is true when every check passes (and for no filters at all).
	Pass   bool    `json:"pass"`
	Checks []Check `json:"checks"`
}

// Evaluate checks every filter against src, in order. A non-finite value
// fails its check.
func Evaluate(filters []Filter, src Source) Result {
	r := Result{Pass: true, Checks: make([]Check, len(filters))}
	for i, f := range filters {
		v, ok := src.Value(f.Metric, f.Stat)
		c := Check{Filter: f, Value: math.NaN(), Found: ok}
		if ok {
			c.Value = v
			c.Pass = !math.IsInf(v, 0) && f.Holds(v)
		}
		r.Checks[i] = c
		r.Pass = r.Pass && c.Pass
	}
	return r
}

// Failed returns the checks that did not pass.
func (r Result) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Pass {
			out = append(out, c)
		}
	}
	return out
}

// Binding returns the check with the least margin: the filter closest to
// failing (or furthest past it), which limits how far the load can grow.
// ok is false when no check has a margin.
func (r Result) Binding() (Check, bool) {
	var best Check
	bestMargin, found := 0.0, false
	for _, c := range r.Checks {
		m, ok := c.Margin()
		if !ok {
			continue
		}
		if !found || m < bestMargin {
			best, bestMargin, found = c, m, true
		}
	}
	return best, found
}

// Describe summarises the result for people: "pass" or the failing
// filters with the values seen.
func (r Result) Describe() string {
	if r.Pass {
		return "pass"
	}
	var parts []string
	for _, c := range r.Failed() {
		if !c.Found {
			parts = append(parts, c.Filter.Describe()+" (no "+c.Filter.Key()+" in the results)")
			continue
		}
		parts = append(parts, c.Filter.Describe()+" (got "+formatValue(c.Value)+")")
	}
	return "fail: " + strings.Join(parts, "; ")
}

// formatValue prints a value with six significant digits.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
