package benchmark

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/gpu"
	"github.com/aiperf-go/aiperf/internal/validity"
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

// artifactRun is what the exporters share: the finished run, the summary
// JSON's run info and the console's options. An exporter may add to the
// run info and the console (the exporters after it see what it added).
type artifactRun struct {
	p    *Plan
	res  *result
	rio  IO
	info export.RunInfo
	opts export.ConsoleOptions
	// unwritten are the files announced after the tables that failed to
	// write or were not written (an empty CSV): they are left out, so
	// every file announced exists.
	unwritten map[string]bool
}

// artifact is one output of a run: a per-request file streamed while the
// run goes (open), or a summary artifact written when it ends (write).
type artifact struct {
	name string
	// open returns the sink of a per-request file, or ok false when the
	// run does not write it; it runs before any record flows, and an
	// error stops the run before its first request.
	open func(pl *pipeline, p *Plan, o export.LineOptions) (s sink, ok bool, err error)
	// file is the path a summary artifact writes, left out of the files
	// announced after the tables when writing fails; nil for one that
	// writes several files or announces its own.
	file func(p *Plan) string
	// enabled says whether the run writes a summary artifact; nil for one
	// that always runs (and decides for itself what to write).
	enabled func(a *artifactRun) bool
	write   func(a *artifactRun) error
}

// artifacts are every output of a run, in order. The per-request files
// come first, fed and finished in this order. The summary artifacts
// follow in the order they are written: telemetry and accuracy add their
// blocks to the summary JSON written after them, the llm-d report reads
// that JSON, and the console comes last, with every table and every file
// announced. A new output is a file with its open or write function and
// one entry here.
var artifacts = []artifact{
	{name: "records", open: openRecordsFile},
	{name: "raw records", open: openRawFile},
	{name: "outputs.json", open: openOutputsFile},
	{name: "accuracy", open: openAccuracyFile},
	{name: "telemetry", write: writeTelemetryArtifacts},
	{name: "metric views", enabled: wantsMetricViews, write: writeMetricViews},
	{name: "accuracy results", enabled: func(a *artifactRun) bool { return a.res.Accuracy != nil }, write: writeAccuracyResults},
	{name: "summary JSON", file: func(p *Plan) string { return p.Paths.JSON },
		enabled: func(a *artifactRun) bool { return !a.p.Config.Artifacts.NoSummaryJSON }, // artifacts.summary: false
		write:   writeSummaryJSON},
	{name: "phases", write: func(a *artifactRun) error { return writePhaseArtifacts(a.p, a.res, a.info) }},
	{name: "llm-d report", enabled: func(a *artifactRun) bool { return a.p.Config.Analysis.LLMDReport }, write: writeLLMDReport},
	{name: "summary CSV", file: func(p *Plan) string { return p.Paths.CSV }, write: writeCSV},
	{name: "timeslices", enabled: wantsTimeslices, write: writeTimeslices},
	{name: "console text", write: writeConsoleText},
	{name: "console", write: writeConsole},
}

// writeResults writes the summary files and prints the result tables:
// every summary artifact, each attempted even when an earlier one failed.
func writeResults(p *Plan, res *result, rio IO) error {
	a := newArtifactRun(p, res, rio)
	var errs []error
	for _, e := range artifacts {
		if e.write == nil || e.enabled != nil && !e.enabled(a) {
			continue
		}
		if err := e.write(a); err != nil {
			errs = append(errs, err)
			if e.file != nil {
				a.unwritten[e.file(p)] = true
			}
		}
	}
	return errors.Join(errs...)
}

// newArtifactRun builds the run info of the summary JSON and the console
// options every exporter starts from.
func newArtifactRun(p *Plan, res *result, rio IO) *artifactRun {
	a := &artifactRun{p: p, res: res, rio: rio, unwritten: map[string]bool{}, info: export.RunInfo{
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
		Warmup:       res.Warmup,
	}}
	info := &a.info
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
	if res.Decomposition != nil {
		info.TimeDecomposition = res.Decomposition
	}
	if res.Saturation != nil {
		info.OverSaturation = res.Saturation
	}
	if res.Probes != nil {
		info.ProbeRequests = res.Probes
	}
	rep := verdicts(p, &res.Summary)
	if rep != nil {
		info.Verdicts = rep
	}
	a.opts = export.ConsoleOptions{
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
		// The output-length note says which count it compared and
		// leaves out the advice the run already follows.
		ServerTokenCounts: p.Config.Endpoint.UseServerTokenCount,
		ExtraInputs:       extraInputKeys(p.Config.Input.Extra),
	}
	if res.Decomposition != nil {
		a.opts.Footer = res.Decomposition.console()
	}
	if res.Saturation != nil {
		a.opts.Footer += res.Saturation.console()
	}
	if res.Probes != nil {
		a.opts.Footer += res.Probes.console()
	}
	if res.Health != nil {
		a.opts.Footer += clienthealth.Console(*res.Health)
		if v := res.Health.Validity; v != nil {
			a.opts.Footer += validity.Console(*v)
		}
	}
	if res.NetworkNote != "" {
		a.opts.Footer += res.NetworkNote + "\n"
	}
	if rep != nil {
		a.opts.Footer += verdict.Panel(*rep)
	}
	if res.WriteErr != nil {
		a.unwritten[p.Paths.RawJSONL] = true
	}
	return a
}

// announced is the console options with the files that were not written
// left out of the announcement.
func (a *artifactRun) announced() export.ConsoleOptions {
	opts := a.opts
	opts.Exports = slices.DeleteFunc(slices.Clone(a.opts.Exports), func(e export.Export) bool { return a.unwritten[e.Path] || !onDisk(e.Path) })
	return opts
}

// onDisk reports whether path is a regular file. The console is written
// last, so every file it announces is checked against the disk, whichever
// exporter wrote it and however it reported a failure.
func onDisk(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// extraInputKeys are the --extra-inputs keys set to something other than
// false or null.
func extraInputKeys(extra []config.ExtraInput) map[string]bool {
	keys := map[string]bool{}
	for _, e := range extra {
		v := strings.TrimSpace(string(e.Value))
		keys[e.Key] = v != "false" && v != "null" && v != ""
	}
	return keys
}

// writeTelemetryArtifacts writes the telemetry files and adds their block
// to the summary JSON and their tables to the console.
func writeTelemetryArtifacts(a *artifactRun) error {
	res, p := a.res, a.p
	errs := writeTelemetry(p, res.Telemetry, &res.Summary, &a.info, &a.opts)
	if a.info.TelemetryData == nil && !p.Config.Telemetry.GPU.Disabled && res.Clock != nil {
		// AIPerf 0.13 writes the block, with no endpoints, when GPU
		// telemetry was on and no exporter answered.
		w := gpu.Bounded(res.Clock.WallNanos(res.Profiling.Start), res.Clock.WallNanos(res.Profiling.End))
		a.info.TelemetryData = (&gpu.Results{Window: w}).TelemetryData()
	}
	return errors.Join(errs...)
}

func wantsMetricViews(a *artifactRun) bool {
	return len(a.p.Config.ResolvedMetricViews()) > 0 && a.p.Paths.WritesRecords()
}

// writeMetricViews writes metric_views.json and adds its panel to the
// console.
func writeMetricViews(a *artifactRun) error {
	panel, err := metricViews(a.p)
	if err != nil {
		return err
	}
	a.opts.Footer += panel
	return nil
}

func writeAccuracyResults(a *artifactRun) error {
	if err := writeAccuracy(a.p, a.res.Accuracy, &a.info, &a.opts); err != nil {
		return fmt.Errorf("accuracy results: %w", err)
	}
	return nil
}

func writeSummaryJSON(a *artifactRun) error {
	if err := export.WriteSummaryJSON(a.p.Paths.JSON, &a.res.Summary, a.info); err != nil {
		return fmt.Errorf("summary JSON: %w", err)
	}
	return nil
}

func writeLLMDReport(a *artifactRun) error { return llmdReport(a.p, a.rio.Version) }

// writeCSV writes profile_export_aiperf.csv; an empty one is not written,
// and neither is announced.
func writeCSV(a *artifactRun) error {
	written, err := writeSummaryCSV(a.p, a.res.Telemetry, &a.res.Summary)
	if !written {
		a.unwritten[a.p.Paths.CSV] = true
	}
	if err != nil {
		return fmt.Errorf("summary CSV: %w", err)
	}
	return nil
}

func wantsTimeslices(a *artifactRun) bool {
	_, ok := a.p.Config.SliceDuration()
	return ok
}

// writeTimeslices writes the --slice-duration files, or says on stderr
// that no request finished.
func writeTimeslices(a *artifactRun) error {
	if len(a.res.Timeslices) == 0 {
		d, _ := a.p.Config.SliceDuration()
		fmt.Fprintf(a.rio.Stderr, "No request finished: no %v timeslices written\n", d)
		return nil
	}
	if err := export.WriteTimeslices(a.p.Paths.TimeslicesJSON, a.p.Paths.TimeslicesCSV, a.res.Timeslices, a.info.InputConfig); err != nil {
		return fmt.Errorf("timeslices: %w", err)
	}
	return nil
}

func writeConsoleText(a *artifactRun) error {
	if err := export.WriteConsoleTxt(a.p.Paths.ConsoleTxt, &a.res.Summary, a.announced()); err != nil {
		return fmt.Errorf("console text: %w", err)
	}
	return nil
}

// writeConsole prints the result tables and the files written to stdout,
// in one write.
func writeConsole(a *artifactRun) error {
	s, opts := &a.res.Summary, a.announced()
	var out bytes.Buffer
	var errs []error
	fmt.Fprintln(&out)
	if err := export.Console(&out, s, opts); err != nil {
		errs = append(errs, fmt.Errorf("console: %w", err))
	}
	if err := export.ConsoleTrailer(&out, s, opts); err != nil {
		errs = append(errs, fmt.Errorf("console: %w", err))
	}
	if _, err := a.rio.Stdout.Write(out.Bytes()); err != nil {
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
