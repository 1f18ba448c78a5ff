package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/environ"
)

// newEnvCommand builds `aiperf env`: every environment variable aiperf
// reads (environ.Vars), with its value here, its default and its meaning;
// secrets that are set print as hidden.
func newEnvCommand(env *Env) *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "env",
		Short: "List the environment variables aiperf reads, with their values and defaults",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeEnv(cmd.OutOrStdout(), env.Getenv, all)
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list the variables only tests read")
	return cmd
}

// writeEnv prints one entry per variable, sorted by name: NAME=value when
// set, else NAME (unset) with the default; then the meaning and readers.
func writeEnv(w io.Writer, getenv func(string) string, all bool) error {
	for _, v := range environ.Sorted() {
		if v.Test && !all {
			continue
		}
		var line string
		switch val := getenv(v.Name); {
		case v.Prefix:
			line = v.Name + "*"
		case val != "":
			line = v.Name + "=" + v.Redact(val)
		default:
			line = v.Name + " (unset)"
		}
		if v.Default != "" {
			line += "  default: " + v.Default
		}
		if _, err := fmt.Fprintf(w, "%s\n    %s [%s]\n", line, v.Meaning, v.Users); err != nil {
			return err
		}
	}
	return nil
}
