package cli

import (
	"fmt"
	"io"

	"github.com/aiperf-go/aiperf/internal/config"
	plotreport "github.com/aiperf-go/aiperf/internal/report"
)

// autoPlot runs --auto-plot after a benchmark (or an experiment) that
// succeeded: `aiperf plot` on its artifact directory. A failed plot is a
// warning that leaves the run's outcome alone, unless --plot-required
// makes it the command's failure (exit code 1), as AIPerf's plot_required.
func autoPlot(cfg *config.Config, dir string, runErr error, stderr io.Writer) error {
	if runErr != nil || !cfg.AutoPlot() {
		return runErr
	}
	res, err := plotreport.AutoPlot(dir, cfg.Visuals.Plot, cfg.Visuals.PlotSource, stderr)
	if err != nil {
		if cfg.Visuals.PlotRequired {
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("auto-plot failed (--plot-required): %w", err)}
		}
		fmt.Fprintf(stderr, "Warning: auto-plot failed (run artifacts intact at %s): %v; re-run `aiperf plot %s` by hand.\n", dir, err, dir)
		return nil
	}
	fmt.Fprintf(stderr, "Plots: %d chart(s) in %s\n", len(res.Charts), res.Report)
	return nil
}

// plotConfigProblems checks a config file's plot: section before the run
// starts, so a typo in it does not surface only after a long benchmark.
func plotConfigProblems(cfg *config.Config) []error {
	if cfg.Visuals.Plot == "" {
		return nil
	}
	if _, err := plotreport.ParseConfig([]byte(cfg.Visuals.Plot), cfg.Visuals.PlotSource); err != nil {
		return []error{&config.FieldError{Flag: "plot:", Problem: err.Error()}}
	}
	return nil
}
