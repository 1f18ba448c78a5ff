package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/llmd"
	"github.com/aiperf-go/aiperf/internal/results"
)

// newLLMDReportCommand builds `aiperf llmd-report RUN...`: every run's
// summary as an llm-d benchmark report next to it.
func newLLMDReportCommand(env *Env) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "llmd-report RUN...",
		Short: "Write finished runs as llm-d benchmark reports (benchmark_report.yaml)",
		Long: `Convert finished runs, this tool's or AIPerf's, into llm-d benchmark reports
(schema v0.2 of github.com/llm-d/llm-d-benchmark, also valid as v0.2.1), so
the results drop into llm-d tooling. Each RUN is a run directory, or a
directory holding runs (a sweep, repeated runs, several models): every
profile_export_aiperf.json below it gets a benchmark_report.yaml beside it.
With one run, --output writes the report elsewhere ("-" for stdout).

Latencies are in seconds; TPOT is AIPerf's inter_token_latency, ITL the
pooled inter_chunk_latency, NTPOT comes from profile_export.jsonl when it
exists. profile --llmd-report writes the same file at the end of a run.

Exit codes: 0 success; 1 a run could not be read or written; 2 bad arguments.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var dirs []string
			for _, a := range args {
				found, err := runDirs(a)
				if err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: err}
				}
				dirs = append(dirs, found...)
			}
			if output != "" && len(dirs) != 1 {
				return &config.ExitError{Code: config.ExitUsage, Err: fmt.Errorf("--output needs exactly one run, found %d", len(dirs))}
			}
			o := llmd.Options{ToolVersion: env.Version.Version}
			for _, d := range dirs {
				summary, records := filepath.Join(d, results.SummaryName), filepath.Join(d, results.RecordsName)
				if output == "-" {
					r, err := llmd.FromFiles(summary, records, o)
					if err != nil {
						return &config.ExitError{Code: config.ExitFailure, Err: err}
					}
					b, err := r.Marshal()
					if err != nil {
						return &config.ExitError{Code: config.ExitFailure, Err: err}
					}
					_, err = cmd.OutOrStdout().Write(b)
					return err
				}
				out := filepath.Join(d, llmd.FileName)
				if output != "" {
					out = output
				}
				if err := llmd.Write(summary, records, out, o); err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("%s: %w", d, err)}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "llm-d benchmark report: %s\n", out)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringVarP(&output, "output", "o", "", "With one run: write the report to this file instead of beside the run (\"-\" for stdout).")
	return cmd
}

// runDirs lists the run directories at path: the directory of a summary
// file, or every directory below path that holds a summary, in path order.
func runDirs(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{filepath.Dir(path)}, nil
	}
	var dirs []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == results.SummaryName {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s: no %s in it or below it", path, results.SummaryName)
	}
	return dirs, nil
}
