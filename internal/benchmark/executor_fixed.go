package benchmark

import (
	"errors"
	"fmt"
	"time"

	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
)

// fixedExecutor replays a fixed schedule: the profiling phase of a dataset
// with first-turn timestamps (a trace, or --fixed-schedule) sends each
// conversation at its timestamp, in the order planSessions put them. The
// warmup keeps the load mode.
type fixedExecutor struct{}

func (fixedExecutor) applies(p *Plan, spec *PhaseSpec) bool {
	return p.Sessions.Fixed && spec.Phase == record.Profiling
}

func (fixedExecutor) shape(r *phaseRunner, spec *PhaseSpec, _ uint64, l *phaseLoad) error {
	entries := r.plan.Sessions.Replay
	arr, err := timing.Fixed(timing.Dues(entries))
	if err != nil {
		return phaseErr(spec, "schedule", err)
	}
	next := 0
	l.arrivals, l.fixed = arr, true
	// Replay fidelity is the point of this mode: wake within microseconds
	// of each timestamp rather than the timer's millisecond.
	l.sleeper = &timing.Precise{}
	l.pick = func() int {
		i := entries[next%len(entries)].Index
		next++
		return i
	}
	return nil
}

// planFixedSchedule switches the profiling phase to the fixed schedule
// when the run replays timestamps (planSessions says when); anyTS and all
// say whether some and every conversation has a first-turn timestamp.
func (p *Plan) planFixedSchedule(anyTS, all bool) error {
	cfg := p.Config
	ds := p.Dataset
	r := &cfg.Replay
	if !cfg.FixedScheduleWanted(anyTS) {
		if r.AutoOffset || r.StartOffset != nil || r.EndOffset != nil {
			return usageError(errors.New("--fixed-schedule-auto-offset, --fixed-schedule-start-offset and --fixed-schedule-end-offset need a fixed schedule, and the dataset has no timestamps to replay"))
		}
		return nil
	}
	p.replaySpeedup()
	p.traceIdleGapCap()
	if !all {
		return usageError(fmt.Errorf("--fixed-schedule: every conversation needs a timestamp on its first turn; %s", firstUntimed(ds)))
	}
	ts := make([]time.Duration, ds.Len())
	for i := range ts {
		_, ts[i], _ = ds.FirstTurn(i)
	}
	w := timing.ReplayWindow{AutoOffset: r.AutoOffset}
	if r.StartOffset != nil {
		w.Start, w.HasStart = time.Duration(*r.StartOffset)*time.Millisecond, true
	}
	if r.EndOffset != nil {
		w.End, w.HasEnd = time.Duration(*r.EndOffset)*time.Millisecond, true
	}
	entries, err := timing.Replay(ts, w)
	if err != nil {
		return usageError(fmt.Errorf("fixed schedule: %w", err))
	}
	p.Sessions.Fixed, p.Sessions.Replay = true, entries

	s := &p.Profiling
	s.Count = 0
	if cfg.Load.RequestCount != nil {
		s.Count = *cfg.Load.RequestCount
	}
	if s.Sessions == 0 || s.Sessions > len(entries) {
		s.Sessions = len(entries)
	}
	s.Concurrency = 0
	if cfg.Load.Concurrency != nil {
		s.Concurrency = *cfg.Load.Concurrency
	}
	s.Rate = 0
	p.selectFixedScheduleMetrics()
	return nil
}

// firstUntimed names the first conversation without a first-turn timestamp.
func firstUntimed(ds *dataset.Dataset) string {
	for i := range ds.Len() {
		if _, _, has := ds.FirstTurn(i); !has {
			return fmt.Sprintf("conversation %d (%s) has none", i, ds.Conversation(i).ID)
		}
	}
	return "the dataset is empty"
}

// selectFixedScheduleMetrics adds the FIXED_SCHEDULE_ONLY metrics to the
// run's selection, which NewPlan made before the dataset could say whether
// it replays a trace. They depend only on each other, so appending them in
// registry (dependency) order keeps the selection ordered.
func (p *Plan) selectFixedScheduleMetrics() {
	have := make(map[*metrics.Metric]bool, len(p.Metrics))
	for _, m := range p.Metrics {
		have[m] = true
	}
	for _, m := range p.Registry.Metrics() {
		if m.Flags.Has(metrics.FlagFixedScheduleOnly) && !have[m] {
			p.Metrics = append(p.Metrics, m)
		}
	}
}
