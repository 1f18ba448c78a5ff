package metrics

// ReplayDegradedThresholdMS is the send-lag p99, in ms, above which a
// fixed-schedule replay is flagged degraded (AIPerf's
// REPLAY_SCHED_DEGRADED_THRESHOLD_MS): the tail of the trace went out half a
// second or more late, so the offered arrival process was not reproduced.
const ReplayDegradedThresholdMS = 500.0

const tagReplayOffset = "replay_send_schedule_offset"

// replayMetrics are AIPerf's (0.12+) fixed-schedule fidelity metrics. They
// apply only to runs that replay a trace (FlagFixedScheduleOnly).
//
//   - replay_send_schedule_offset (ns, INTERNAL): Record.Sent - Record.Due
//     for every record whose Due is an absolute trace time
//     (Record.Scheduled: first turns, and later turns that carry their own
//     timestamp). Delay-driven continuation turns have no absolute schedule
//     and are left out, as in AIPerf.
//   - replay_sched_lag_p50/_p90/_p99 (ms): percentiles of that offset.
//   - replay_sched_degraded (0/1): 1 when the p99 exceeds
//     ReplayDegradedThresholdMS.
//
// One deliberate difference: AIPerf cannot relate its wall-clock send
// stamps to the schedule's zero, so it anchors the lag at the least-late
// request (offset - min(offset)). Here Due and Sent are on the same
// monotonic run clock, so the lag is the true send error, never smaller than
// AIPerf's anchored value (they differ by the least-late request's lag,
// microseconds on a healthy run). Like schedule_lag, failed records count:
// a send's punctuality does not depend on its outcome.
func replayMetrics() []*Metric {
	pct := func(tag, header, short string, pick func(*Stats) float64) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindDerived, Unit: UnitMS,
			Flags: FlagFixedScheduleOnly | FlagNoIndividualRecord, Group: GroupNone,
			Requires: []string{tagReplayOffset},
			derive: func(c *deriveContext) (float64, bool) {
				s, ok := c.stats(tagReplayOffset)
				if !ok {
					return 0, false
				}
				return pick(s), true // the offset's stats are already in ms
			},
		}
	}
	return []*Metric{
		{
			Tag: tagReplayOffset, Header: "Replay Send Schedule Offset", ShortHeader: "Sched Offset",
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagInternal | FlagFixedScheduleOnly, Group: GroupNone, EveryRecord: true,
			record: func(c *recordContext) (float64, bool) {
				if !c.rec.Scheduled {
					return 0, false
				}
				return float64(c.rec.Lag()), true
			},
		},
		pct("replay_sched_lag_p50", "Replay Schedule Lag p50", "Sched Lag p50", func(s *Stats) float64 { return s.P50 }),
		pct("replay_sched_lag_p90", "Replay Schedule Lag p90", "Sched Lag p90", func(s *Stats) float64 { return s.P90 }),
		pct("replay_sched_lag_p99", "Replay Schedule Lag p99", "Sched Lag p99", func(s *Stats) float64 { return s.P99 }),
		{
			Tag: "replay_sched_degraded", Header: "Replay Schedule Degraded", ShortHeader: "Sched Degraded",
			Kind: KindDerived, Unit: "count", Integer: true,
			Flags: FlagFixedScheduleOnly | FlagNoIndividualRecord, Group: GroupNone,
			Requires: []string{"replay_sched_lag_p99"},
			derive: func(c *deriveContext) (float64, bool) {
				p99, ok := c.value("replay_sched_lag_p99")
				if !ok {
					return 0, false
				}
				if p99 > ReplayDegradedThresholdMS {
					return 1, true
				}
				return 0, true
			},
		},
	}
}
