// Package report draws finished benchmarks: `aiperf plot`'s PNG charts
// and its one-file interactive HTML report, and the analyze views
// (swim lanes, turn messages). It reads artifacts only (ours and AIPerf
// 0.13's, which share names and shapes), never a running benchmark.
//
// The flow: FindRuns expands paths into run directories (AIPerf's mode
// detection: one run is a single-run report, several a multi-run one);
// LoadRun reads each; the plot configuration (AIPerf's plot_config.yaml)
// names the presets; each preset becomes a Chart, plain data that
// RenderPNG (gonum/plot, go-analyze/charts) and RenderHTML (go-echarts,
// with ECharts inlined) draw the same way.
package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options configure Plot.
type Options struct {
	// Paths are run directories or directories holding runs; empty means
	// ./artifacts, as AIPerf.
	Paths []string
	// Output is where the files go; empty means <first path>/plots.
	Output string
	// Theme colours the PNGs and the report.
	Theme Theme
	// ConfigFile is --config; empty resolves as LoadConfig does.
	ConfigFile string
	// UserConfig is ~/.aiperf/plot_config.yaml; empty skips it.
	UserConfig string
	// NoPNG and NoHTML leave a format out.
	NoPNG, NoHTML bool
	// Log receives progress lines; nil discards them.
	Log io.Writer
	// Now stamps the report; zero means time.Now.
	Now time.Time
}

// ReportName is the HTML report's file name.
const ReportName = "report.html"

// Result is what Plot drew.
type Result struct {
	Mode    string   // "single-run" or "multi-run"
	RunDirs []string // the run directories found
	Charts  []*Chart
	Files   []string // every file written
	Report  string   // the HTML report's path; "" with NoHTML
	Skipped []string // presets not drawn, with why
}

// Plot finds the runs, draws the configured presets and writes the PNGs,
// the HTML report and summary.txt. A preset without data for these runs
// (timeslices of a run without --slice-duration, GPU plots without
// telemetry) is skipped with a note; it is an error when nothing at all
// can be drawn.
func Plot(o Options) (*Result, error) {
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{"./artifacts"}
	}
	dirs, err := FindRuns(paths)
	if err != nil {
		return nil, err
	}
	runDir := ""
	if len(dirs) == 1 {
		runDir = dirs[0]
	} else if isDir(paths[0]) {
		runDir = paths[0]
	}
	cfg, err := LoadConfig(o.ConfigFile, runDir, o.UserConfig)
	if err != nil {
		return nil, err
	}
	single := len(dirs) == 1
	res := &Result{Mode: "multi-run", RunDirs: dirs}
	if single {
		res.Mode = "single-run"
	}
	fmt.Fprintf(logw, "aiperf plot: %s, %d run director%s (plot configuration %s)\n", res.Mode, len(dirs), plural(len(dirs), "y", "ies"), cfg.Source)

	runs, err := loadRuns(dirs, cfg, single)
	if err != nil {
		return nil, err
	}
	if single && runs[0].Summary == nil {
		// A multi-run aggregate alone: its point, across its runs.
		single = false
		res.Mode = "multi-run"
	}

	charts, problems := drawCharts(cfg, runs, single, res)
	if len(charts) == 0 {
		problems = append(problems, fmt.Errorf("no plot could be drawn from %s: %s", strings.Join(paths, ", "), strings.Join(res.Skipped, "; ")))
	}
	if err := errors.Join(problems...); err != nil {
		return res, err
	}
	res.Charts = charts

	out := o.Output
	if out == "" {
		out = filepath.Join(paths[0], "plots")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return res, fmt.Errorf("plot output directory: %w", err)
	}
	theme := o.Theme
	if theme.Name == "" {
		theme = LightTheme
	}
	if !o.NoPNG {
		if err := writePNGs(charts, theme, out, res); err != nil {
			return res, err
		}
	}
	if !o.NoHTML {
		if err := writeHTML(o, runs, charts, single, theme, out, res); err != nil {
			return res, err
		}
	}
	summary := filepath.Join(out, "summary.txt")
	if err := os.WriteFile(summary, []byte(summaryText(res, out)), 0o644); err != nil {
		return res, err
	}
	res.Files = append(res.Files, summary)
	for _, s := range res.Skipped {
		fmt.Fprintf(logw, "aiperf plot: skipped %s\n", s)
	}
	return res, nil
}

// loadRuns loads the run directories; a single run's requests are read
// too, for its per-request plots.
func loadRuns(dirs []string, cfg *Config, single bool) ([]*Run, error) {
	runs := make([]*Run, 0, len(dirs))
	for _, d := range dirs {
		r, err := LoadRun(d, LoadOptions{Requests: single, Classification: cfg.Classification})
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// drawCharts builds the configured presets of the mode; a preset without
// data is noted in res.Skipped, a failing one is a problem.
func drawCharts(cfg *Config, runs []*Run, single bool, res *Result) (charts []*Chart, problems []error) {
	v := &cfg.Visualization
	names, specs := v.MultiRunDefaults, v.MultiRunPlots
	if single {
		names, specs = v.SingleRunDefaults, v.SingleRunPlots
	}
	for _, name := range names {
		var c *Chart
		var err error
		if single {
			c, err = singleChart(name, specs[name], runs[0])
		} else {
			c, err = multiChart(name, specs[name], runs, cfg.Classification != nil)
		}
		switch {
		case errors.Is(err, ErrNoData):
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %v", name, err))
		case err != nil:
			problems = append(problems, fmt.Errorf("%s: %w", name, err))
		default:
			charts = append(charts, c)
		}
	}
	return charts, problems
}

// writePNGs renders each chart to out/NAME.png.
func writePNGs(charts []*Chart, theme Theme, out string, res *Result) error {
	for _, c := range charts {
		b, err := RenderPNG(c, theme)
		if err != nil {
			return err
		}
		p := filepath.Join(out, c.Name+".png")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		res.Files = append(res.Files, p)
	}
	return nil
}

// writeHTML writes the HTML report to out.
func writeHTML(o Options, runs []*Run, charts []*Chart, single bool, theme Theme, out string, res *Result) error {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	title := "AIPerf report: " + runs[0].Label
	if !single {
		title = fmt.Sprintf("AIPerf report: %d runs", len(runs))
	}
	b, err := RenderHTML(&Page{Title: title, Generated: now, Mode: res.Mode, Runs: runs, Charts: charts, Skipped: res.Skipped, Theme: theme})
	if err != nil {
		return err
	}
	res.Report = filepath.Join(out, ReportName)
	if err := os.WriteFile(res.Report, b, 0o644); err != nil {
		return err
	}
	res.Files = append(res.Files, res.Report)
	return nil
}

// summaryText lists what was written, as AIPerf's summary.txt.
func summaryText(res *Result, out string) string {
	var b strings.Builder
	b.WriteString("AIPerf Plot Export Summary\n")
	b.WriteString(strings.Repeat("=", 50) + "\n\n")
	files := slices.Clone(res.Files)
	fmt.Fprintf(&b, "Generated %d plots:\n\n", len(res.Charts))
	for _, f := range files {
		fmt.Fprintf(&b, "  - %s\n", filepath.Base(f))
	}
	if len(res.Skipped) > 0 {
		b.WriteString("\nSkipped:\n\n")
		for _, s := range res.Skipped {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	fmt.Fprintf(&b, "\nOutput directory: %s\n", out)
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// AutoPlot is --auto-plot: after a run, plot its artifact directory into
// <dir>/plots. A plot: envelope from the run's config file (plotYAML,
// from source) is first written to <dir>/.aiperf-plot-config.yaml, AIPerf's
// reproducibility receipt, which a later `aiperf plot <dir>` reads again.
func AutoPlot(dir, plotYAML, source string, log io.Writer) (*Result, error) {
	if plotYAML != "" {
		if _, err := ParseConfig([]byte(plotYAML), source); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, RunConfigName), []byte(plotYAML), 0o644); err != nil {
			return nil, fmt.Errorf("plot configuration receipt: %w", err)
		}
	}
	return Plot(Options{Paths: []string{dir}, UserConfig: UserConfigPath(), Log: log})
}
