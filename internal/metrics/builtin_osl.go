package metrics

import "math"

// oslMismatchMetrics compare the output length with the max_tokens the
// request asked for, which exposes servers that ignore ignore_eos.
func oslMismatchMetrics() []*Metric {
	return []*Metric{
		{
			Tag: tagRequestedOSL, Header: "Requested OSL", ShortHeader: "Req OSL",
			Kind: KindRecord, Unit: UnitTokens, Integer: true,
			Flags: FlagProducesTokensOnly | FlagInternal, Group: GroupNone,
			record: func(c *recordContext) (float64, bool) {
				n := c.rec.RequestedOSL
				return float64(n), n > 0
			},
		},
		{
			// Signed: negative when the server stopped early.
			Tag: tagOSLMismatchDiff, Header: "OSL Mismatch Diff %", ShortHeader: "OSL Diff",
			Kind: KindRecord, Unit: UnitPercent,
			Flags: FlagProducesTokensOnly | FlagDisableOnAccuracy, Group: GroupNone,
			Requires: []string{tagRequestedOSL, tagOSL},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagRequestedOSL, tagOSL)
				if !ok || v[0] == 0 {
					return 0, false
				}
				return (v[1] - v[0]) / v[0] * 100, true
			},
		},
		{
			// 1 when |OSL - requested| > min(requested * pct/100, max tokens).
			Tag: "osl_mismatch_count", Header: "OSL Mismatch Count", ShortHeader: "OSL Mismatches",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags: FlagProducesTokensOnly | FlagNoIndividualRecord | FlagDisableOnAccuracy, Group: GroupNone,
			Requires: []string{tagOSLMismatchDiff, tagRequestedOSL, tagOSL},
			record: func(c *recordContext) (float64, bool) {
				v, ok := c.values(tagOSLMismatchDiff, tagRequestedOSL, tagOSL)
				if !ok {
					return 0, false
				}
				requested, actual := v[1], v[2]
				limit := math.Min(requested*c.thresholds.OSLMismatchPct/100, c.thresholds.OSLMismatchMaxTokens)
				if math.Abs(actual-requested) > limit {
					// No log line per request: the run's console note says it
					// once, with the count (a run of 2,000 mismatched requests
					// printed 2,000 warnings).
					return 1, true
				}
				return 0, true
			},
		},
	}
}
