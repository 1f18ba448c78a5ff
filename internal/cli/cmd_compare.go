package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/compare"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/metricview"
)

// newCompareCommand builds `aiperf compare RUN...`: the capacity and the
// experience ranking of finished benchmarks, the change of each figure
// against a baseline, and optionally the peer metric views.
func newCompareCommand(env *Env) *cobra.Command {
	var format, output, baseline, views, chart string
	var alpha float64
	cmd := &cobra.Command{
		Use:   "compare RUN...",
		Short: "Rank finished benchmarks by node capacity and by user experience, with deltas",
		Long: `Compare finished benchmarks: artifact directories of single runs, repeated
runs (--num-profile-runs) or sweeps, written by this tool or by AIPerf, or a
directory holding several of them (one per model, say). A sweep contributes
one entry per point.

Two rankings, because per-node and per-user rates answer different
questions:
  capacity    total tokens/s of the node (input = total - output, output,
              total): how much work the node does, all users together;
  experience  prefill and output tokens/s per user: what one session sees.
Then the change of each figure against the baseline (the first entry, or
--baseline), with Welch's t-test where both sides have repeated runs, so a
difference within the run-to-run noise is not called a change.

Examples:
  aiperf compare artifacts/model-a artifacts/model-b
  aiperf compare artifacts/ --format markdown --output compare.md
  aiperf compare run-old run-new --metric-view vllm,guidellm

Exit codes: 0 success; 2 bad arguments; 1 unreadable results.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var tools []metricview.Tool
			if views != "" {
				t, err := metricview.ParseTools(views)
				if err != nil {
					return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--metric-view: %w", err)}
				}
				tools = t
			}
			switch format {
			case "text", "markdown", "json":
			default:
				return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--format: invalid choice %q (choose from text, markdown, json)", format)}
			}
			es, err := compare.Entries(args)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			base, err := baselineIndex(es, baseline)
			if err != nil {
				return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--baseline: %w", err)}
			}
			r := compare.Build(es, compare.Options{Baseline: base, Alpha: alpha})
			if len(tools) > 0 {
				missing, err := r.AddViews(tools)
				if err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: err}
				}
				if len(missing) > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "metric views: no per-request records (%s) for %s\n", "profile_export.jsonl", strings.Join(missing, ", "))
				}
			}
			var w io.Writer = cmd.OutOrStdout()
			if output != "" {
				if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--output: %w", err)}
				}
				f, err := os.Create(output)
				if err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--output: %w", err)}
				}
				defer f.Close()
				w = f
			}
			switch format {
			case "markdown":
				err = r.WriteMarkdown(w)
			case "json":
				err = r.WriteJSON(w)
			default:
				err = r.WriteText(w)
			}
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			if output != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "Comparison of %d entries written to %s\n", len(es), output)
			}
			if chart != "" {
				png, err := r.ChartPNG()
				switch {
				case err != nil:
					return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--chart: %w", err)}
				case png == nil:
					fmt.Fprintln(cmd.ErrOrStderr(), "--chart: no entry has both total and per-user output throughput; no chart written")
				default:
					if err := os.WriteFile(chart, png, 0o644); err != nil {
						return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("--chart: %w", err)}
					}
					fmt.Fprintf(cmd.OutOrStdout(), "Chart written to %s\n", chart)
				}
			}
			return nil
		},
	}
	_ = env
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringVar(&format, "format", "text", "Output format: text (tables for a terminal), markdown or json.")
	fs.StringVarP(&output, "output", "o", "", "Write the comparison to this file instead of stdout.")
	fs.StringVar(&baseline, "baseline", "1", "The entry the deltas compare against: its position (1 = the first) or its label as the tables show it.")
	fs.Float64Var(&alpha, "alpha", 0.05, "Significance level of the Welch t-tests between repeated runs.")
	fs.StringVar(&chart, "chart", "", "Also draw the runs by capacity (total tokens/s, x) and experience (output tokens/s per user, y) into this PNG file.")
	fs.StringVar(&views, "metric-view", "", "Also report ITL/TPOT/TTFT/E2E as these tools define them (vllm, sglang, guidellm, inference-perf, all), from each run's profile_export.jsonl.")
	return cmd
}

// baselineIndex resolves --baseline: a 1-based position or a label.
func baselineIndex(es []compare.Entry, s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > len(es) {
			return 0, fmt.Errorf("position %d is out of range (1 to %d)", n, len(es))
		}
		return n - 1, nil
	}
	var labels []string
	for i, e := range es {
		if e.Label == s {
			return i, nil
		}
		labels = append(labels, strconv.Quote(e.Label))
	}
	return 0, fmt.Errorf("no entry labelled %q (the entries are %s)", s, strings.Join(labels, ", "))
}
