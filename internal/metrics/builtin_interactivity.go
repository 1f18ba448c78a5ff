package metrics

import "math"

// tagE2ESecondsPerToken is the per-request sample the E2E normalized
// interactivity percentiles are taken over.
const tagE2ESecondsPerToken = "e2e_seconds_per_output_token"

// interactivityMetrics are AIPerf 0.14's E2E normalized interactivity
// family (the InferenceX / AgentX Pareto x-axis): the rate at which a user
// receives output tokens including the prefill wait,
//
//	e2e_normalized_interactivity_pXX = 1 / pXX(request_latency_s / OSL)
//
// The percentile is taken over the seconds-per-token ratio and then
// inverted, never over the per-request rate: 1/p(x) != p(1/x), and the
// inverted ratio names the slow tail (p90 is the effective rate of the
// 90th-percentile slowest request), which is what InferenceX stores. The
// percentile is numpy-linear over every sample (package stats), so the value
// is the one numpy gives for the same requests.
//
// A request is a sample when its latency and OSL are positive and finite,
// and, where the run measures them, its TTFT and ISL are too (InferenceX's
// "all four fields > 0" filter). AIPerf applies the TTFT and ISL filter when
// the run has those columns at all; here it applies to each request that
// has the value, which is the same set: a valid streaming request with
// output always has a TTFT, and every request of a run that counts input
// tokens has an ISL.
//
// TTFT and ISL gate the sample without being dependencies (a dependency
// would pull TTFT into non-streaming runs): they come earlier in
// BuiltinMetrics, so the registry computes them first on every record, and
// TestInteractivityGatesFollowTheirInputs holds that order.
//
// The sample itself is an internal record metric (hidden from every
// export); the two percentiles are derived, run-level scalars with no
// console table (AIPerf's console group NONE), exported to JSON and CSV.
func interactivityMetrics() []*Metric {
	pct := func(tag, header, short string, pick func(*Stats) float64) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindDerived, Unit: UnitTokensPerSecUser,
			Flags: FlagProducesTokensOnly | FlagLargerIsBetter | FlagNoIndividualRecord, Group: GroupNone,
			Requires: []string{tagE2ESecondsPerToken},
			derive: func(c *deriveContext) (float64, bool) {
				s, ok := c.stats(tagE2ESecondsPerToken)
				if !ok {
					return 0, false
				}
				r := pick(s)
				if !(r > 0) {
					return 0, false
				}
				v := 1 / r
				return v, !math.IsInf(v, 0) // a subnormal ratio overflows
			},
		}
	}
	return []*Metric{
		{
			Tag: tagE2ESecondsPerToken, Header: "E2E Seconds Per Output Token", ShortHeader: "E2E s/Token",
			Kind: KindRecord, Unit: "sec/token",
			Flags: FlagProducesTokensOnly | FlagInternal, Group: GroupNone,
			Requires: []string{tagRequestLatency, tagOSL},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagRequestLatency, tagOSL)
				if !ok || !positive(v[0]) || !positive(v[1]) {
					return 0, false
				}
				for _, gate := range [...]string{tagTTFT, tagISL} {
					if g, ok := c.value(gate); ok && !positive(g) {
						return 0, false
					}
				}
				r := seconds(v[0]) / v[1]
				return r, positive(r)
			},
		},
		pct("e2e_normalized_interactivity_p75", "E2E Normalized Interactivity p75", "E2E Norm Intvty p75",
			func(s *Stats) float64 { return s.P75 }),
		pct("e2e_normalized_interactivity_p90", "E2E Normalized Interactivity p90", "E2E Norm Intvty p90",
			func(s *Stats) float64 { return s.P90 }),
	}
}

// positive reports whether v is finite and greater than zero.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }
