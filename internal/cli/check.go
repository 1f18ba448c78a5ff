package cli

import (
	"errors"
	"fmt"
)

// CheckArgs checks a command line as Main would read it, without running
// anything: nothing is sent, started or written. The sub-command must
// exist, and its flags must exist and their values parse; `aiperf profile`
// (and `aiperf service`, which runs one) is then validated in full, with
// its -f/--config file, exactly as before a run, so a nil error means the
// benchmark would start. Other commands get their positional-argument and
// required-flag checks; what they check only while running (a file's
// contents, a choice read in the command's body) is not checked. With
// env.Kube set (aiperf-kube), `kube` commands are checked the same way;
// without it, `kube` is the stub that hands its arguments on, and anything
// after it passes.
//
// It serves the documentation test, which checks that every aiperf command
// written in README.md and docs/ parses, including those that need a
// server, a cluster or a GPU to run.
func CheckArgs(args []string, env Env) error { return checkArgs(args, env, true) }

// CheckFlags checks only that the sub-command exists and that its flags
// exist and their values parse (a -f/--config file is not read): for a
// fragment of a command line, such as `aiperf profile ... --pre-connect`,
// which cannot be validated as a whole, or a line whose config file an
// earlier line writes.
func CheckFlags(args []string, env Env) error { return checkArgs(args, env, false) }

func checkArgs(args []string, env Env, full bool) error {
	env = env.withDefaults()
	if len(args) > 0 && args[0] == "service" {
		pargs, help, err := serviceArgs(args[1:], env.Getenv)
		switch {
		case help:
			return nil
		case err != nil:
			return &usageError{command: "aiperf service", problems: []error{err}}
		}
		args = pargs
	}
	root, profile := newRootCommand(&env)
	if len(args) > 0 && args[0] == profile.cmd.Name() {
		clean := profile.prepare(args, full)
		if err := profile.cmd.ParseFlags(clean); err != nil {
			return &usageError{command: "aiperf profile", problems: []error{err}}
		}
		if !full {
			if problems := append(profile.scanProblems, profile.valueProblems.errs...); len(problems) > 0 {
				return &usageError{command: "aiperf profile", problems: profile.inUserWords(problems)}
			}
			return nil
		}
		return profile.check(profile.cmd.Flags().Args())
	}
	cmd, rest, err := root.Find(args)
	if err != nil {
		return &usageError{command: "aiperf", problems: []error{err}}
	}
	if cmd == root && len(rest) > 0 {
		return &usageError{command: "aiperf", problems: []error{fmt.Errorf("unknown command %q", rest[0])}}
	}
	if cmd.DisableFlagParsing {
		return nil
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return &usageError{command: cmd.CommandPath(), problems: []error{err}}
	}
	if help, _ := cmd.Flags().GetBool("help"); help || !full {
		return nil
	}
	return errors.Join(cmd.ValidateArgs(cmd.Flags().Args()), cmd.ValidateRequiredFlags(), cmd.ValidateFlagGroups())
}
