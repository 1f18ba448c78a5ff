package config

// Replay is fixed-schedule trace replay (AIPerf's "Fixed Schedule" group):
// each conversation's first turn is sent at its trace timestamp instead of
// on a rate or concurrency schedule.
//
// A dataset whose turns carry timestamps switches to fixed schedule by
// itself unless NoFixedSchedule is set; FixedSchedule forces it. Offsets are
// trace times in milliseconds; nil means "not given".
type Replay struct {
	// FixedSchedule (--fixed-schedule) replays the dataset's timestamps.
	FixedSchedule bool `json:"fixed_schedule,omitempty"`
	// NoFixedSchedule (--no-fixed-schedule) keeps the selected load mode
	// for a dataset with timestamps, ignoring them.
	NoFixedSchedule bool `json:"disable_auto_fixed_schedule,omitempty"`
	// AutoOffset (--fixed-schedule-auto-offset) shifts the schedule so the
	// first kept timestamp is due at the start of the run.
	AutoOffset bool `json:"fixed_schedule_auto_offset,omitempty"`
	// StartOffset and EndOffset (ms, inclusive) keep only the conversations
	// whose first timestamp lies in [StartOffset, EndOffset]. Without
	// AutoOffset, StartOffset is also the schedule's zero.
	StartOffset *int `json:"fixed_schedule_start_offset,omitempty"`
	EndOffset   *int `json:"fixed_schedule_end_offset,omitempty"`
}

// FixedScheduleWanted reports whether the run replays timestamps given a
// dataset that has them (hasTimestamps): always with --fixed-schedule,
// automatically for a timestamped dataset unless --no-fixed-schedule.
func (c *Config) FixedScheduleWanted(hasTimestamps bool) bool {
	r := &c.Replay
	return r.FixedSchedule || (hasTimestamps && !r.NoFixedSchedule)
}

// validateReplay checks the fixed-schedule options and their cross-flag
// rules, as AIPerf: offsets are >= 0, start <= end, auto-offset and a start
// offset are exclusive, --fixed-schedule and --no-fixed-schedule are
// exclusive, the window flags need a fixed schedule (--fixed-schedule or an
// --input-file that may carry timestamps), and a fixed schedule takes no
// --dataset-sampling-strategy (the trace is replayed in timestamp order). A
// --request-rate given with it is ignored, as AIPerf's mode priority does.
func (c *Config) validateReplay(p *problems) {
	r := &c.Replay
	if r.StartOffset != nil && *r.StartOffset < 0 {
		p.add("--fixed-schedule-start-offset", "must be >= 0 ms, got %d", *r.StartOffset)
	}
	if r.EndOffset != nil && *r.EndOffset < 0 {
		p.add("--fixed-schedule-end-offset", "must be >= 0 ms, got %d", *r.EndOffset)
	}
	if r.StartOffset != nil && r.EndOffset != nil && *r.StartOffset > *r.EndOffset {
		p.add("--fixed-schedule-start-offset", "must be <= --fixed-schedule-end-offset (%d > %d)", *r.StartOffset, *r.EndOffset)
	}
	if r.AutoOffset && r.StartOffset != nil {
		p.add("--fixed-schedule-auto-offset", "cannot be combined with --fixed-schedule-start-offset")
	}
	if r.FixedSchedule && r.NoFixedSchedule {
		p.add("--no-fixed-schedule", "cannot be combined with --fixed-schedule")
	}
	windowFlags := []struct {
		set  bool
		flag string
	}{
		{r.AutoOffset, "--fixed-schedule-auto-offset"},
		{r.StartOffset != nil, "--fixed-schedule-start-offset"},
		{r.EndOffset != nil, "--fixed-schedule-end-offset"},
	}
	for _, w := range windowFlags {
		switch {
		case !w.set:
		case r.NoFixedSchedule:
			p.add(w.flag, "has no effect with --no-fixed-schedule")
		case !r.FixedSchedule && !c.Dataset.HasFile():
			p.add(w.flag, "requires a fixed schedule: --fixed-schedule, or an --input-file trace with timestamps")
		}
	}
	if r.FixedSchedule {
		// A fixed schedule replays the trace in timestamp order: sequential
		// sampling (what it does) may be named, others not, as in AIPerf.
		if s := c.Dataset.SamplingStrategy; s != "" && s != SamplingSequential {
			p.add("--dataset-sampling-strategy", "%s cannot be combined with --fixed-schedule, which replays the trace in timestamp order (sequential)", s)
		}
	}
}
