package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/selftest"
)

const selftestLong = `Measure this client against the embedded mock, whose every timing and token
count is known: streamed chat answers of 3 tokens per chunk, 12 reasoning
tokens, a 9-token tool call and usage-only chunks, at 20 requests/s.

A first phase against the mock answering at once measures the client's floor
on this machine; the timed phase then checks every count exactly (lengths,
reasoning and usage tokens, chunks) and every timing (TTFT, TTFOT, second
token, latency, ITL, inter-chunk latency) against when the mock wrote each
chunk, within a bound derived from that floor. It prints the client's error
budget (TTFT floor, ITL jitter, send lag) and one line per check; exit code 1
when a check fails.
`

// newSelftestCommand is `aiperf selftest`.
func newSelftestCommand(env *Env) *cobra.Command {
	var requests int
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Check the client's counts and timings against the mock's known truth",
		Long:  selftestLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := os.MkdirTemp("", "aiperf-selftest-")
			if err != nil {
				return &runError{err}
			}
			defer os.RemoveAll(dir)
			rep, err := selftest.Run(cmd.Context(), selftest.Options{Dir: dir, Requests: requests})
			if err != nil {
				return &runError{err}
			}
			if err := rep.Write(env.Stdout); err != nil {
				return &runError{err}
			}
			if !rep.Passed() {
				return &config.ExitError{Code: config.ExitFailure}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&requests, "requests", 24, "requests in each phase")
	return cmd
}
