package metrics

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ValidateSLOs checks that every SLO names a metric in selected (AIPerf:
// "metric(s) ... are not applicable to the current endpoint/configuration").
//
// A tag that names no metric at all is reported as unknown, with the tag
// meant when it is a common short name (ttft, itl, tpot, e2e, ...).
func ValidateSLOs(slos map[string]float64, selected []*Metric) error {
	var missing, unknown []string
	for tag := range slos {
		if !slices.ContainsFunc(selected, func(m *Metric) bool { return m.Tag == tag }) {
			if _, known := Builtin().byTag[tag]; known {
				missing = append(missing, tag)
			} else {
				unknown = append(unknown, tag)
			}
		}
	}
	slices.Sort(missing)
	slices.Sort(unknown)
	var errs []error
	for _, tag := range unknown {
		if want, ok := sloAliases[strings.ToLower(tag)]; ok {
			errs = append(errs, fmt.Errorf("unknown metric %q, did you mean %s?", tag, want))
		} else {
			errs = append(errs, fmt.Errorf("unknown metric %q (metric tags look like time_to_first_token, inter_token_latency, request_latency)", tag))
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("metric(s) %s are not applicable to the current endpoint/configuration", strings.Join(missing, ", ")))
	}
	return errors.Join(errs...)
}

// sloAliases maps the short names users type to metric tags.
var sloAliases = map[string]string{
	"ttft": "time_to_first_token", "ttst": "time_to_second_token",
	"itl": "inter_token_latency", "tpot": "inter_token_latency",
	"e2e": "request_latency", "e2el": "request_latency", "latency": "request_latency",
	"isl": "input_sequence_length", "osl": "output_sequence_length",
	"throughput": "output_token_throughput_per_user",
}

// slo is one goodput threshold, converted to the metric's base unit.
type slo struct {
	metric    *Metric
	threshold float64
}

// passes applies the DistServe rule: at least the threshold for
// LARGER_IS_BETTER metrics, at most the threshold for the rest.
func (s slo) passes(v float64) bool {
	if s.metric.Flags.Has(FlagLargerIsBetter) {
		return v >= s.threshold
	}
	return v <= s.threshold
}

// compileSLOs resolves thresholds against the registry, in a stable order.
func compileSLOs(reg *Registry, slos map[string]float64) ([]slo, error) {
	tags := make([]string, 0, len(slos))
	for t := range slos {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	out := make([]slo, 0, len(tags))
	var errs []error
	for _, t := range tags {
		m, ok := reg.Lookup(t)
		if !ok {
			errs = append(errs, fmt.Errorf("goodput: unknown metric tag %q", t))
			continue
		}
		out = append(out, slo{metric: m, threshold: m.FromDisplay(slos[t])})
	}
	return out, errors.Join(errs...)
}

// Thresholds are the limits AIPerf reads from its environment for the
// discrepancy counters.
type Thresholds struct {
	// UsageDiffPct: a usage_*_diff_pct above it counts in
	// usage_discrepancy_count (AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD).
	UsageDiffPct float64
	// OSLMismatchPct and OSLMismatchMaxTokens: a record counts in
	// osl_mismatch_count when |OSL - requested| exceeds
	// min(requested * OSLMismatchPct / 100, OSLMismatchMaxTokens).
	OSLMismatchPct       float64
	OSLMismatchMaxTokens float64
}

// DefaultThresholds are AIPerf's defaults: 10 %, 5 % and 50 tokens.
func DefaultThresholds() Thresholds {
	return Thresholds{UsageDiffPct: 10, OSLMismatchPct: 5, OSLMismatchMaxTokens: 50}
}
