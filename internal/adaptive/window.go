// Package adaptive is the adaptive-scale controller of a phase (AIPerf
// 0.12+ adaptive_scale): every assessment period it reads one window of
// finished requests, evaluates the SLA filters (internal/sla) on it, and
// decides the next value of one control variable - concurrency, prefill
// concurrency or request rate: raise it while windows pass, and at the
// first failing window go back to the last passing value (the boundary)
// and hold it for the sustain duration.
//
// The controller is a pure state machine, Controller.Assess(window, now),
// table-tested without clocks; the loop that ticks it, feeds it records
// and applies its decisions lives in the run (internal/benchmark). Its
// events and summary use AIPerf's keys (adaptive_scale_events.jsonl,
// adaptive_scale_summary.json).
package adaptive

import (
	"math"
	"slices"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/sla"
)

// Sample is one successful request of a window, in display units.
type Sample struct {
	LatencyMs float64
	// TTFTMs and ITLMs are NaN when the request had no such value; OSL is
	// -1 when unknown.
	TTFTMs, ITLMs float64
	OSL           int
}

// Window is what finished during one assessment period.
type Window struct {
	Samples   []Sample
	Errors    int     // failed requests (not cancelled)
	Cancelled int     // cancelled requests
	Elapsed   float64 // seconds the window spans
	// StartNs and EndNs are the window's wall-clock bounds (Unix ns).
	StartNs, EndNs int64
}

// Total is every finished request of the window.
func (w *Window) Total() int { return len(w.Samples) + w.Errors + w.Cancelled }

// Throughput is successful requests per second.
func (w *Window) Throughput() float64 {
	if w.Elapsed <= 0 {
		return 0
	}
	return float64(len(w.Samples)) / w.Elapsed
}

// latencies lists one latency of the successful requests, leaving out
// NaN.
func (w *Window) latencies(of func(Sample) float64) []float64 {
	out := make([]float64, 0, len(w.Samples))
	for _, s := range w.Samples {
		if v := of(s); !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// percentile is the linearly interpolated percentile of sorted values
// (numpy's "linear"), as AIPerf's adaptive scale computes it.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return stats.Percentile(sorted, p)
}

// latencyStat is stat of sorted values: avg, min, max or pN; NaN when it
// has none.
func latencyStat(sorted []float64, stat string) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	switch stat {
	case "avg":
		sum := 0.0
		for _, v := range sorted {
			sum += v
		}
		return sum / float64(len(sorted))
	case "min":
		return sorted[0]
	case "max":
		return sorted[len(sorted)-1]
	}
	if len(stat) > 1 && stat[0] == 'p' {
		if p, err := strconv.ParseFloat(stat[1:], 64); err == nil {
			return percentile(sorted, p)
		}
	}
	return math.NaN()
}

// windowSource evaluates filters against one window, with AIPerf's
// adaptive-scale metric set: the request latencies by any statistic,
// and window rates (throughput, goodput, success, error and cancellation
// rates) whose avg, min and max are the window's value.
type windowSource struct {
	w       *Window
	filters []sla.Filter
}

var _ sla.Source = windowSource{}

// Value implements sla.Source. A TTFT or ITL statistic over a window
// without such values is +Inf (it fails), as in AIPerf.
func (s windowSource) Value(metric, stat string) (float64, bool) {
	w := s.w
	switch metric {
	case "request_latency":
		v := latencyStat(w.latencies(func(x Sample) float64 { return x.LatencyMs }), stat)
		return v, !math.IsNaN(v)
	case "time_to_first_token", "inter_token_latency":
		of := func(x Sample) float64 { return x.TTFTMs }
		if metric == "inter_token_latency" {
			of = func(x Sample) float64 { return x.ITLMs }
		}
		vals := w.latencies(of)
		if len(vals) == 0 {
			return math.Inf(1), true
		}
		v := latencyStat(vals, stat)
		return v, !math.IsNaN(v)
	}
	if stat != "avg" && stat != "min" && stat != "max" {
		return 0, false
	}
	total := float64(w.Total())
	switch metric {
	case "throughput", "request_throughput", "completed_request_throughput":
		return w.Throughput(), true
	case "output_token_throughput":
		if w.Elapsed <= 0 {
			return 0, true
		}
		sum := 0
		for _, x := range w.Samples {
			sum += max(0, x.OSL)
		}
		return float64(sum) / w.Elapsed, true
	case "goodput", "goodput_ratio":
		good := float64(s.good())
		if metric == "goodput" {
			if w.Elapsed <= 0 {
				return 0, true
			}
			return good / w.Elapsed, true
		}
		if total == 0 {
			return 0, true
		}
		return good / total, true
	case "success_rate", "request_success_rate":
		if total == 0 {
			return 0, true
		}
		return float64(len(w.Samples)) / total, true
	case "error_rate", "request_error_rate":
		done := len(w.Samples) + w.Errors
		if done == 0 {
			return 0, true
		}
		return 100 * float64(w.Errors) / float64(done), true
	case "cancellation_rate", "request_cancellation_rate":
		if total == 0 {
			return 0, true
		}
		return float64(w.Cancelled) / total, true
	}
	return 0, false
}

// good counts the successful requests that meet every latency filter
// (the quality filters of goodput).
func (s windowSource) good() int {
	n := 0
	for _, x := range s.w.Samples {
		ok := true
		for _, f := range s.filters {
			var v float64
			switch f.Metric {
			case "request_latency":
				v = x.LatencyMs
			case "time_to_first_token":
				v = x.TTFTMs
			case "inter_token_latency":
				v = x.ITLMs
			default:
				continue
			}
			if math.IsNaN(v) || !f.Holds(v) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// zeroSuccessMetrics can decide a window without any successful request.
var zeroSuccessMetrics = []string{"error_rate", "request_error_rate", "cancellation_rate", "request_cancellation_rate"}

// decidableWithoutSuccesses reports whether filters can judge a window
// with failures but no successes: every filter is an error or
// cancellation rate, and each kind of failure seen has its filter.
func decidableWithoutSuccesses(filters []sla.Filter, w *Window) bool {
	hasErr, hasCancel := false, false
	for _, f := range filters {
		if !slices.Contains(zeroSuccessMetrics, f.Metric) {
			return false
		}
		switch f.Metric {
		case "error_rate", "request_error_rate":
			hasErr = true
		default:
			hasCancel = true
		}
	}
	if w.Errors > 0 && w.Cancelled > 0 {
		return false
	}
	return !(w.Errors > 0 && !hasErr) && !(w.Cancelled > 0 && !hasCancel)
}

// Supported reports whether adaptive scale can evaluate filter f: the
// metric is one it measures per window, with a statistic that metric has.
func Supported(f sla.Filter) bool {
	switch f.Metric {
	case "request_latency", "time_to_first_token", "inter_token_latency":
		return true
	case "throughput", "request_throughput", "completed_request_throughput", "output_token_throughput",
		"goodput", "goodput_ratio", "success_rate", "request_success_rate",
		"error_rate", "request_error_rate", "cancellation_rate", "request_cancellation_rate":
		return f.Stat == "avg" || f.Stat == "min" || f.Stat == "max"
	}
	return false
}
