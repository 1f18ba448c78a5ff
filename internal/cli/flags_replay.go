package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addReplayFlags registers AIPerf's "Fixed Schedule" flags, bound to
// cfg.Replay.
func (b *flagBuilder) addReplayFlags(cfg *config.Config) {
	r := &cfg.Replay
	b.group = groupFixed
	b.add(&boolValue{recorder: b.rec("fixed-schedule"), p: &r.FixedSchedule}, spec{
		name:  "fixed-schedule",
		usage: "Send each conversation's first turn at the timestamp the dataset gives it, replaying the trace's timing. Trace datasets with timestamps switch to it by themselves.",
	})
	b.add(&boolValue{recorder: b.rec("no-fixed-schedule"), p: &r.NoFixedSchedule}, spec{
		name:  "no-fixed-schedule",
		usage: "Ignore the timestamps of a trace dataset and keep the selected load mode (concurrency or request rate) instead of replaying them.",
	})
	b.add(&boolValue{recorder: b.rec("fixed-schedule-auto-offset"), p: &r.AutoOffset}, spec{
		name:  "fixed-schedule-auto-offset",
		usage: "Shift the schedule so the first replayed timestamp is due at once; without it timestamps are offsets from the start of the run. Cannot be combined with --fixed-schedule-start-offset.",
	})
	b.add(&intPtrValue{recorder: b.rec("fixed-schedule-start-offset"), p: &r.StartOffset}, spec{
		name: "fixed-schedule-start-offset", meta: "<ms>",
		usage: "Replay only conversations whose first timestamp is at or after this many milliseconds; the schedule then starts at this offset.",
	})
	b.add(&intPtrValue{recorder: b.rec("fixed-schedule-end-offset"), p: &r.EndOffset}, spec{
		name: "fixed-schedule-end-offset", meta: "<ms>",
		def:   "the last timestamp",
		usage: "Replay only conversations whose first timestamp is at or before this many milliseconds.",
	})
}
