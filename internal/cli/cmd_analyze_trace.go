package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// newAnalyzeTraceCommand builds `aiperf analyze-trace`: the ISL/OSL
// distributions and theoretical prefix-cache hit rate of a mooncake trace,
// as a table on stdout and, with --output-file, as JSON.
func newAnalyzeTraceCommand(env *Env) *cobra.Command {
	var file, out string
	var block int
	cmd := &cobra.Command{
		Use:   "analyze-trace",
		Short: "Analyze a mooncake trace: ISL/OSL distributions and prefix-cache hit rate",
		Long: `Read a mooncake trace (JSONL with input_length, output_length and hash_ids)
and report its input, output, shared-context and unique-prompt length
distributions and the theoretical prefix-cache hit rate with an infinite
cache: per request, the fraction of its hash-id blocks before the first block
no earlier request used. --output-file also writes the statistics as JSON
(AIPerf's AnalysisStats fields).

As in AIPerf, the three parameters may also be given in order as
positional arguments: INPUT-FILE [BLOCK-SIZE [OUTPUT-FILE]].

Examples:
  aiperf analyze-trace --input-file trace.jsonl --block-size 512 --output-file report.json
  aiperf analyze-trace trace.jsonl 512 report.json`,
		Args: cobra.MaximumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := analyzeTracePositional(cmd, args, &file, &block, &out); err != nil {
				return err
			}
			s, err := benchmark.AnalyzeTrace(file, block)
			if err != nil {
				return err
			}
			printTraceStats(cmd.OutOrStdout(), s)
			if out != "" {
				b, err := json.MarshalIndent(s, "", "  ")
				if err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return fmt.Errorf("--output-file: %w", err)
				}
				if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("--output-file: %w", err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "\nAnalysis report saved to %s\n", out)
			}
			return nil
		},
	}
	_ = env
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringVar(&file, "input-file", "", "Mooncake trace (JSONL) to analyze (or the first positional argument). Required.")
	fs.IntVar(&block, "block-size", 512, "Tokens per hash_ids block (or the second positional argument).")
	fs.StringVar(&out, "output-file", "", "Also write the statistics as JSON to this file (or the third positional argument).")
	return cmd
}

// analyzeTracePositional fills the parameters given positionally
// (INPUT-FILE BLOCK-SIZE OUTPUT-FILE, AIPerf's order); the same parameter
// given both ways is an error, as is a missing input file.
func analyzeTracePositional(cmd *cobra.Command, args []string, file *string, block *int, out *string) error {
	fs := cmd.Flags()
	for i, a := range args {
		name := []string{"input-file", "block-size", "output-file"}[i]
		if fs.Changed(name) {
			return fmt.Errorf("--%s given both as a flag and as positional argument %d (%q)", name, i+1, a)
		}
		switch i {
		case 0:
			*file = a
		case 1:
			n, err := strconv.Atoi(a)
			if err != nil {
				return fmt.Errorf("positional argument 2 (block size): %q is not an integer", a)
			}
			*block = n
		case 2:
			*out = a
		}
	}
	if *file == "" {
		return fmt.Errorf("the input file is required: aiperf analyze-trace INPUT-FILE (or --input-file)")
	}
	return nil
}

// printTraceStats writes the report AIPerf prints: the counts, then one
// row per distribution (N/A when it has no values).
func printTraceStats(w io.Writer, s *benchmark.TraceStats) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Trace Analysis Report")
	fmt.Fprintf(w, "Total requests:   %s\n", pyfmt.GroupedInt(s.TotalRequests))
	fmt.Fprintf(w, "Unique prefixes:  %s\n", pyfmt.GroupedInt(s.UniquePrefixes))
	fmt.Fprintf(w, "Prefix groups:    %s\n", pyfmt.GroupedInt(s.NumPrefixGroups))
	fmt.Fprintf(w, "Theoretical cache hit rate: %.2f%% (block size %d)\n\n", 100*s.CacheHitRate, s.BlockSize)
	cols := []string{"Mean", "Std Dev", "Min", "P25", "Median", "P75", "Max"}
	fmt.Fprintf(w, "%22s", "Metric")
	for _, c := range cols {
		fmt.Fprintf(w, " %12s", c)
	}
	fmt.Fprintln(w)
	for _, r := range []struct {
		name string
		d    *benchmark.TraceDist
	}{
		{"Input Length", s.ISL}, {"Context Length", s.ContextLength},
		{"Unique Prompt Length", s.UniquePromptLength}, {"Output Length", s.OSL},
		{"Theoretical Hit Rates", s.HitRate},
	} {
		fmt.Fprintf(w, "%22s", r.name)
		if r.d == nil {
			for range cols {
				fmt.Fprintf(w, " %12s", "N/A")
			}
		} else {
			for _, v := range []float64{r.d.Mean, r.d.Stddev, r.d.Min, r.d.P25, r.d.Median, r.d.P75, r.d.Max} {
				fmt.Fprintf(w, " %12s", strconv.FormatFloat(v, 'f', 2, 64))
			}
		}
		fmt.Fprintln(w)
	}
}
