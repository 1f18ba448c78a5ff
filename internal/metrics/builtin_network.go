package metrics

import "github.com/aiperf-go/aiperf/internal/metrics/stats"

// tagNetworkRTT is the run's mean network round trip, the value the
// network_adjusted_* metrics subtract.
const tagNetworkRTT = "network_rtt"

// networkMetrics are AIPerf 0.13's network latency calibration metrics
// (--network-latency-automatic, --network-latency-mean). The round trip is
// a run-level figure known only at the end, so none is computed per
// record: Summarize shifts the columns of the request-start-anchored
// latencies (request_latency, time_to_first_token,
// time_to_first_output_token) by it, each value clamped at 0, and reports
// the shifted distributions beside the raw ones, plus network_rtt itself.
// Inter-token and inter-chunk latencies are not adjusted: the round trip
// cancels in their differences. Without a round trip (SetNetworkRTT not
// called, or 0) none of these metrics appears.
func networkMetrics() []*Metric {
	adj := func(tag, header, short, source string, order int, flags Flags) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindDerived, Unit: UnitNS, DisplayUnit: UnitMS, Flags: flags, Order: order,
			adjusts: source,
			derive:  func(*deriveContext) (float64, bool) { return 0, false },
		}
	}
	return []*Metric{
		adj("network_adjusted_time_to_first_token", "Network-Adjusted Time to First Token", "Net-Adj TTFT",
			tagTTFT, 101, FlagStreamingTokensOnly),
		adj("network_adjusted_time_to_first_output_token", "Network-Adjusted Time to First Output Token", "Net-Adj TTFO",
			tagTTFO, 211, FlagStreamingTokensOnly|FlagSupportsReasoning),
		adj("network_adjusted_request_latency", "Network-Adjusted Request Latency", "Net-Adj Req Latency",
			tagRequestLatency, 301, FlagNone),
		{
			Tag: tagNetworkRTT, Header: "Network RTT", ShortHeader: "Net RTT",
			Kind: KindDerived, Unit: UnitNS, DisplayUnit: UnitMS, Flags: FlagNoIndividualRecord, Order: 305,
			derive: func(*deriveContext) (float64, bool) { return 0, false },
		},
	}
}

// SetNetworkRTT sets the mean network round trip, in ns, that Summarize
// subtracts for the network_adjusted_* metrics; 0 (the default) reports
// none of them, as AIPerf skips an adjustment that would change nothing.
func (a *Accumulator) SetNetworkRTT(ns float64) { a.rtt = max(ns, 0) }

// networkResult computes m, a network calibration metric, when a round
// trip is set: the shifted distribution of its source column, or for
// network_rtt the round trip as a one-value distribution.
func (a *Accumulator) networkResult(m *Metric) (*Stats, bool) {
	if a.rtt <= 0 {
		return nil, false
	}
	if m.Tag == tagNetworkRTT {
		v := m.ToDisplay(a.rtt)
		return &Stats{Avg: v, Min: v, Max: v, Sum: v, P1: v, P5: v, P10: v, P25: v, P50: v,
			P75: v, P90: v, P95: v, P99: v, Count: 1}, true
	}
	src, ok := a.reg.byTag[m.adjusts]
	if !ok || !a.selected[src.idx] || a.sketches[src.idx] != nil || len(a.cols[src.idx]) == 0 {
		return nil, false
	}
	shift := src.ToDisplay(a.rtt) // the column holds display units
	col := make([]float64, len(a.cols[src.idx]))
	for i, v := range a.cols[src.idx] {
		col[i] = max(v-shift, 0)
	}
	s := toStats(stats.Summarize(col))
	return &s, true
}
