package metrics

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ValidateSLOs checks that every SLO names a metric in selected (AIPerf:
// "metric(s) ... are not applicable to the current endpoint/configuration").
func ValidateSLOs(slos map[string]float64, selected []*Metric) error {
	var missing []string
	for tag := range slos {
		if !slices.ContainsFunc(selected, func(m *Metric) bool { return m.Tag == tag }) {
			missing = append(missing, tag)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("invalid --goodput: metric(s) %s are not applicable to the current endpoint/configuration",
		strings.Join(missing, ", "))
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
