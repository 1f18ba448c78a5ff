package cli

import (
	"errors"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/internal/benchmark"
)

// newClusterWorkerCommand builds the hidden `aiperf cluster-worker`: a
// load worker of a run over --workers (or of a Kubernetes job's
// controller). It connects to the controller, builds its part of the run
// from what the controller sends, sends the requests of the credits it is
// given and streams every record back, until the controller shuts the run
// down. It writes no artifacts: the controller does.
func newClusterWorkerCommand(env *Env) *cobra.Command {
	var addr, name string
	var nextRun time.Duration
	cmd := &cobra.Command{
		Use:    benchmark.WorkerCommand,
		Short:  "Run as a load worker of an aiperf controller (started by --workers)",
		Args:   cobra.NoArgs,
		Hidden: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr == "" {
				return &usageError{command: "aiperf " + benchmark.WorkerCommand, problems: []error{errors.New("--controller: the controller's host:port is required")}}
			}
			log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
			return benchmark.RunWorkerRuns(cmd.Context(), addr, name, stamped().Version, log, nextRun)
		},
	}
	cmd.Flags().StringVar(&addr, "controller", "", "the controller's host:port")
	cmd.Flags().StringVar(&name, "name", "", "this worker's name in the controller's reports (a pod name)")
	cmd.Flags().DurationVar(&nextRun, "next-run-timeout", 0, "after a run, wait this long for the controller's next run of an experiment (a sweep) and join it (0: one run)")
	return cmd
}
