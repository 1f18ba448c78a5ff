package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/environ"
)

// KubeBinary is the companion program that holds `aiperf kube`: the
// Kubernetes client and operator live there so that aiperf itself links
// no Kubernetes library (a third of the binary, and most of its start-up
// time). aiperf runs it for `aiperf kube ...`.
const KubeBinary = "aiperf-kube"

// kubeHowTo says how to get the companion; it is printed whenever it is
// missing.
const kubeHowTo = "aiperf kube needs the " + KubeBinary + " program (the Kubernetes CLI and operator, a separate binary so that\n" +
	"aiperf stays small). Build it next to aiperf, from the same checkout:\n" +
	"  go build -o DIR ./cmd/...        # DIR is where aiperf is; builds aiperf and " + KubeBinary + "\n" +
	"or put " + KubeBinary + " on PATH. The container image (Dockerfile) has both."

// findKubeBinary returns the companion's path: the one next to the running
// executable first (the pair built together), then the one on PATH.
func findKubeBinary() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), KubeBinary)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(KubeBinary)
}

// runKubeBinary runs `aiperf-kube args...` for `aiperf kube args...` and
// returns its exit code. In the real process (env.NotifySignals) the
// companion replaces this process, so signals, the terminal and the exit
// code are its own; elsewhere (tests) it runs as a child on env's streams.
func runKubeBinary(ctx context.Context, env Env, args []string) int {
	path, err := findKubeBinary()
	if err != nil {
		fmt.Fprintf(env.Stderr, "Error: %s was not found next to this program or on PATH.\n%s\n", KubeBinary, kubeHowTo)
		return config.ExitFailure
	}
	if env.NotifySignals {
		err := execReplace(path, append([]string{path}, args...), environ.Environ())
		// Only reached when the process could not be replaced (or on a
		// platform without exec): run it as a child instead.
		if !errors.Is(err, errExecUnsupported) {
			fmt.Fprintf(env.Stderr, "Error: run %s: %v\n", path, err)
			return config.ExitFailure
		}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return config.ExitOK
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	case ctx.Err() != nil:
		return config.ExitInterrupted
	default:
		fmt.Fprintf(env.Stderr, "Error: run %s: %v\n", path, err)
		return config.ExitFailure
	}
}

// newKubeStubCommand is `aiperf kube` in a build without the Kubernetes
// CLI: it lists the command in the help and says what it runs. Main hands
// `aiperf kube ...` to the companion before cobra sees it; this runs only
// for `aiperf help kube`.
func newKubeStubCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:                "kube",
		Short:              "Run a benchmark on Kubernetes (runs the " + KubeBinary + " program)",
		Long:               "aiperf kube ARGS runs `" + KubeBinary + " ARGS`.\n" + kubeHowTo,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := runKubeBinary(cmd.Context(), *env, args); code != 0 {
				return &config.ExitError{Code: code}
			}
			return nil
		},
	}
}

// The functions below are what the aiperf-kube program (internal/kubecli)
// uses of this command line: the same usage errors, config loading and
// template listings as aiperf's own commands.

// UsageError is a usage error of command (e.g. "aiperf kube init"): it is
// reported with one line per problem and exits with code 2.
func UsageError(command string, problems ...error) error {
	return &usageError{command: command, problems: problems}
}

// Problems splits an errors.Join into its errors, for UsageError.
func Problems(err error) []error { return unjoin(err) }

// CheckConfigFile loads and validates a benchmark config file as
// `aiperf config validate` does and returns a one-line summary of it ("no
// sweep", "grid sweep of 4 variations").
func CheckConfigFile(env *Env, path string) (summary string, err error) {
	f, vars, err := loadForCommand(env, path)
	if err != nil {
		return "", err
	}
	return sweepSummary(f, vars), nil
}

// TemplateQuery lists (List) or searches (Search) the bundled config
// templates as `aiperf config init --list/--search` does; Command names the
// command in the hints.
type TemplateQuery struct {
	List             bool
	Search, Category string
	Verbose          bool
	Command          string
}

// Write prints the listing.
func (q TemplateQuery) Write(w io.Writer) error {
	return runConfigInit(w, &initOptions{list: q.List, search: q.Search, category: q.Category, verbose: q.Verbose, command: q.Command})
}
