package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// newVersionCommand builds `aiperf version`.
func newVersionCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := env.Version
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\ncommit: %s\ngo: %s %s/%s\n",
				versionLine(v), v.Commit, v.GoVersion, runtime.GOOS, runtime.GOARCH)
			if err == nil && v.Build != "" {
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "build: %s\n", v.Build)
			}
			return err
		},
	}
}

// versionLine is the one-line version, also printed by `aiperf --version`.
func versionLine(v VersionInfo) string { return "aiperf " + v.Version }
