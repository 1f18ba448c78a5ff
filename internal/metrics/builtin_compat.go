package metrics

import (
	"github.com/aiperf-go/aiperf/internal/metrics/sweep"
	"github.com/aiperf-go/aiperf/internal/record"
)

const tagCreditToStart = "credit_to_start_latency"

// compatMetrics are AIPerf 0.13 metrics added for drop-in output:
//
//   - credit_to_start_latency (ms): Record.Sent - Record.Due, clamped at 0,
//     for every record, the time a request waited between its credit and
//     its send (AIPerf derives it at summary time from credit_issued_ns and
//     request_start_ns). Summary only, console group NONE.
//   - usage_accepted_prediction_tokens, usage_rejected_prediction_tokens
//     and their totals: OpenAI's predicted-output accounting, when the
//     server reports it (Usage group).
//   - the 14 time-weighted sweep metrics of package sweep (effective_* and
//     active_* concurrency and throughputs, tokens_in_flight), KindSweep:
//     the Accumulator computes them over the phase window.
func compatMetrics() []*Metric {
	ms := []*Metric{
		{
			Tag: tagCreditToStart, Header: "Credit-to-Start Latency",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagNoIndividualRecord, Group: GroupNone, EveryRecord: true,
			record: func(c *recordContext) (float64, bool) {
				return float64(max(c.rec.Sent-c.rec.Due, 0)), true
			},
		},
		usageField("usage_accepted_prediction_tokens", "Usage Accepted Prediction Tokens", "Usage Accepted Pred", 1130,
			FlagProducesTokensOnly|FlagLargerIsBetter, func(u *record.Usage) record.Count { return u.AcceptedPredictionTokens }),
		usageField("usage_rejected_prediction_tokens", "Usage Rejected Prediction Tokens", "Usage Rejected Pred", 1140,
			FlagProducesTokensOnly, func(u *record.Usage) record.Count { return u.RejectedPredictionTokens }),
		sumOf("total_usage_accepted_prediction_tokens", "Total Usage Accepted Prediction Tokens", "Total Usage Accepted Pred",
			"usage_accepted_prediction_tokens", FlagProducesTokensOnly|FlagLargerIsBetter, GroupUsage, 2130),
		sumOf("total_usage_rejected_prediction_tokens", "Total Usage Rejected Prediction Tokens", "Total Usage Rejected Pred",
			"usage_rejected_prediction_tokens", FlagProducesTokensOnly, GroupUsage, 2140),
	}
	for i, s := range sweep.Metrics() {
		g := GroupEffective
		if s.Active {
			g = GroupActive
		}
		ms = append(ms, &Metric{
			Tag: s.Tag, Header: s.Header, Kind: KindSweep, Unit: Unit(s.Unit),
			Flags: FlagNoIndividualRecord, Group: g,
			// Before effective_latency (unordered) in the Effective table, in
			// AIPerf's order.
			Order: 3000 + i,
			sweep: i,
		})
	}
	return ms
}
