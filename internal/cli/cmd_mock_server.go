package cli

import (
	"errors"
	"flag"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/aiperf-go/aiperf/internal/fdlimit"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// mockServerShorthands are the one-letter forms of mock-server flags.
func mockServerShorthands() map[string]string {
	return map[string]string{"port": "p", "ttft": "t", "fast": "f"}
}

// mockServerFiles is the open-file limit the mock server asks for: as many
// connections as a benchmark of 100,000 streams opens, and more.
const mockServerFiles = 1 << 18

// newMockServerCommand builds `aiperf mock-server`: the OpenAI-compatible
// mock server in the foreground, until SIGINT/SIGTERM. Its flags are the
// mock server's own (standard library flags, imported into pflag) plus
// --tokenizer.
func newMockServerCommand(env *Env) *cobra.Command {
	cfg := mockserver.DefaultConfig()
	tok := tokenizer.BuiltinAlias
	cmd := &cobra.Command{
		Use:   "mock-server",
		Short: "Run an OpenAI-compatible mock inference server",
		Long: `Serve /v1/chat/completions, /v1/completions and /v1/models with configurable
latency (time to first token, inter-token latency, load-dependent terms,
jitter), error rate and injected faults (--fault: 429/500/503, connection
resets, truncated, malformed or stalled streams, huge chunks, invalid UTF-8,
a wrong content type; see docs/faults.md), for trying aiperf without a real
server and for testing. It prints its URL and serves until interrupted.

Example:
  aiperf mock-server -p 8000 --ttft 50 --itl 10
  aiperf mock-server --fault http429:0.05 --fault reset_mid_stream:0.01
  aiperf mock-server --batch-slots 8   # continuous batching: a capacity knee at 8
  aiperf profile -m mock-model -u localhost:8000 --streaming`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var problems []error
			if err := cfg.Validate(); err != nil {
				problems = append(problems, unjoin(err)...)
			}
			switch tok {
			case tokenizer.BuiltinAlias:
				t, err := tokenizer.Resolve(tokenizer.BuiltinAlias, "")
				if err != nil {
					return &runError{err}
				}
				// Touch the builtin tokenizer's tables before listening,
				// not on the first request. (When it built them on first
				// use, that added 0.1-0.5 s to the first TTFT; now they are
				// embedded and this only pages them in.)
				t.Count("warm up")
				cfg.CountTokens = t.Count
			case "none":
				cfg.CountTokens = nil
			default:
				problems = append(problems, fmt.Errorf("--tokenizer: invalid choice %q (choose from builtin, none)", tok))
			}
			if len(problems) > 0 {
				return &usageError{command: "aiperf mock-server", problems: problems}
			}
			// Every connection it holds is a descriptor (many streams).
			if lim := fdlimit.Raise(mockServerFiles); lim.Short() {
				why := ""
				if lim.Err != nil {
					why = " (raising it: " + lim.Err.Error() + ")"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "aiperf mock server: open-file limit %d (hard %d)%s: it holds at most about that many connections; to hold more, %s\n",
					lim.After.Soft, lim.After.Hard, why, fdlimit.Remedy)
			}
			srv, err := mockserver.Start(cfg, "")
			if err != nil {
				return &runError{err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "aiperf mock server listening on %s (Ctrl-C to stop)\n", srv.URL())
			if u := srv.DCGMURL(); u != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s of %d fake GPUs at %s\n", cfg.DCGM.Exporter(), cfg.DCGM.GPUs, u)
			}
			<-cmd.Context().Done()
			if err := srv.Close(); err != nil {
				return &runError{errors.Join(errors.New("mock server did not shut down cleanly"), err)}
			}
			return nil
		},
	}
	gofs := flag.NewFlagSet("mock-server", flag.ContinueOnError)
	cfg.RegisterFlags(gofs)
	fs := cmd.Flags()
	fs.SetNormalizeFunc(normalizer(nil))
	short := mockServerShorthands()
	// Equivalent to fs.AddGoFlagSet(gofs), one flag at a time so that the
	// shorthands can be attached before the flags are added.
	gofs.VisitAll(func(gf *flag.Flag) {
		pf := pflag.PFlagFromGoFlag(gf)
		pf.Shorthand = short[gf.Name]
		fs.AddFlag(pf)
	})
	fs.StringVar(&tok, "tokenizer", tok,
		`how to count prompt tokens for usage and ISL-based latency: "builtin" (tiktoken o200k_base, as aiperf counts) or "none" (about 4 characters per token)`)
	return cmd
}
