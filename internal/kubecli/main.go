// Package kubecli is the `aiperf kube` command line, the program
// aiperf-kube: a benchmark on Kubernetes, created directly with client-go
// or as an AIPerfJob the operator reconciles. It is aiperf's command line
// (internal/cli) with the kube command built in; aiperf itself runs this
// program for `aiperf kube ...`, so that only aiperf-kube links the
// Kubernetes libraries.
package kubecli

import (
	"context"

	"github.com/aiperf-go/aiperf/internal/cli"
)

// Env is the process state the command line runs with (cli.Env).
type Env = cli.Env

// Main runs `aiperf kube args...` and returns the exit code, as cli.Main
// does. args are as typed after `aiperf-kube` or after `aiperf kube`; a
// leading "kube" is taken as typed (`aiperf-kube kube init` is
// `aiperf-kube init`), and `version` and `--version` print the build's
// version.
func Main(ctx context.Context, args []string, env Env) int {
	env.Kube = newKubeCommand
	switch {
	case len(args) > 0 && (args[0] == "kube" || args[0] == "version" || args[0] == "--version"):
	default:
		args = append([]string{"kube"}, args...)
	}
	return cli.Main(ctx, args, env)
}

// CheckArgs checks `aiperf ...` args without running them, as cli.CheckArgs
// does, with the kube command built in, so that `aiperf kube ...` lines are
// checked down to their sub-command's flags.
func CheckArgs(args []string, env Env) error {
	env.Kube = newKubeCommand
	return cli.CheckArgs(args, env)
}

// CheckFlags checks only the sub-command and its flags, as cli.CheckFlags
// does, with the kube command built in.
func CheckFlags(args []string, env Env) error {
	env.Kube = newKubeCommand
	return cli.CheckFlags(args, env)
}
