package benchmark

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/verdict"
)

// writeArtifacts writes the summary files and prints the result tables.
// Every file is attempted even when an earlier one fails. The directory
// carries AIPerf's processing marker while they are written and its ready
// marker once they are all on disk (partial when one failed).
func writeArtifacts(p *Plan, res *result, rio IO) error {
	// A marker that cannot be written (a full disk) does not stop the
	// rest: the tables still print, and each file is still attempted.
	var err error
	if berr := export.BeginResults(p.Paths.Dir); berr != nil {
		err = fmt.Errorf("results marker: %w", berr)
	}
	err = errors.Join(err, writeResults(p, res, rio))
	ready := export.Ready{WasCancelled: res.Stopped, Partial: err != nil || res.WriteErr != nil}
	if cerr := export.CommitResults(p.Paths.Dir, ready); cerr != nil {
		err = errors.Join(err, fmt.Errorf("results marker: %w", cerr))
	}
	return err
}

// writeResults writes the summary files and prints the result tables.
func writeResults(p *Plan, res *result, rio IO) error {
	s := &res.Summary
	info := export.RunInfo{
		Version:      rio.Version,
		BenchmarkID:  res.BenchmarkID,
		InputConfig:  inputConfig(p, p.Config.UIType(rio.IsTTY)),
		CLICommand:   rio.CLICommand,
		Trial:        rio.Trial,
		RunLabel:     rio.RunLabel,
		Sweep:        rio.Sweep,
		Start:        res.Clock.Wall(res.Profiling.Start),
		End:          res.Clock.Wall(res.Profiling.End),
		WasCancelled: res.Stopped,
		IsComplete:   !res.Stopped,
	}
	if res.Stopped {
		info.IncompleteReason = "the run was interrupted before its stop condition"
	}
	if res.Aborted != "" {
		info.IncompleteReason = res.Aborted
	}
	if p.SeedSet {
		seed := p.Seed
		info.RandomSeed = &seed
	}
	if res.Health != nil {
		info.ClientHealth = res.Health
	}
	info.Warmup = res.Warmup
	rep := verdicts(p, s)
	if rep != nil {
		info.Verdicts = rep
	}
	opts := export.ConsoleOptions{
		Title:            "NVIDIA AIPerf | " + p.Meta.MetricsTitle,
		Width:            rio.Width,
		Incomplete:       res.Stopped,
		IncompleteReason: info.IncompleteReason,
		CLICommand:       rio.CLICommand,
		WasCancelled:     res.Stopped,
		Exports:          exports(p),
		LogFile:          p.Paths.Log,
		EmbeddedMock:     p.Config.Endpoint.MockServer,
		ShowTraceTiming:  p.Config.Fidelity.ShowTraceTiming,
	}
	if res.Health != nil {
		opts.Footer = healthConsole(*res.Health)
	}
	if res.NetworkNote != "" {
		opts.Footer += res.NetworkNote + "\n"
	}
	if rep != nil {
		opts.Footer += verdict.Panel(*rep)
	}

	errs := writeTelemetry(p, res.Telemetry, s, &info, &opts)
	if info.TelemetryData == nil && !p.Config.Telemetry.GPU.Disabled && res.Clock != nil {
		// AIPerf 0.13 writes the block, with no endpoints, when GPU
		// telemetry was on and no exporter answered.
		w := gpu.Bounded(res.Clock.WallNanos(res.Profiling.Start), res.Clock.WallNanos(res.Profiling.End))
		info.TelemetryData = (&gpu.Results{Window: w}).TelemetryData()
	}
	// Files announced after the tables must exist: one that failed to
	// write (a full disk) or was not written (an empty CSV) is left out.
	unwritten := map[string]bool{}
	if res.WriteErr != nil {
		unwritten[p.Paths.RawJSONL] = true
	}
	if panel, err := metricViews(p); err != nil {
		errs = append(errs, err)
	} else {
		opts.Footer += panel
	}
	if err := writeAccuracy(p, res.Accuracy, &info, &opts); err != nil { // issue 21
		errs = append(errs, fmt.Errorf("accuracy results: %w", err))
	}
	if !p.Config.Artifacts.NoSummaryJSON { // artifacts.summary: false
		if err := export.WriteSummaryJSON(p.Paths.JSON, s, info); err != nil {
			errs = append(errs, fmt.Errorf("summary JSON: %w", err))
			unwritten[p.Paths.JSON] = true
		}
	}
	if err := writePhaseArtifacts(p, res, info); err != nil {
		errs = append(errs, err)
	}
	if err := llmdReport(p, rio.Version); err != nil {
		errs = append(errs, err)
	}
	if written, err := writeSummaryCSV(p, res.Telemetry, s); err != nil || !written {
		if err != nil {
			errs = append(errs, fmt.Errorf("summary CSV: %w", err))
		}
		unwritten[p.Paths.CSV] = true
	}
	opts.Exports = slices.DeleteFunc(opts.Exports, func(e export.Export) bool { return unwritten[e.Path] })
	if d, ok := p.Config.SliceDuration(); ok {
		if len(res.Timeslices) == 0 {
			fmt.Fprintf(rio.Stderr, "No request finished: no %v timeslices written\n", d)
		} else if err := export.WriteTimeslices(p.Paths.TimeslicesJSON, p.Paths.TimeslicesCSV, res.Timeslices, info.InputConfig); err != nil {
			errs = append(errs, fmt.Errorf("timeslices: %w", err))
		}
	}
	if err := export.WriteConsoleTxt(p.Paths.ConsoleTxt, s, opts); err != nil {
		errs = append(errs, fmt.Errorf("console text: %w", err))
	}

	var out bytes.Buffer
	fmt.Fprintln(&out)
	if err := export.Console(&out, s, opts); err != nil {
		errs = append(errs, fmt.Errorf("console: %w", err))
	}
	if err := export.ConsoleTrailer(&out, s, opts); err != nil {
		errs = append(errs, fmt.Errorf("console: %w", err))
	}
	if _, err := rio.Stdout.Write(out.Bytes()); err != nil {
		errs = append(errs, fmt.Errorf("stdout: %w", err))
	}
	return errors.Join(errs...)
}

// exports lists the files announced after the tables, AIPerf's order:
// the CSV, the JSON (unless turned off), the raw records, outputs.json.
func exports(p *Plan) []export.Export {
	var ex []export.Export
	for _, e := range p.Paths.Exports() {
		if e.Path == p.Paths.JSON && p.Config.Artifacts.NoSummaryJSON {
			continue
		}
		ex = append(ex, e)
	}
	if p.Config.Artifacts.ExportOutputsJSON {
		ex = append(ex, export.Export{Label: "Outputs JSON", Path: p.Paths.Outputs})
	}
	if p.Config.NetworkLatencyProbe() {
		ex = append(ex, export.Export{Label: "Network Latency JSONL", Path: p.Paths.NetworkLatencyJSONL})
	}
	return ex
}
