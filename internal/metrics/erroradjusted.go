package metrics

import (
	"cmp"
	"slices"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// AIPerf 0.13 reports, beside each latency flagged
// FlagPercentileIncludesFailed (time_to_first_token, request_latency,
// decode_duration, inter_token_latency), an adj_<tag> distribution in which
// every failed request of the phase counts as a latency that never ended
// (+Inf). A p99 over successes alone hides a 5 % failure rate; the adjusted
// p99 is +Inf as soon as more than 1 % of the requests failed. The metric
// appears only when the phase has a failed request and the source has a
// value, as in AIPerf.
//
// These results are the one place a +Inf is a value rather than a missing
// one: Summary.ErrorAdjusted keeps them apart from Summary.Results, whose
// numbers are all finite, so that only the exporters that write them in
// AIPerf's way (JSON null, "inf" in the CSV and on the console) see them.

// errorAdjustedMetrics defines the adj_* metric of each record metric of
// order flagged FlagPercentileIncludesFailed, keyed by the source's index.
// They are not registered (AIPerf 0.13 does not register them either): no
// record computes them and no metric depends on them.
func errorAdjustedMetrics(order []*Metric) map[int]*Metric {
	out := map[int]*Metric{}
	for _, m := range order {
		if m.Kind != KindRecord || m.List || !m.Flags.Has(FlagPercentileIncludesFailed) {
			continue
		}
		short := m.ShortHeader
		if short == "" {
			short = m.Header
		}
		out[m.idx] = &Metric{
			Tag:         "adj_" + m.Tag,
			Header:      m.Header + " (error-adjusted)",
			ShortHeader: "Adj " + short,
			Kind:        KindDerived,
			Unit:        m.Unit,
			DisplayUnit: m.DisplayUnit,
			Flags:       m.Flags&^FlagPercentileIncludesFailed | FlagNoIndividualRecord,
			Group:       GroupDefault,
			inflates:    m.Tag,
			idx:         -1,
		}
	}
	return out
}

// failedCount is the number of the phase's records that failed.
func (a *Accumulator) failedCount() int {
	n := 0
	for _, c := range a.errs {
		n += c
	}
	return n
}

// errorAdjustedResults computes the adj_* distributions of the phase: for
// each source in the phase's results (reported reports whether it is),
// its values plus one +Inf per failed record (stats.SummarizeUnbounded), in
// the sources' display order. None without a failed record. A source left
// out of the results (no value, or values that are not finite) has none.
func (a *Accumulator) errorAdjustedResults(reported func(*Metric) bool) []Result {
	failed := a.failedCount()
	if failed == 0 {
		return nil
	}
	var out []Result
	for _, src := range a.metrics {
		adj, ok := a.reg.adjusted[src.idx]
		if !ok || !reported(src) || a.sketches[src.idx] != nil || len(a.cols[src.idx]) == 0 {
			continue
		}
		s := toStats(stats.SummarizeUnbounded(slices.Clone(a.cols[src.idx]), failed))
		out = append(out, Result{Metric: adj, Stats: &s})
	}
	slices.SortStableFunc(out, func(x, y Result) int {
		return cmp.Compare(a.reg.byTag[x.Metric.inflates].Order, a.reg.byTag[y.Metric.inflates].Order)
	})
	return out
}
