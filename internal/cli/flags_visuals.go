package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addVisualsFlags registers the Output-group flags of config.Visuals:
// --slice-duration, --auto-plot/--no-auto-plot and --plot-required. It
// sets b.group itself.
func (b *flagBuilder) addVisualsFlags(cfg *config.Config) {
	v := &cfg.Visuals
	b.group = groupOutput
	b.add(&floatPtrValue{recorder: b.rec("slice-duration"), p: &v.SliceDurationSeconds}, spec{
		name: "slice-duration", meta: "<seconds>",
		usage: "Also compute every metric per fixed-length time slice of the profiling phase, from its first request, into profile_export_aiperf_timeslices.json and .csv: warmup effects and degradation over a long run show up slice by slice, and `aiperf plot` draws them.",
	})
	b.addBoolPair(&v.AutoPlot, "auto-plot", "off, on with a plot: section in --config",
		"Run `aiperf plot` on the artifact directory after the benchmark: PNG charts and a self-contained report.html under plots/. A failed plot is a warning unless --plot-required.")
	b.add(&boolValue{recorder: b.rec("plot-required"), p: &v.PlotRequired}, spec{
		name:  "plot-required",
		usage: "Fail the command (exit code 1) when the automatic plot fails, instead of warning.",
	})
}
