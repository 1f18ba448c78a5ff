package cli

import (
	"context"
	"errors"
	"slices"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/doctor"
)

const doctorLong = `Check, before a benchmark, what would make its numbers the client's or the
network's rather than the server's: the CPU governor, other work on the
client's cores, the open-file limit and ephemeral ports against the
concurrency, the network path's round trip to the server, --osl without
ignore_eos or min_tokens, a chat template that pushes the prompt past a
power-of-two length, the tokenizer offline, and the server's metrics.

It takes the same flags as profile and sends no inference request. One line
per check: OK, WARN or FAIL, the reason and the fix. Exit code 1 only when a
check fails (the run could not measure what it asks for); warnings exit 0.

Example:
  aiperf doctor -m my-model -u localhost:8000 --concurrency 256 --osl 512
`

// newDoctorCommand is `aiperf doctor`: profile's flags, parsed and
// validated as profile does, then the checks instead of a run.
func newDoctorCommand(env *Env) *cobra.Command {
	p := newProfileCommand(env)
	p.cmd.Use, p.cmd.Short, p.cmd.Long = "doctor", "Check the machine and the configuration before a benchmark", doctorLong
	// profile's own argument scan (aliases, every problem at once) reads
	// the flags; cobra only dispatches.
	p.cmd.DisableFlagParsing = true
	p.cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
			return cmd.Help()
		}
		// Flags().Parse, not ParseFlags: cobra skips the latter for a
		// command that disables its flag parsing.
		if err := p.cmd.Flags().Parse(p.prepare(append([]string{"doctor"}, args...), true)); err != nil {
			return &usageError{command: "aiperf doctor", problems: []error{err}}
		}
		if err := p.check(p.cmd.Flags().Args()); err != nil {
			var ue *usageError
			if errors.As(err, &ue) {
				ue.command = "aiperf doctor"
			}
			return err
		}
		return p.doctor(cmd.Context())
	}
	return p.cmd
}

// doctor gathers the facts for p's configuration, prints every check and
// fails only when a check does.
func (p *profileCommand) doctor(ctx context.Context) error {
	cfg := p.cfg
	stop, err := p.startMock(&cfg)
	if err != nil {
		return err
	}
	defer stop()
	f := doctor.Cheap(&cfg, doctor.Local())
	doctor.Prober{Getenv: p.env.Getenv}.Probe(ctx, &cfg, f)
	rs := doctor.Run(f)
	if err := doctor.Write(p.env.Stdout, rs); err != nil {
		return &runError{err}
	}
	if doctor.Worst(rs) == doctor.Fail {
		return &config.ExitError{Code: config.ExitFailure}
	}
	return nil
}
