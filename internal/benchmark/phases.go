package benchmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/telemetry/servermetrics"
)

// Per-phase results (AIPerf 0.12+): a run of more than one phase - a
// warmup and the profiling phase, or a config file's named phases - also
// writes each phase's own summary under phases/<name>/ and indexes them in
// phase_manifest.json. The top-level summary stays what it is: every
// profiling-kind phase together, the warmups under warmup_metrics.

// phaseOutcome is one phase that ran.
type phaseOutcome struct {
	Spec    *PhaseSpec
	Result  phaseResult
	Ran     bool
	Summary *metrics.Summary // set when the run had more than one phase
}

// phaseAccumulators are the per-phase accumulators, by phase index; nil
// for a single-phase run. The usual two-phase run reuses the warmup and
// top-level accumulators, which then hold exactly one phase each.
func phaseAccumulators(p *Plan, top, warm *metrics.Accumulator) []*metrics.Accumulator {
	if len(p.Phases) < 2 {
		return nil
	}
	accs := make([]*metrics.Accumulator, len(p.Phases))
	named := p.Phases[0].Named
	for i, s := range p.Phases {
		switch {
		case !named && s.Phase == record.Warmup:
			accs[i] = warm
		case !named:
			accs[i] = top
		default:
			a := metrics.NewAccumulator(p.Registry, p.Metrics, p.SLOs)
			a.SetPhase(s.Phase)
			accs[i] = a
		}
	}
	return accs
}

// addToPhase folds a record into its named phase's accumulator (the
// usual run's are fed as the top-level and warmup ones).
func (pl *pipeline) addToPhase(p *metrics.Processed) {
	rec := p.Record
	if rec.PhaseName == "" || rec.PhaseIndex >= len(pl.phaseAccs) {
		return
	}
	pl.phaseAccs[rec.PhaseIndex].Add(p)
}

// summarizePhases gives every phase that ran its own summary when the run
// had several; call it after the top-level and warmup summaries.
func (pl *pipeline) summarizePhases(res *result) {
	if pl.phaseAccs == nil {
		return
	}
	for i := range res.Phases {
		o := &res.Phases[i]
		if !o.Ran {
			continue
		}
		a := pl.phaseAccs[o.Spec.Index]
		switch {
		case a == pl.acc:
			o.Summary = &res.Summary
		case a == pl.warm && res.Warmup != nil:
			o.Summary = res.Warmup
		default:
			a.SetPhaseStart(o.Result.Stats.Start)
			s := a.Summarize()
			o.Summary = &s
		}
	}
}

// writePhaseArtifacts writes phases/<name>/profile_export_aiperf.{json,csv}
// for each phase (with server_metrics.json and gpu_telemetry.json when
// those were collected) and phase_manifest.json, as AIPerf 0.13 does for a
// run of more than one phase (not for an agentic replay, whose warmup it does not
// store as a phase). Every phase is attempted; the manifest is written
// even when a phase's files fail.
func writePhaseArtifacts(p *Plan, res *result, base export.RunInfo) error {
	if len(res.Phases) < 2 || p.Sessions.Agentic != nil {
		// An agentic replay's warmup is synthesized, not a stored phase:
		// AIPerf 0.13 writes no per-phase files for it.
		return nil
	}
	var errs []error
	var entries []map[string]any
	jsonName, csvName := filepath.Base(p.Paths.JSON), filepath.Base(p.Paths.CSV)
	lastRan := -1
	for i, o := range res.Phases {
		if o.Summary != nil {
			lastRan = i
		}
	}
	for i, o := range res.Phases {
		if o.Summary == nil {
			continue
		}
		s := o.Spec
		rel := filepath.ToSlash(filepath.Join("phases", s.Name))
		dir := filepath.Join(p.Paths.Dir, "phases", s.Name)
		entry := map[string]any{
			"phase_index":              s.Index,
			"profiling_index":          nil,
			"phase_name":               s.Name,
			"phase_kind":               s.Phase.String(),
			"start_ns":                 res.Clock.Wall(o.Result.Start).UnixNano(),
			"end_ns":                   res.Clock.Wall(o.Result.End).UnixNano(),
			"was_cancelled":            o.Result.Stopped,
			"successful_request_count": count(o.Summary, "request_count"),
			"error_request_count":      count(o.Summary, "error_request_count"),
			"total_request_count":      count(o.Summary, "request_count") + count(o.Summary, "error_request_count"),
			"error_summary":            errorSummary(o.Summary.Errors),
		}
		if s.Phase == record.Profiling {
			entry["profiling_index"] = s.ProfilingIndex
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			errs = append(errs, fmt.Errorf("phase %s: %w", s.Name, err))
			entries = append(entries, entry)
			continue
		}
		info := base
		info.Start, info.End = res.Clock.Wall(o.Result.Start), res.Clock.Wall(o.Result.End)
		info.WasCancelled, info.IsComplete = o.Result.Stopped, !o.Result.Stopped
		// A phase's summary has no telemetry_data: its GPU telemetry is
		// gpu_telemetry.json beside it, as AIPerf 0.13 writes it.
		info.Warmup, info.Verdicts, info.ClientHealth, info.TelemetryData = nil, nil, nil, nil
		if err := export.WriteSummaryJSON(filepath.Join(dir, jsonName), o.Summary, info); err != nil {
			errs = append(errs, fmt.Errorf("phase %s summary JSON: %w", s.Name, err))
		} else {
			entry["metrics_json"] = rel + "/" + jsonName
		}
		if written, err := export.WriteSummaryCSV(filepath.Join(dir, csvName), o.Summary); err != nil {
			errs = append(errs, fmt.Errorf("phase %s summary CSV: %w", s.Name, err))
		} else if written {
			entry["metrics_csv"] = rel + "/" + csvName
		}
		ref := export.PhaseRef{Index: s.Index, Name: s.Name, Kind: s.Phase.String(),
			StartNs: entry["start_ns"].(int64), EndNs: entry["end_ns"].(int64), Cancelled: o.Result.Stopped}
		if s.Phase == record.Profiling {
			ref.ProfilingIndex = &s.ProfilingIndex
		}
		errs = append(errs, writePhaseTelemetry(res.Telemetry, ref, i == lastRan, base.BenchmarkID, dir, rel, entry)...)
		entries = append(entries, entry)
	}
	b, err := json.MarshalIndent(map[string]any{"schema_version": 1, "phases": entries}, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(p.Paths.Dir, "phase_manifest.json"), append(b, '\n'), 0o644)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("phase_manifest.json: %w", err))
	}
	return errors.Join(errs...)
}

// writePhaseTelemetry writes a phase's server_metrics.json (the statistics
// over the phase's window, the last phase's extended to the final scrape
// as the top-level export's profiling window is; collection statistics
// over the scrapes that started in the phase) and gpu_telemetry.json (the
// GPU statistics over the phase's span), and lists them in its manifest
// entry. A phase with no samples gets no file, as in AIPerf 0.13.
func writePhaseTelemetry(t *telemetryResults, ph export.PhaseRef, last bool, benchmarkID, dir, rel string, entry map[string]any) []error {
	if t == nil {
		return nil
	}
	var errs []error
	write := func(name, key string, data []byte) {
		b, err := export.PhaseFile(ph, data)
		if err == nil {
			err = export.WriteFile(filepath.Join(dir, name), b)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("phase %s %s: %w", ph.Name, name, err))
			return
		}
		entry[key] = rel + "/" + name
	}
	if t.gpu != nil && len(t.gpu.Sources) > 0 {
		write("gpu_telemetry.json", "gpu_telemetry_json", t.gpuStore.Summarize(gpu.Bounded(ph.StartNs, ph.EndNs)).TelemetryData())
	}
	if t.sm != nil && len(t.sm.Endpoints()) > 0 {
		x := &servermetrics.Export{BenchmarkID: benchmarkID, Endpoints: t.sm.Endpoints()}
		sum := t.sm.Summarize(servermetrics.Window{Start: ph.StartNs, End: ph.EndNs}, last)
		if data, ok := x.PhaseData(t.sm, ph, sum); ok {
			write("server_metrics.json", "server_metrics_json", data)
		}
	}
	return errs
}

// errorSummary is a phase's error summary in AIPerf's shape.
func errorSummary(errs []metrics.ErrorCount) []any {
	out := []any{}
	for _, e := range errs {
		d := map[string]any{"message": e.Error.Message}
		if e.Error.Code != 0 {
			d["code"] = e.Error.Code
		}
		if e.Error.Type != "" {
			d["type"] = e.Error.Type
		}
		out = append(out, map[string]any{"error_details": d, "count": e.Count})
	}
	return out
}
