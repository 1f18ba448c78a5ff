package metrics

import "time"

// LateThreshold is how far behind schedule a request may be sent before it
// counts in late_request_count.
const LateThreshold = time.Millisecond

// lagMetrics are this port's own metrics (AIPerf has no equivalent in its
// default output): they make client-side lateness visible, so a run whose
// load generator could not keep up is recognisable from its results alone.
//
//   - schedule_lag ("Schedule Lag", ms): Record.Sent - Record.Due for every
//     profiling record, failed ones included, because a late send distorts
//     the offered load whatever the outcome. Shown in the main table.
//   - late_request_count ("Late Requests (>1 ms)", requests): how many
//     records had a schedule lag above LateThreshold. Aggregate only.
//
// effective_latency is AIPerf's (0.12+): End - Due, the latency measured
// from when the request was due rather than when it left, so time spent
// waiting behind a saturated client or a full concurrency gate counts
// (coordinated-omission aware). Like AIPerf it covers every record, failed
// ones included, is clamped at 0, is summary-only (not in the per-record
// export) and is shown in the "Effective" console table.
func lagMetrics() []*Metric {
	return []*Metric{
		{
			// Ours: streamed responses that ended with neither [DONE] nor a
			// finish_reason (counted good unless --strict-streams).
			Tag: "stream_incomplete_count", Header: "Incomplete Streams", ShortHeader: "Incomplete",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags: FlagStreamingOnly | FlagNoIndividualRecord, Group: GroupNone, Order: 1220,
			record: func(c *recordContext) (float64, bool) {
				if c.rec.StreamIncomplete {
					return 1, true
				}
				return 0, true
			},
		},
		{
			Tag: tagEffectiveLatency, Header: "Effective Latency (CO-aware)",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagNoIndividualRecord, Group: GroupEffective, EveryRecord: true,
			record: func(c *recordContext) (float64, bool) {
				return float64(max(c.rec.End-c.rec.Due, 0)), true
			},
		},
		{
			Tag: tagScheduleLag, Header: "Schedule Lag",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Order: 1200, EveryRecord: true,
			record: func(c *recordContext) (float64, bool) {
				return float64(c.rec.Lag()), true
			},
		},
		{
			Tag: "late_request_count", Header: "Late Requests (>1 ms)",
			Kind: KindAggregate, Agg: AggSum, Unit: UnitRequests, Integer: true,
			Flags: FlagNoIndividualRecord, Order: 1210, EveryRecord: true,
			Requires: []string{tagScheduleLag},
			record: func(c *recordContext) (float64, bool) {
				lag, ok := c.value(tagScheduleLag)
				if !ok {
					return 0, false
				}
				if lag > float64(LateThreshold) {
					return 1, true
				}
				return 0, true
			},
		},
	}
}
