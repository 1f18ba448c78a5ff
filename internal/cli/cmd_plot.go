package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	plotreport "github.com/aiperf-go/aiperf/internal/report"
)

// newPlotCommand builds `aiperf plot [PATHS...]`: AIPerf's plots of
// finished benchmarks as PNGs and as one self-contained HTML report.
func newPlotCommand(env *Env) *cobra.Command {
	var paths []string
	var output, theme, cfgFile, format, host string
	var dashboard bool
	var port int
	var mlUpload bool // --mlflow-upload
	var mlURI, mlRun string
	cmd := &cobra.Command{
		Use:   "plot [PATHS...]",
		Short: "Draw finished benchmarks: PNG charts and a self-contained HTML report",
		Long: `Draw the results of finished benchmarks, this tool's or AIPerf's. One run
directory gives the single-run plots (TTFT, ITL and latency per request and
over time, dispersed throughput, the request timeline, histograms, percentile
bands, timeslices, GPU telemetry); several runs (a sweep, repeated runs, or
several directories) give the multi-run plots (Pareto fronts, TTFT vs
throughput, and latency-throughput confidence ellipses from repeated runs).

Each plot is a PNG (drawn in pure Go, no browser needed) and all of them,
with the summary tables and each run's configuration, are in plots/report.html:
one file, interactive (zoom, hover, save as image), that needs no network.

Which plots: --config FILE, else <run>/.aiperf-plot-config.yaml (left by
--auto-plot from a config file's plot: section), else
~/.aiperf/plot_config.yaml (created from the built-in presets on first use).

Examples:
  aiperf plot artifacts/my-run
  aiperf plot artifacts/sweep --theme dark --output /tmp/plots
  aiperf plot run-a run-b run-c
  aiperf plot artifacts/my-run --dashboard      # serve the report on 127.0.0.1:8050

Exit codes: 0 plots written; 1 nothing could be drawn or written; 2 bad arguments.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			all := append(append([]string{}, args...), paths...)
			th, err := plotreport.ThemeNamed(theme)
			if err != nil {
				return &config.ExitError{Code: config.ExitUsage, Err: err}
			}
			o := plotreport.Options{
				Paths: all, Output: output, Theme: th, ConfigFile: cfgFile,
				UserConfig: plotreport.UserConfigPath(), Log: cmd.ErrOrStderr(),
			}
			switch format {
			case "both":
			case "png":
				o.NoHTML = true
			case "html":
				o.NoPNG = true
			default:
				return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--format: invalid choice %q (choose from both, png, html)", format)}
			}
			if dashboard {
				o.NoHTML = false
			}
			res, err := plotreport.Plot(o)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Plotted %d chart(s) from %d run director%s (%s):\n", len(res.Charts), len(res.RunDirs), map[bool]string{true: "y", false: "ies"}[len(res.RunDirs) == 1], res.Mode)
			for _, f := range res.Files {
				fmt.Fprintf(out, "  %s\n", f)
			}
			if mlUpload {
				if err := uploadPlots(cmd.Context(), env, out, res.RunDirs, res.Files, mlURI, mlRun); err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: err}
				}
			}
			if !dashboard {
				return nil
			}
			return serveReport(cmd.Context(), cmd, res.Report, host, port)
		},
	}
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringSliceVar(&paths, "paths", nil, "Run directories or directories holding runs (also as arguments); default ./artifacts.")
	fs.StringVar(&output, "output", "", "Directory for the plots; default <first path>/plots.")
	fs.StringVar(&theme, "theme", "light", "Colour theme: light or dark.")
	fs.StringVar(&cfgFile, "config", "", "Plot configuration YAML (AIPerf's plot_config.yaml shape).")
	fs.StringVar(&format, "format", "both", "What to write: both (PNGs and report.html), png or html.")
	fs.BoolVar(&dashboard, "dashboard", false, "Serve the HTML report locally (until Ctrl-C) instead of only writing it.")
	fs.StringVar(&host, "host", "127.0.0.1", "Address --dashboard listens on.")
	fs.IntVar(&port, "port", 8050, "Port --dashboard listens on (0 picks a free one).")
	fs.BoolP("verbose", "v", false, "Accepted for AIPerf compatibility; errors are always shown in full.")
	fs.BoolVar(&mlUpload, "mlflow-upload", false, "Attach the plots to the run's MLflow run (found in its mlflow_export.json unless --mlflow-run-id), under plots/.")
	fs.StringVar(&mlURI, "mlflow-tracking-uri", "", "MLflow tracking server for --mlflow-upload; default the one in mlflow_export.json.")
	fs.StringVar(&mlRun, "mlflow-run-id", "", "MLflow run to attach the plots to; default the one in mlflow_export.json.")
	return cmd
}

// serveReport serves the report's directory (the report and its PNGs)
// until ctx is cancelled.
func serveReport(ctx context.Context, cmd *cobra.Command, reportPath, host string, port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--dashboard: %w", err)}
	}
	mux := http.NewServeMux()
	dir := filepath.Dir(reportPath)
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(cmd.OutOrStdout(), "Serving the report at http://%s/%s (Ctrl-C to stop)\n", ln.Addr(), filepath.Base(reportPath))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		return nil
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
}
