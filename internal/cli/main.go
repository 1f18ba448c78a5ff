// Package cli is the `aiperf` command line: it maps arguments onto a
// config.Config, runs the chosen command, and turns the outcome into a
// process exit code. It does nothing else; the benchmark itself is the
// ProfileRunner it is given.
//
// All process state (arguments, standard streams, environment, terminal
// detection, the runner) arrives through Env, so the whole CLI runs
// in-process in tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/experiment"
	"github.com/aiperf-go/aiperf/internal/search"
)

// Build identification. A release build stamps it at link time (the
// README's build command):
//
//	go build -ldflags "-X github.com/aiperf-go/aiperf/internal/cli.buildVersion=$(git describe --tags --always --dirty)" ./cmd/...
//
// (buildCommit likewise). Unset, the version comes from what the Go
// toolchain stamped into the binary; see resolveVersion. Read through
// stamped only.
var (
	buildVersion string
	buildCommit  string
)

// stamped is this binary's identification.
var stamped = sync.OnceValue(func() VersionInfo {
	info, _ := debug.ReadBuildInfo()
	return resolveVersion(buildVersion, buildCommit, info)
})

// VersionInfo identifies the build, for `aiperf version`.
type VersionInfo struct {
	Version   string
	Commit    string
	GoVersion string // e.g. "go1.26.8"; runtime.Version() when empty
	// Build says how the binary was built: cgo, tags, static or not; ""
	// when unknown.
	Build string
}

// RunIO is what a profile run may touch of the process besides its
// configuration.
type RunIO struct {
	Stdout, Stderr io.Writer
	// IsTTY reports whether Stdout is a terminal (for the UI default).
	IsTTY bool
	// CLICommand is the command line as typed, secrets redacted, for
	// artifacts (AIPerf's cli_command): "aiperf profile -m 'x' ...".
	CLICommand string
	// Abort is closed by a second interrupt: cancel the requests in flight
	// at once instead of draining them, and still write every artifact.
	// nil never closes.
	Abort <-chan struct{}
	// Variations are the configurations of a parameter sweep, each with
	// cfg's experiment options; nil or one entry = no sweep.
	Variations []config.Variation
	// Search is the search to run (--search-space, --search-recipe);
	// nil = none. Its points vary cfg.
	Search *search.Plan
	// Getenv reads the environment (integration credentials, tunables);
	// nil reads nothing.
	Getenv func(string) string
	// Env is the environment snapshot the benchmark reads (Env.Snapshot).
	Env environ.Snapshot
}

// ProfileRunner runs one benchmark. cfg has been validated. It returns nil
// on success, a *config.ExitError to choose the exit code, or any other
// error for exit code 1. Cancellation of ctx (SIGINT/SIGTERM) asks it to
// stop gracefully and leads to exit code 130.
type ProfileRunner func(ctx context.Context, cfg *config.Config, io RunIO) error

// Env is the process state the CLI runs with.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads an environment variable; nil reads none.
	Getenv func(string) string
	// Snapshot is the environment read once at start, handed to the
	// benchmark (which reads no process environment); nil: none set.
	Snapshot environ.Snapshot
	// IsTTY reports whether Stdout is a terminal.
	IsTTY bool
	// Runner runs `aiperf profile`.
	Runner ProfileRunner
	// Version identifies the build.
	Version VersionInfo
	// NotifySignals makes Main cancel its context on the first SIGINT or
	// SIGTERM (a graceful stop) and abort the run on the second (requests
	// in flight cancelled, artifacts still written); see watchInterrupts.
	// Only OSEnv sets it: tests cancel the context themselves.
	NotifySignals bool
	// Kube builds the `aiperf kube` command where this program has it
	// (aiperf-kube, through internal/kubecli); nil hands `aiperf kube ...`
	// to the aiperf-kube program (see runKubeBinary).
	Kube func(*Env) *cobra.Command

	// abort is closed by the second interrupt; nil (never closed) unless
	// NotifySignals.
	abort <-chan struct{}
}

// OSEnv returns the real process environment. Its Runner is a placeholder
// until the benchmark is wired in.
func OSEnv() Env {
	snap := environ.Read() // read once, at start
	return Env{
		Stdin:         os.Stdin,
		Stdout:        os.Stdout,
		Stderr:        os.Stderr,
		Getenv:        snap.Getenv,
		Snapshot:      snap,
		IsTTY:         term.IsTerminal(int(os.Stdout.Fd())),
		Runner:        RunBenchmark,
		Version:       stamped(),
		NotifySignals: true,
	}
}

// RunBenchmark is the real ProfileRunner: it runs cfg with
// internal/benchmark, sizing tables to the terminal when there is one.
func RunBenchmark(ctx context.Context, cfg *config.Config, rio RunIO) error {
	width := 0
	if rio.IsTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			width = w
		}
	}
	bio := benchmark.IO{
		Stdout: rio.Stdout, Stderr: rio.Stderr, IsTTY: rio.IsTTY, Width: width,
		CLICommand: rio.CLICommand, Version: stamped().Version, Abort: rio.Abort, Env: rio.Env,
	}
	single := rio.Search == nil && len(rio.Variations) <= 1 && cfg.Experiment.NumProfileRuns <= 1
	integ, err := startIntegrations(cfg, rio, &bio, single) // API, OTel, MLflow, W&B
	if err != nil {
		return err
	}
	err = runProfile(ctx, cfg, rio, bio)
	integ.finish(ctx, err)
	return err
}

// runProfile runs one benchmark, an experiment or a search.
func runProfile(ctx context.Context, cfg *config.Config, rio RunIO, bio benchmark.IO) error {
	if rio.Search != nil {
		return experiment.RunSearch(ctx, *cfg, rio.Search, bio)
	}
	if len(rio.Variations) > 1 || cfg.Experiment.NumProfileRuns > 1 {
		vars := rio.Variations
		if len(vars) == 0 {
			vars = []config.Variation{{Label: "base", Config: *cfg}}
		}
		err := experiment.RunExperiment(ctx, vars, bio)
		return autoPlot(&vars[0].Config, benchmark.ArtifactDir(&vars[0].Config), err, rio.Stderr)
	}
	return autoPlot(cfg, benchmark.ArtifactDir(cfg), benchmark.Run(ctx, cfg, bio), rio.Stderr)
}

// withDefaults fills unset streams and functions with harmless ones.
func (e Env) withDefaults() Env {
	if e.Stdin == nil {
		e.Stdin = eofReader{}
	}
	if e.Stdout == nil {
		e.Stdout = io.Discard
	}
	if e.Stderr == nil {
		e.Stderr = io.Discard
	}
	if e.Getenv == nil {
		e.Getenv = func(string) string { return "" }
	}
	if e.Version.Version == "" {
		e.Version.Version = "dev"
	}
	if e.Version.Commit == "" {
		e.Version.Commit = "dev"
	}
	if e.Version.GoVersion == "" {
		e.Version.GoVersion = runtime.Version()
	}
	return e
}

// eofReader is an empty stdin.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// Main runs the aiperf command line args (without the program name) and
// returns the process exit code:
//
//	0   success
//	1   the run failed (every request failed, or it could not finish)
//	2   invalid usage or configuration; nothing ran
//	130 interrupted (SIGINT/SIGTERM, or ctx cancelled); artifacts are
//	    written after one interrupt and after two
//
// Errors are printed to env.Stderr.
func Main(ctx context.Context, args []string, env Env) int {
	env = env.withDefaults()
	if len(args) > 0 && args[0] == "kube" && env.Kube == nil {
		// Before the profiles and signal handlers: the companion may
		// replace this process.
		return runKubeBinary(ctx, env, args[1:])
	}
	defer startCPUProfile(env.Getenv, env.Stderr)()
	defer startHeapProfile(env.Getenv, env.Stderr)()
	if env.NotifySignals {
		var stop func()
		ctx, env.abort, stop = watchInterrupts(ctx, env.Stderr)
		defer stop()
	}

	if len(args) > 0 && args[0] == "service" { // `aiperf service` runs a profile
		pargs, help, err := serviceArgs(args[1:], env.Getenv)
		switch {
		case help:
			fmt.Fprint(env.Stdout, serviceHelp)
			return 0
		case err != nil:
			report(env.Stderr, &usageError{command: "aiperf service", problems: []error{err}})
			return config.ExitUsage
		}
		args = pargs
	}
	root, profile := newRootCommand(&env)
	if len(args) > 0 && args[0] == profile.cmd.Name() {
		args = append([]string{args[0]}, profile.prepare(args, true)...)
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := exitCode(ctx, err)
	if err != nil {
		report(env.Stderr, err)
	}
	return code
}

// newRootCommand builds the command tree. It returns the profile command
// too, whose arguments Main prepares before cobra parses them.
func newRootCommand(env *Env) (*cobra.Command, *profileCommand) {
	root := &cobra.Command{
		Use:   "aiperf",
		Short: "Benchmark generative AI inference servers",
		Long: "aiperf measures the performance of OpenAI-compatible inference servers: latency,\n" +
			"time to first token, inter-token latency, throughput and goodput.\n" +
			"It is a Go implementation of NVIDIA AIPerf with the same flags and artifacts.",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       versionLine(env.Version),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	profile := newProfileCommand(env)
	root.AddCommand(profile.cmd, newMockServerCommand(env), newVersionCommand(env), newTokenizeCommand(env), newAnalyzeTraceCommand(env), newConfigCommand(env), newCompareCommand(env), newLLMDReportCommand(env), newPlotCommand(env), newAnalyzeCommand(env))
	root.AddCommand(newPluginsCommand(env), newEnvCommand(env))
	root.AddCommand(newChatCommand(env), newSpeedBenchCommand(env), newServiceCommand())
	root.AddCommand(newSynthesizeCommand(env), newValidateCommand(env))
	root.AddCommand(newDoctorCommand(env), newSelftestCommand(env))
	kube := newKubeStubCommand
	if env.Kube != nil {
		kube = env.Kube
	}
	root.AddCommand(newClusterWorkerCommand(env), kube(env))
	return root, profile
}

// usageError is a command line or configuration that cannot run; it lists
// every problem found.
type usageError struct {
	command  string // e.g. "aiperf profile"
	problems []error
}

func (e *usageError) Error() string { return errors.Join(e.problems...).Error() }

// write prints the problems, one per line, and where to find help.
func (e *usageError) write(w io.Writer) {
	noun := "problems"
	if len(e.problems) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(w, "Error: invalid %s usage (%d %s):\n", e.command, len(e.problems), noun)
	for _, p := range e.problems {
		fmt.Fprintf(w, "  %v\n", p)
	}
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", e.command)
}

// runError is an error returned by a run, as opposed to a usage error.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// exitCode maps the outcome of a command to the process exit code.
func exitCode(ctx context.Context, err error) int {
	if err == nil {
		return config.ExitOK
	}
	var ee *config.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return config.ExitUsage
	}
	var re *runError
	if errors.As(err, &re) {
		if ctx.Err() != nil {
			return config.ExitInterrupted
		}
		return config.ExitFailure
	}
	// Anything else comes from cobra itself: unknown command, bad flag of
	// a command other than profile, wrong arguments.
	return config.ExitUsage
}

// report prints err for the user.
func report(w io.Writer, err error) {
	var ue *usageError
	if errors.As(err, &ue) {
		ue.write(w)
		return
	}
	var ee *config.ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return
	}
	fmt.Fprintf(w, "Error: %v\n", err)
	var re *runError
	if !errors.As(err, &re) && (ee == nil) {
		fmt.Fprintln(w, "Run 'aiperf --help' for usage.")
	}
}
