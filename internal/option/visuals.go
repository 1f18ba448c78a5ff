package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// sliceDurationOptions lists the options from --slice-duration on, in help order.
func sliceDurationOptions() []Option {
	return []Option{
		{Name: "slice-duration",
			Group: GroupOutput,
			Meta:  "<seconds>",
			Usage: "Also compute every metric per fixed-length time slice of the profiling phase, from its first request, into profile_export_aiperf_timeslices.json and .csv: warmup effects and degradation over a long run show up slice by slice, and `aiperf plot` draws them.",
			Bind:  func(c *config.Config) any { return &c.Visuals.SliceDurationSeconds },
			Keys:  []Key{{Path: "benchmark.artifacts.slice_duration", Conv: ConvDuration, Doc: "Width of the time slices of profile_export_aiperf_timeslices.{json,csv}: seconds or a duration (\"10s\")."}}},
		{Name: "auto-plot",
			Group:   GroupOutput,
			Default: "off, on with a plot: section in --config",
			Usage:   "Run `aiperf plot` on the artifact directory after the benchmark: PNG charts and a self-contained report.html under plots/. A failed plot is a warning unless --plot-required.",
			Bind:    func(c *config.Config) any { return &c.Visuals.AutoPlot },
			NoForm:  true,
			Keys:    []Key{{Path: "benchmark.artifacts.auto_plot", Doc: "Run `aiperf plot` on the artifact directory after the run; defaults to on when the file has a plot: section."}}},
		{Name: "plot-required",
			Group: GroupOutput,
			Usage: "Fail the command (exit code 1) when the automatic plot fails, instead of warning.",
			Bind:  func(c *config.Config) any { return &c.Visuals.PlotRequired },
			Keys:  []Key{{Path: "benchmark.artifacts.plot_required", Doc: "Fail the command when the automatic plot fails."}}},
	}
}
