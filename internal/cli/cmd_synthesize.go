package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/agenticcode"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
)

// newSynthesizeCommand builds `aiperf synthesize agentic-code`: AIPerf
// 0.13's session synthesizer, writing a run directory whose dataset.jsonl
// is a mooncake trace.
func newSynthesizeCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "synthesize TARGET",
		Short: "Synthesize a dataset workload (agentic-code)",
		Long: `Synthesize a dataset workload into a new run directory. The one target, as in
AIPerf 0.13, is agentic-code: multi-turn coding-agent sessions over a layered
prefix-cache model, written as a mooncake trace (dataset.jsonl) that
'aiperf profile --custom-dataset-type mooncake_trace --input-file' replays.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSynthesizeAgenticCodeCommand(env))
	return cmd
}

func newSynthesizeAgenticCodeCommand(env *Env) *cobra.Command {
	var o agenticcode.Options
	var seed, maxISL, maxOSL int
	cmd := &cobra.Command{
		Use:   "agentic-code",
		Short: "Synthesize agentic-coding sessions as a mooncake trace",
		Long: `Draw --num-sessions agentic-coding sessions, as AIPerf 0.13's synthesizer does
(numpy's default_rng(--seed) in AIPerf's order, so the same seed and
configuration give AIPerf's dataset byte for byte), and write the run
directory OUTPUT/<config>_<n>s_seed<seed>_<UTC time>/ with:

  dataset.jsonl         the sessions as a mooncake trace (one row per turn)
  manifest.json         seed, session count and the whole configuration
                        (--config accepts it back to reproduce the run)
  quality.json          each distribution's target against what was drawn
  comparison.txt        the same as a table (also printed)
  cache_structure.json  every turn's hash-id blocks by cache layer
  report.html           distributions and context growth (inline SVG)
  cache_explorer.html   a viewer of cache_structure.json
  simulation.html       the trace replayed through a simple serving model
                        with a KV cache (concurrency 50)

--config takes a bundled configuration name (` + strings.Join(agenticcode.Bundled(), ", ") + `), a
configuration JSON file or an earlier run's manifest.json; without it the
built-in defaults are used. dataset.jsonl is validated as a mooncake trace
before the command succeeds.

Examples:
  aiperf synthesize agentic-code --num-sessions 1000 --output runs/
  aiperf synthesize agentic-code --config custom.json --num-sessions 500
  aiperf synthesize agentic-code --config runs/prev/manifest.json --num-sessions 1000
  aiperf synthesize agentic-code --max-isl 262144 --max-osl 10000

Exit codes: 0 success; 1 writing or validation failed; 2 bad arguments or configuration.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fs := cmd.Flags()
			var problems []error
			if seed < 0 {
				problems = append(problems, fmt.Errorf("--seed must not be negative, got %d", seed))
			}
			o.Seed = uint64(seed)
			if fs.Changed("max-isl") {
				o.MaxISL = &maxISL
			}
			if fs.Changed("max-osl") {
				o.MaxOSL = &maxOSL
			}
			if o.Sessions < 1 {
				problems = append(problems, fmt.Errorf("--num-sessions must be at least 1, got %d", o.Sessions))
			}
			if len(problems) > 0 {
				return &usageError{command: "aiperf synthesize agentic-code", problems: problems}
			}
			out := cmd.OutOrStdout()
			o.Progress = out
			r, err := agenticcode.Synthesize(o)
			if err != nil {
				var ce *agenticcode.ConfigError
				if errors.As(err, &ce) {
					return &usageError{command: "aiperf synthesize agentic-code", problems: []error{err}}
				}
				return &runError{err}
			}
			if len(r.Ignored) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "Warning: configuration keys not interpreted (accepted, as AIPerf does): %s\n", strings.Join(r.Ignored, ", "))
			}
			fmt.Fprintf(out, "Run directory: %s\n", r.Dir)
			fmt.Fprintf(out, "  JSONL:           %s (%d turns)\n", filepath.Join(r.Dir, "dataset.jsonl"), r.Turns)
			fmt.Fprintf(out, "  Manifest:        %s\n", filepath.Join(r.Dir, "manifest.json"))
			fmt.Fprintf(out, "  Quality:         %s\n", filepath.Join(r.Dir, "quality.json"))
			fmt.Fprintf(out, "  Validation:      Mooncake trace (%d rows)\n", r.Rows)
			fmt.Fprintf(out, "  Dashboard:       %s\n", filepath.Join(r.Dir, "report.html"))
			fmt.Fprintf(out, "  Cache explorer:  %s\n", filepath.Join(r.Dir, "cache_explorer.html"))
			fmt.Fprintf(out, "  Simulation:      %s\n\n", filepath.Join(r.Dir, "simulation.html"))
			fmt.Fprint(out, r.Comparison)
			return nil
		},
	}
	_ = env
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.IntVar(&o.Sessions, "num-sessions", 1000, "Number of sessions to generate.")
	fs.StringVar(&o.Output, "output", ".", "Parent directory of the run directory.")
	fs.StringVar(&o.Config, "config", "", "Bundled configuration name, configuration JSON or manifest.json (default: built-in defaults).")
	fs.IntVar(&seed, "seed", 42, "Random seed (numpy default_rng), for reproducibility.")
	fs.IntVar(&maxISL, "max-isl", 0, "Maximum input sequence length: overrides max_prompt_tokens.")
	fs.IntVar(&maxOSL, "max-osl", 0, "Maximum output sequence length: overrides generation_length.max.")
	return cmd
}

// newValidateCommand builds `aiperf validate mooncake-trace --input FILE`.
func newValidateCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate TARGET",
		Short: "Validate a benchmark artifact (mooncake-trace)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var input string
	mc := &cobra.Command{
		Use:   "mooncake-trace",
		Short: "Check that a JSONL file is a valid mooncake trace",
		Long: `Read every row of a mooncake trace as 'aiperf profile --custom-dataset-type
mooncake_trace' does and report each bad row with its file, line and field.

Example:
  aiperf validate mooncake-trace --input dataset.jsonl

Exit codes: 0 valid; 1 invalid rows or an unreadable file; 2 bad arguments.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input == "" {
				return &usageError{command: "aiperf validate mooncake-trace", problems: []error{fmt.Errorf("--input is required")}}
			}
			if st, err := os.Stat(input); err != nil || !st.Mode().IsRegular() {
				return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("validation failed: %s is not a file", input)}
			}
			rows, err := loader.ValidateMooncakeTrace(input)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("validation failed:\n%w", err)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Validation passed: %d rows are Mooncake-compatible.\n", rows)
			return nil
		},
	}
	_ = env
	mc.Flags().SetNormalizeFunc(normalizer(nil))
	mc.Flags().StringVar(&input, "input", "", "Path to the trace (JSONL, or .gz). Required.")
	cmd.AddCommand(mc)
	return cmd
}
