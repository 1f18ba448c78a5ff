package benchmark

import (
	"fmt"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Record sinks: every consumer of a finished record - the progress
// counters, the accumulators, the timeslicer, the failure guard, the
// adaptive controller, the per-request files, the accuracy grader, the
// record observers - is one sink in the pipeline's list. The consumer
// goroutine hands each record to every sink that takes its phase, in list
// order, and is the only caller of every sink, so sinks need no locks of
// their own.
//
// One error rule for all of them: the first error a sink returns while
// fed is logged once and kept; the run goes on, and later records are
// still summarised. At teardown every sink that holds something open is
// finished, in list order, and the run's write error is the first error
// of those, else the first error while fed.

// sink is one consumer of finished records.
type sink struct {
	phases phaseSet
	// consume takes one processed record, already scrubbed of the run's
	// secrets. It copies what it keeps: once every sink has had the
	// record, its Values array goes back to the processor
	// (metrics.Processed.Release).
	consume func(p *metrics.Processed) error
	// finish runs once after the last record; nil when the sink holds
	// nothing open.
	finish func() error
}

// phaseSet is the phases whose records a sink takes, a bit per
// record.Phase.
type phaseSet uint8

const (
	profilingRecords phaseSet = 1 << record.Profiling
	warmupRecords    phaseSet = 1 << record.Warmup
	allRecords                = profilingRecords | warmupRecords
)

func (s phaseSet) takes(ph record.Phase) bool { return s&(1<<ph) != 0 }

// fold is a sink that cannot fail: an accumulator or a counter.
func fold(phases phaseSet, f func(*metrics.Processed)) sink {
	return sink{phases: phases, consume: func(p *metrics.Processed) error { f(p); return nil }}
}

// runSinks lists the run's sinks in the order they see each record. The
// failure guard comes first among the profiling sinks: it may stop the
// run. The per-request files carry warmup records too, marked by their
// benchmark_phase, as AIPerf 0.13 writes them.
func (pl *pipeline) runSinks(files []sink, observers []live.RecordObserver) []sink {
	sinks := []sink{
		fold(allRecords, pl.count),
		fold(allRecords, pl.live.observe),
		fold(allRecords, pl.addToPhase),
	}
	if pl.guard != nil {
		sinks = append(sinks, fold(profilingRecords, func(p *metrics.Processed) { pl.guard.observeRecord(p.Record) }))
	}
	if pl.saturation != nil {
		sinks = append(sinks, fold(profilingRecords, pl.saturation.observe))
	}
	sinks = append(sinks,
		fold(profilingRecords, pl.observeAdaptive),
		fold(profilingRecords, func(p *metrics.Processed) { pl.sends.Observe(p.Record) }),
		fold(profilingRecords, pl.sources.observe),
		fold(profilingRecords, pl.acc.Add),
	)
	if pl.slices != nil {
		sinks = append(sinks, fold(profilingRecords, pl.slices.add))
	}
	if pl.warm != nil {
		sinks = append(sinks, fold(warmupRecords, pl.warm.Add))
	}
	sinks = append(sinks, files...)
	if len(observers) > 0 {
		sinks = append(sinks, fold(allRecords, func(p *metrics.Processed) { observeRecord(observers, p) }))
	}
	return sinks
}

// count moves the progress counters of the record's phase.
func (pl *pipeline) count(p *metrics.Processed) {
	rec := p.Record
	c := &pl.counts[rec.Phase]
	if rec.Cancelled { // before done and errors: see publisher.progress
		c.cancelled.Add(1)
	}
	c.done.Add(1)
	if rec.Error != nil && !rec.CancelledAtPhaseEnd() { // cut off at the phase's end: no error, as in AIPerf
		c.errors.Add(1)
	}
	if lag := rec.Lag(); lag > metrics.LateThreshold {
		c.late.Add(1)
	}
	if lag := int64(rec.Lag()); lag > c.maxLag.Load() {
		c.maxLag.Store(lag)
	}
}

// observeAdaptive feeds the adaptive-scale controller of the phase
// running, if any.
func (pl *pipeline) observeAdaptive(p *metrics.Processed) {
	if a := pl.adaptive.Load(); a != nil {
		a.observe(p)
	}
}

// openRecordFiles opens every per-request artifact the run writes (the
// entries of artifacts with open), before any record flows: files every
// record (or every profiling record) is streamed to as it finishes. An
// error is the exit code 1 of an artifact that cannot be written.
func (pl *pipeline) openRecordFiles(p *Plan, o export.LineOptions) ([]sink, error) {
	var sinks []sink
	for _, f := range artifacts {
		if f.open == nil {
			continue
		}
		s, ok, err := f.open(pl, p, o)
		if err != nil {
			return nil, &config.ExitError{Code: config.ExitFailure, Err: err}
		}
		if ok {
			sinks = append(sinks, s)
		}
	}
	return sinks, nil
}

// openRecordsFile: profile_export.jsonl, unless the export level writes
// no records.
func openRecordsFile(_ *pipeline, p *Plan, o export.LineOptions) (sink, bool, error) {
	if !p.Paths.WritesRecords() {
		return sink{}, false, nil
	}
	w, err := export.NewRecordWriter(p.Paths.JSONL, o)
	if err != nil {
		return sink{}, false, err
	}
	return sink{phases: allRecords, consume: w.Write, finish: w.Close}, true, nil
}

// openRawFile: the raw records with their request bodies (--export-level
// raw), scrubbed of the run's secrets.
func openRawFile(pl *pipeline, p *Plan, o export.LineOptions) (sink, bool, error) {
	if !p.Paths.WritesRaw() {
		return sink{}, false, nil
	}
	w, err := export.NewRawWriter(p.Paths.RawJSONL, o)
	if err != nil {
		return sink{}, false, err
	}
	payload := payloadLookup(p)
	return sink{
		phases:  allRecords,
		consume: func(r *metrics.Processed) error { return w.Write(r, scrubbed(payload(r.Record), pl.secrets)) },
		finish:  w.Close,
	}, true, nil
}

// openOutputsFile: outputs.json (--export-outputs-json), profiling
// records only.
func openOutputsFile(_ *pipeline, p *Plan, o export.LineOptions) (sink, bool, error) {
	if !p.Config.Artifacts.ExportOutputsJSON {
		return sink{}, false, nil
	}
	w, err := export.NewOutputsWriter(p.Paths.Outputs, o)
	if err != nil {
		return sink{}, false, err
	}
	finish := func() error {
		if err := w.Finish(); err != nil {
			return fmt.Errorf("outputs.json: %w", err)
		}
		return nil
	}
	return sink{phases: allRecords, consume: w.Write, finish: finish}, true, nil
}

// openAccuracyFile: the graded answers of --accuracy-benchmark; finishing
// it leaves the tally in pl.accuracy.
func openAccuracyFile(pl *pipeline, p *Plan, _ export.LineOptions) (sink, bool, error) {
	a, err := newAccuracyRun(p, pl.log)
	if err != nil || a == nil {
		return sink{}, false, err
	}
	finish := func() error {
		sum, err := a.finish()
		pl.accuracy = &sum
		if err != nil {
			return fmt.Errorf("accuracy export: %w", err)
		}
		return nil
	}
	return sink{phases: profilingRecords, consume: func(r *metrics.Processed) error { a.grade(r); return nil }, finish: finish}, true, nil
}
