package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	plotreport "github.com/aiperf-go/aiperf/internal/report"
)

// newAnalyzeCommand builds `aiperf analyze`, AIPerf's views of one run's
// requests: swim-lane and turn-messages.
func newAnalyzeCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "analyze",
		Short: "Views of a finished run's requests: swim lanes, per-turn messages",
		Long: `Views of the requests of finished runs, from their artifacts:

  swim-lane      one lane per session with each request's time on it, and the
                 requests in flight underneath (PNG, and --html)
  turn-messages  a collapsible HTML viewer of the messages each turn sent
                 (needs --export-level raw)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSwimLaneCommand(env), newTurnMessagesCommand(env))
	return cmd
}

// runDirsArgs joins positional run directories and --run-dirs, and
// checks --out against them.
func runDirsArgs(args, flagDirs []string, out string) ([]string, error) {
	dirs := append(append([]string{}, args...), flagDirs...)
	if len(dirs) == 0 {
		return nil, &config.ExitError{Code: config.ExitUsage, Err: errors.New("at least one run directory is required")}
	}
	if out != "" && len(dirs) > 1 {
		return nil, &config.ExitError{Code: config.ExitUsage, Err: errors.New("--out is only valid with a single run directory")}
	}
	return dirs, nil
}

func newSwimLaneCommand(env *Env) *cobra.Command {
	var runDirs []string
	var out, theme string
	var conc int
	var ramp float64
	var html bool
	cmd := &cobra.Command{
		Use:   "swim-lane RUN_DIR...",
		Short: "Per-session swim lanes with the requests in flight underneath",
		Long: `Draw one lane per session (conversation) of a run, each request a bar from
its send to its last byte (the wait for the first token in its own colour,
failures apart), with the number of requests in flight over time underneath:
where the load ramped, stalled or queued. Reads profile_export.jsonl; writes
<run>/swim_lane.png (and swim_lane.html with --html). Above 300 sessions,
sessions share lanes (each to the first lane free when it starts).

Examples:
  aiperf analyze swim-lane artifacts/my-run
  aiperf analyze swim-lane artifacts/run-a artifacts/run-b
  aiperf analyze swim-lane artifacts/my-run -c 32 --html

Exit codes: 0 drawn; 1 a run could not be drawn (the others still are); 2 bad arguments.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := runDirsArgs(args, runDirs, out)
			if err != nil {
				return err
			}
			th, err := plotreport.ThemeNamed(theme)
			if err != nil {
				return &config.ExitError{Code: config.ExitUsage, Err: err}
			}
			return eachRunDir(cmd, dirs, func(dir string) ([]string, error) {
				return plotreport.SwimLane(dir, plotreport.SwimLaneOptions{Concurrency: conc, Ramp: ramp, Out: out, HTML: html, Theme: th})
			})
		},
	}
	_ = env
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringSliceVar(&runDirs, "run-dirs", nil, "Run directories (also as arguments).")
	fs.StringVarP(&out, "out", "o", "", "Output PNG (one run directory only); default <run>/swim_lane.png.")
	fs.IntVarP(&conc, "concurrency", "c", 0, "Draw the target concurrency as a reference line.")
	fs.Float64Var(&ramp, "ramp", 0, "Mark the end of a ramp, in seconds from the first request.")
	fs.BoolVar(&html, "html", false, "Also write an interactive HTML view beside the PNG.")
	fs.StringVar(&theme, "theme", "light", "Colour theme: light or dark.")
	return cmd
}

func newTurnMessagesCommand(env *Env) *cobra.Command {
	var runDirs []string
	var out string
	var o plotreport.TurnMessagesOptions
	cmd := &cobra.Command{
		Use:   "turn-messages RUN_DIR...",
		Short: "A collapsible HTML viewer of the messages each turn sent",
		Long: `Write a self-contained HTML viewer of the input messages a run sent:
conversation -> turn -> message, each a collapsible section built when it is
opened, from the raw records (run with --export-level raw:
profile_export_raw.jsonl or raw_records/*.jsonl). Writes
<run>/turn_messages.html; it needs no network.

Examples:
  aiperf analyze turn-messages artifacts/my-run
  aiperf analyze turn-messages artifacts/my-run -o /tmp/msgs.html -n 1000 --content-cap 1000000

Exit codes: 0 written; 1 a run has no raw records (the others are still written); 2 bad arguments.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := runDirsArgs(args, runDirs, out)
			if err != nil {
				return err
			}
			if o.LimitConversations < 1 || o.MaxTurns < 1 || o.ContentCap < 1 {
				return &config.ExitError{Code: config.ExitUsage, Err: errors.New("--limit-conversations, --max-turns and --content-cap must be at least 1")}
			}
			return eachRunDir(cmd, dirs, func(dir string) ([]string, error) {
				oo := o
				oo.Out = out
				p, err := plotreport.TurnMessages(dir, oo)
				return []string{p}, err
			})
		},
	}
	_ = env
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	fs.StringSliceVar(&runDirs, "run-dirs", nil, "Run directories (also as arguments).")
	fs.StringVarP(&out, "out", "o", "", "Output HTML (one run directory only); default <run>/turn_messages.html.")
	fs.IntVarP(&o.LimitConversations, "limit-conversations", "n", 40, "At most this many conversations (root conversations first, then by first request).")
	fs.IntVar(&o.MaxTurns, "max-turns", 60, "At most this many turns per conversation; the rest are counted.")
	fs.IntVar(&o.ContentCap, "content-cap", 8000, "Characters kept per message body; longer ones are cut with a note.")
	return cmd
}

// eachRunDir runs draw on every directory, reporting each result; a
// failed directory is reported and skipped, and makes the exit code 1.
func eachRunDir(cmd *cobra.Command, dirs []string, draw func(string) ([]string, error)) error {
	failures := 0
	for _, d := range dirs {
		files, err := draw(d)
		if err != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "skip %s: %v\n", d, err)
			failures++
			continue
		}
		for _, f := range files {
			fmt.Fprintf(cmd.OutOrStdout(), "saved %s\n", f)
		}
	}
	if failures > 0 {
		return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("%d of %d run director%s could not be drawn", failures, len(dirs), map[bool]string{true: "y", false: "ies"}[len(dirs) == 1])}
	}
	return nil
}
