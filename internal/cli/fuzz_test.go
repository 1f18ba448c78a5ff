package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/config"
)

// FuzzProfileFlagValue gives any value to any profile flag and runs the
// whole command line through Main (flag value types, config validation,
// the recorded command line) with a runner that only records what it is
// given. Nothing may panic; the outcome is a run (exit 0) with a
// configuration that passes Validate, or a usage error (exit 2) that says
// what is wrong; the recorded command line never holds the API key.
func FuzzProfileFlagValue(f *testing.F) {
	var names []string
	profileFlags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "help" && fl.Name != "mock-server" {
			names = append(names, fl.Name)
		}
	})
	for i, v := range []string{"", "0", "-1", "8", "1e309", "nan", "inf", "a,b", "x:1", `{"a":1}`, "{", "true", "--", "\x00", " 3 "} {
		f.Add(uint(i*7), v)
	}
	f.Fuzz(func(t *testing.T, which uint, value string) {
		name := names[which%uint(len(names))]
		args := []string{"profile", "-m", "m", "--api-key", "FUZZSECRET", "--" + name + "=" + value}
		var ran bool
		var stderr bytes.Buffer
		env := Env{Stderr: &stderr, Runner: func(_ context.Context, cfg *config.Config, rio RunIO) error {
			ran = true
			if err := cfg.Validate(); err != nil {
				t.Errorf("%q: the runner got a configuration that does not validate: %v", args, err)
			}
			if strings.Contains(rio.CLICommand, "FUZZSECRET") {
				t.Errorf("%q: cli_command holds the API key: %s", args, rio.CLICommand)
			}
			return nil
		}}
		switch code := Main(t.Context(), args, env); code {
		case config.ExitOK:
			if !ran {
				t.Fatalf("%q: exit 0 without a run", args)
			}
		case config.ExitUsage:
			if ran || !strings.Contains(stderr.String(), "Error") {
				t.Fatalf("%q: exit 2 (ran %v) with %q", args, ran, stderr.String())
			}
		default:
			t.Fatalf("%q: exit %d\n%s", args, code, stderr.String())
		}
	})
}
