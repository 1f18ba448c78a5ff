// Package sla is the service-level filter model shared by everything that
// asks "does this load pass?": the SLA search over sweeps (internal/search),
// the grid filter of a sweep aggregate, the use-case verdicts, and the
// online adaptive scale of a run (the same filters, evaluated per window).
//
// A Filter is AIPerf's SLAFilter: "stat(metric) op threshold", e.g.
// time_to_first_token p95 < 200 ms. It is written three ways, all parsed
// here:
//
//	--search-sla 'time_to_first_token:p95:lt:200'       (Parse)
//	--search-sla-tier 'fast:ttft_filter,itl_filter'      (ParseTier)
//	sla: {time_to_first_token: {p95: {lt: 200}}}        (FromValue, nested YAML)
//	sla_filters: [{metric_tag: ..., stat: p95, op: lt, threshold: 200}]
//
// and the recipe shorthands (--ttft-sla-ms and friends, Shorthands).
//
// Units: a threshold is in the metric's display unit, the unit its value
// has in profile_export_aiperf.json (milliseconds for latencies,
// tokens/sec for throughputs, percent for request_error_rate). Values a
// Source returns must use the same units.
//
// The package imports nothing from this module, so config, timing and the
// experiment runner can all depend on it.
package sla

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Op is a comparison operator of a filter.
type Op string

// The operators, as AIPerf spells them. A filter passes when
// "value op threshold" holds.
const (
	LT Op = "lt"
	LE Op = "le"
	GT Op = "gt"
	GE Op = "ge"
)

// Ops lists the operators in AIPerf's order.
func Ops() []Op { return []Op{LT, LE, GT, GE} }

// Holds reports whether "v op threshold" is true. NaN never holds.
func (o Op) Holds(v, threshold float64) bool {
	switch o {
	case LT:
		return v < threshold
	case LE:
		return v <= threshold
	case GT:
		return v > threshold
	case GE:
		return v >= threshold
	}
	return false
}

// Symbol is the operator as a mathematical sign ("<", "<=", ...).
func (o Op) Symbol() string {
	switch o {
	case LT:
		return "<"
	case LE:
		return "<="
	case GT:
		return ">"
	case GE:
		return ">="
	}
	return string(o)
}

// upper reports whether the threshold is an upper bound (lt, le): smaller
// values are better for the filter.
func (o Op) upper() bool { return o == LT || o == LE }

// Stats lists the statistics a filter may name, in AIPerf's order.
func Stats() []string {
	return []string{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max"}
}

// DefaultStat is the statistic of a list-form filter that names none, as
// AIPerf's SLAFilter.
const DefaultStat = "p95"

// Filter is one SLA constraint: Stat of Metric compared with Threshold by
// Op. The zero value is not a valid filter; build filters with New or the
// parsers, which check every field.
type Filter struct {
	// Metric is the metric tag as the run summary keys it
	// (time_to_first_token). Short aliases (ttft, itl, tpot, e2e) are
	// accepted by the parsers and stored canonical.
	Metric string `json:"metric_tag"`
	// Stat is one of Stats().
	Stat string `json:"stat"`
	// Op compares the statistic with Threshold.
	Op Op `json:"op"`
	// Threshold is finite, in the metric's display unit.
	Threshold float64 `json:"threshold"`
}

// aliases maps the short metric names AIPerf's adaptive scale accepts to
// the summary's metric tags.
var aliases = map[string]string{
	"ttft": "time_to_first_token",
	"itl":  "inter_token_latency",
	"tpot": "inter_token_latency",
	"e2e":  "request_latency",
}

// Canonical returns the metric tag for a name: the tag an alias stands
// for, else the name itself.
func Canonical(metric string) string {
	if t, ok := aliases[metric]; ok {
		return t
	}
	return metric
}

// New builds a filter from its four parts and checks them all: a
// non-blank metric, a known statistic and operator, a finite threshold.
// Every problem is reported in one error.
func New(metric, stat, op string, threshold float64) (Filter, error) {
	var errs []error
	if strings.TrimSpace(metric) == "" {
		errs = append(errs, errors.New("metric tag must not be empty"))
	}
	if !slices.Contains(Stats(), stat) {
		errs = append(errs, fmt.Errorf("unknown stat %q (choose from %s)", stat, strings.Join(Stats(), ", ")))
	}
	if !slices.Contains(Ops(), Op(op)) {
		errs = append(errs, fmt.Errorf("unknown op %q (choose from lt, le, gt, ge)", op))
	}
	if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		errs = append(errs, fmt.Errorf("threshold must be finite, got %v", threshold))
	}
	if len(errs) > 0 {
		return Filter{}, errors.Join(errs...)
	}
	return Filter{Metric: Canonical(metric), Stat: stat, Op: Op(op), Threshold: threshold}, nil
}

// String is the --search-sla form, "metric:stat:op:threshold"; Parse
// reads it back to the same filter.
func (f Filter) String() string {
	return f.Metric + ":" + f.Stat + ":" + string(f.Op) + ":" + strconv.FormatFloat(f.Threshold, 'g', -1, 64)
}

// Key names the statistic a filter reads, "metric_stat", as the multi-run
// aggregates key their metrics (time_to_first_token_p95).
func (f Filter) Key() string { return f.Metric + "_" + f.Stat }

// Describe is the filter for people: "time_to_first_token p95 < 200".
func (f Filter) Describe() string {
	return f.Metric + " " + f.Stat + " " + f.Op.Symbol() + " " + strconv.FormatFloat(f.Threshold, 'g', -1, 64)
}

// Holds reports whether value passes the filter. NaN never passes.
func (f Filter) Holds(value float64) bool { return f.Op.Holds(value, f.Threshold) }

// Margin is the headroom of value relative to the threshold: positive
// while the filter passes with room to spare, 0 at the threshold,
// negative past it, scaled by |threshold| (0.5 = half the threshold
// left). It is AIPerf's normalised SLA margin, which sizes adaptive-scale
// steps; ok is false for a zero threshold or a NaN value, where no ratio
// exists.
func (f Filter) Margin(value float64) (margin float64, ok bool) {
	if f.Threshold == 0 || math.IsNaN(value) {
		return 0, false
	}
	if f.Op.upper() {
		return (f.Threshold - value) / math.Abs(f.Threshold), true
	}
	return (value - f.Threshold) / math.Abs(f.Threshold), true
}

// Tier is a named group of filters that must all pass: one service level
// of a multi-tier SLA search (--search-sla-tier).
type Tier struct {
	Label   string   `json:"label"`
	Filters []Filter `json:"filters"`
}
