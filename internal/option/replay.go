package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// fixedScheduleOptions lists the options from --fixed-schedule on, in help order.
func fixedScheduleOptions() []Option {
	return []Option{
		{Name: "fixed-schedule",
			Group: GroupFixed,
			Usage: "Send each conversation's first turn at the timestamp the dataset gives it, replaying the trace's timing. Trace datasets with timestamps switch to it by themselves.",
			Bind:  func(c *config.Config) any { return &c.Replay.FixedSchedule }},
		{Name: "no-fixed-schedule",
			Group: GroupFixed,
			Usage: "Ignore the timestamps of a trace dataset and keep the selected load mode (concurrency or request rate) instead of replaying them.",
			Bind:  func(c *config.Config) any { return &c.Replay.NoFixedSchedule }},
		{Name: "fixed-schedule-auto-offset",
			Group: GroupFixed,
			Usage: "Shift the schedule so the first replayed timestamp is due at once; without it timestamps are offsets from the start of the run. Cannot be combined with --fixed-schedule-start-offset.",
			Bind:  func(c *config.Config) any { return &c.Replay.AutoOffset },
			Keys:  []Key{{Path: "benchmark.phases.profiling.auto_offset"}}},
		{Name: "fixed-schedule-start-offset",
			Group: GroupFixed,
			Meta:  "<ms>",
			Usage: "Replay only conversations whose first timestamp is at or after this many milliseconds; the schedule then starts at this offset.",
			Bind:  func(c *config.Config) any { return &c.Replay.StartOffset },
			Keys:  []Key{{Path: "benchmark.phases.profiling.start_offset", Doc: "fixed_schedule: first timestamp to replay, in ms."}}},
		{Name: "fixed-schedule-end-offset",
			Group:   GroupFixed,
			Meta:    "<ms>",
			Default: "the last timestamp",
			Usage:   "Replay only conversations whose first timestamp is at or before this many milliseconds.",
			Bind:    func(c *config.Config) any { return &c.Replay.EndOffset },
			Keys:    []Key{{Path: "benchmark.phases.profiling.end_offset"}}},
	}
}
