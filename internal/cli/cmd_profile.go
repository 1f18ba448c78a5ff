package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/search"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// profileLong is the long help of `aiperf profile`, exit codes included.
const profileLong = `Benchmark an inference server: send synthetic prompts at a fixed concurrency or
request rate, then report latency, time to first token, inter-token latency,
throughput and goodput on the console and in artifacts/ (JSON, CSV, JSONL).

Flags take AIPerf's names and aliases, in kebab-case or snake_case
(--request-count, --request_count, --num-requests).

Examples:
  aiperf profile --mock-server -m mock-model --streaming
  aiperf profile -m my-model -u localhost:8000 --streaming --concurrency 8 --request-count 100
  aiperf profile -m my-model --endpoint-type completions --request-rate 20 --benchmark-duration 60

Exit codes:
  0    the run finished and at least one request succeeded
  1    the run failed: every request failed (errors and cancellations alike),
       the endpoint was not ready within --wait-for-model-timeout (nothing
       sent), or the run could not start or write its artifacts
  2    invalid flags or configuration (every problem is listed); nothing ran
  3    aborted: the failed fraction of requests exceeded
       --failed-request-threshold; requests in flight were cancelled
  130  interrupted by SIGINT or SIGTERM (a second signal stops at once)
Whenever requests were sent, every artifact is written, whatever the code.
`

// profileCommand is `aiperf profile`: its flags are bound to cfg.
type profileCommand struct {
	cmd *cobra.Command
	env *Env
	cfg config.Config
	// valueProblems are values that did not parse, found while cobra
	// parsed the flags.
	valueProblems problemList
	// scanProblems are unknown flags and missing values, found by
	// prepareProfileArgs before cobra ran.
	scanProblems []error
	// spelled maps canonical flags to the alias the user typed.
	spelled map[string]string
	// rawArgs is the command line as typed, starting with "profile".
	rawArgs []string
	// cf is what the -f/--config file contributed (flags_configfile.go).
	cf configFileState
	// plan is the search of the command line (search.go); nil for none.
	plan *search.Plan
}

// newProfileCommand builds `aiperf profile` bound to a fresh config.
func newProfileCommand(env *Env) *profileCommand {
	p := &profileCommand{env: env, cfg: config.Defaults()}
	p.cmd = &cobra.Command{
		Use:   "profile",
		Short: "Benchmark an inference server",
		Long:  profileLong,
		// Positional arguments are reported with the other problems.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return p.run(cmd.Context(), args)
		},
	}
	fs := p.cmd.Flags()
	registerProfileFlags(fs, &p.cfg, &p.valueProblems)
	fs.BoolP("help", "h", false, "Show this help and exit.")
	p.cmd.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		if err := groupedHelp(cmd.OutOrStdout(), cmd, profileGroups()); err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), err)
		}
	})
	registerChoiceCompletions(p.cmd)
	return p
}

// prepare reads a profile command line (args[0] is "profile") as Main
// does before cobra parses it: unknown flags and missing values become
// problems, the aliases typed are noted, and the -f/--config file is
// applied when loadConfig. It returns the flags left for cobra.
func (p *profileCommand) prepare(args []string, loadConfig bool) []string {
	p.rawArgs = args
	clean, problems, spelled := prepareProfileArgs(p.cmd.Flags(), args[1:])
	p.scanProblems, p.spelled = problems, spelled
	if loadConfig {
		p.loadConfigFile(clean)
	}
	return clean
}

// check validates the parsed command line (args are its positional
// arguments) and completes p: every problem as one usage error, nil when
// the benchmark can run. It starts nothing and writes nothing.
func (p *profileCommand) check(args []string) error {
	var problems []error
	problems = append(problems, p.scanProblems...)
	for _, a := range args {
		problems = append(problems, fmt.Errorf("unexpected argument %q: profile takes only flags", a))
	}
	problems = append(problems, p.cf.problems...)
	problems = append(problems, p.valueProblems.errs...)
	p.cfg.Output.ArtifactDirExplicit = p.cfg.Output.ArtifactDirExplicit || p.cmd.Flags().Changed("output-artifact-dir")
	p.cfg.Given = explicitFlags(p.cmd.Flags())
	if len(p.cf.problems) == 0 {
		// A config file that did not load left the configuration half
		// applied: checking it would add problems the file does not have
		// (a spurious "model required" when the models key was fine).
		problems = append(problems, unjoin(p.cfg.ApplyHTTPEnv(p.env.Getenv))...)
		problems = append(problems, unjoin(p.cfg.Validate())...)
		problems = append(problems, plotConfigProblems(&p.cfg)...)
		problems = append(problems, nonTextEndpointProblems(p.cmd.Flags(), p.cfg.Endpoint.Type)...)
	}
	if len(problems) == 0 {
		var errs []error
		p.plan, errs = p.searchPlan(&p.cfg)
		problems = append(problems, errs...)
	}
	if len(problems) == 0 && len(p.cfg.Search.Variants) > 0 {
		var errs []error
		p.cf.vars, errs = p.variantVariations(p.cfg)
		problems = append(problems, errs...)
	} else if len(problems) == 0 && p.plan == nil {
		problems = append(problems, p.expandSweep()...)
	}
	if len(problems) == 0 {
		problems = append(problems, p.applyScenario()...)
	}
	if len(problems) > 0 {
		return &usageError{command: "aiperf profile", problems: p.inUserWords(problems)}
	}
	return nil
}

// run validates the command line and, when it is usable, runs the
// benchmark.
func (p *profileCommand) run(ctx context.Context, args []string) error {
	if err := p.check(args); err != nil {
		return err
	}
	if p.env.Runner == nil {
		return &runError{errors.New("no profile runner configured")}
	}

	cfg := p.cfg
	stop, err := p.startMock(&cfg)
	if err != nil {
		return err
	}
	defer stop()
	rio := RunIO{
		Stdout:     p.env.Stdout,
		Stderr:     p.env.Stderr,
		IsTTY:      p.env.IsTTY,
		CLICommand: commandLine(p.cmd.Flags(), p.rawArgs),
		Abort:      p.env.abort,
		Variations: p.variations(cfg),
		Search:     p.plan,
		Getenv:     p.env.Getenv,
		Env:        p.env.Snapshot,
	}
	err = p.env.Runner(ctx, &cfg, rio)
	switch {
	case err != nil:
		return &runError{err}
	case ctx.Err() != nil:
		return &config.ExitError{Code: config.ExitInterrupted}
	}
	return nil
}

// inUserWords names each problem's flag the way the user typed it, with
// the canonical name in parentheses: "--isl (--prompt-input-tokens-mean)".
func (p *profileCommand) inUserWords(problems []error) []error {
	out := make([]error, len(problems))
	for i, err := range problems {
		out[i] = err
		var fe *config.FieldError
		if errors.As(err, &fe) {
			if typed, ok := p.spelled[fe.Flag]; ok {
				out[i] = &config.FieldError{Flag: typed + " (" + fe.Flag + ")", Problem: fe.Problem, Err: fe.Err}
			}
		}
	}
	return out
}

// startMock starts the embedded mock when cfg asks for it (--mock-server)
// and points cfg at it; stop closes it (a no-op without one).
func (p *profileCommand) startMock(cfg *config.Config) (stop func(), err error) {
	if !cfg.Endpoint.MockServer {
		return func() {}, nil
	}
	stop, err = startEmbeddedMock(cfg, p.env.Stderr)
	if err != nil {
		return nil, &runError{err}
	}
	return stop, nil
}

// startEmbeddedMock starts the mock server for --mock-server on a free
// loopback port, counting prompt tokens with the built-in tokenizer, and
// points cfg at it. stop closes it.
func startEmbeddedMock(cfg *config.Config, stderr io.Writer) (stop func(), err error) {
	mcfg := mockserver.DefaultConfig()
	tok, err := tokenizer.Resolve(tokenizer.BuiltinAlias, "")
	if err != nil {
		return nil, fmt.Errorf("--mock-server: %w", err)
	}
	mcfg.CountTokens = tok.Count
	// Its fake GPUs only when asked for with --gpu-telemetry: their power
	// and energy figures are invented (two "NVIDIA H200" at up to 700 W),
	// and unlabelled they read like a measurement of this machine.
	mcfg.DCGM.Enabled = cfg.Telemetry.GPU.Requested && !cfg.Telemetry.GPU.Disabled && cfg.Telemetry.GPU.Collector == ""
	srv, err := mockserver.Start(mcfg, "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("--mock-server: %w", err)
	}
	cfg.Endpoint.URLs = []string{srv.URL()}
	if u := srv.DCGMURL(); u != "" {
		cfg.Telemetry.GPU.URLs = append(cfg.Telemetry.GPU.URLs, u)
		cfg.Telemetry.GPU.Requested = true
		fmt.Fprintf(stderr, "GPU telemetry comes from the mock's simulated DCGM exporter at %s: its %d GPUs, their power, memory and energy are invented, not measured\n", u, mcfg.DCGM.GPUs)
	}
	// The mock counts every token before writing it: its metrics are final
	// when the last response is, so the final scrape needs no flush wait.
	noFlush := 0.0
	cfg.Telemetry.ServerMetrics.FlushSeconds = &noFlush
	fmt.Fprintf(stderr, "Benchmarking the built-in mock server at %s\n", srv.URL())
	return func() {
		if err := srv.Close(); err != nil {
			fmt.Fprintf(stderr, "mock server: %v\n", err)
		}
	}, nil
}

// registerChoiceCompletions offers each enum flag's choices to shell
// completion.
func registerChoiceCompletions(cmd *cobra.Command) {
	for _, name := range []string{"endpoint-type", "arrival-pattern", "export-level", "ui-type", "log-level"} {
		f := cmd.Flags().Lookup(name)
		choices := f.Annotations[annChoices]
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(choices, cobra.ShellCompDirectiveNoFileComp))
	}
}

// unjoin splits an errors.Join result into its errors.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
