package kubecli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/kube"
)

// The commands that talk to a benchmark's controller pod: results,
// shutdown and attach. They reach its HTTP API (aiperf profile
// --api-port, kept up after the run) through the API server's pod proxy.

// newKubeResultsCommand builds `aiperf kube results NAME`: download the
// artifacts from the controller pod (direct mode: the pod is the only
// source, so --from-pods is implied).
func newKubeResultsCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var ns, output string
	var fromPods, summaryOnly, all, shutdown bool
	cmd := &cobra.Command{
		Use:   "results [NAME]",
		Short: "Download a finished benchmark's artifacts from its controller pod",
		Long: "The controller pod keeps serving its results after the run (--results-linger of kube profile,\n" +
			"default 1h) until `aiperf kube shutdown`. results downloads them through the API server's pod\n" +
			"proxy into --output (default ./artifacts/NAME). Direct mode has no results server, so the pod is\n" +
			"the only source and --from-pods is implied.",
		Example: "  aiperf kube results chat1 -n perf\n  aiperf kube results chat1 --summary-only -o ./out --shutdown",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_ = fromPods
			if cmd.Flags().Changed("all") && all {
				summaryOnly = false
			}
			name, err := kubeTarget(env, cmd, args, &ns)
			if err != nil {
				return err
			}
			if output == "" {
				output = filepath.Join("artifacts", name)
			}
			cs, err := client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			c, err := kube.NewControllerAPI(ctx, cs, ns, name)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			res, err := c.Result(ctx)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			got, l, err := c.FetchResults(ctx, output, summaryOnly)
			for _, f := range got {
				fmt.Fprintf(env.Stdout, "  %-40s %10d bytes\n", f.Name, f.Size)
			}
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			fmt.Fprintf(env.Stdout, "%d file(s) of benchmark %s/%s (%s) in %s\n", len(got), ns, name, res.Status, output)
			if l.Partial || res.Status != "complete" {
				fmt.Fprintf(env.Stdout, "note: the run ended %s%s; these are its partial artifacts\n", res.Status, suffix(": ", res.Error))
			}
			if shutdown {
				return shutdownController(ctx, env.Stdout, c, name)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	kubeNamespaceFlag(cmd, &ns)
	fl.StringVarP(&output, "output", "o", "", "directory to download into (default ./artifacts/NAME)")
	fl.BoolVar(&fromPods, "from-pods", false, "retrieve from the benchmark's controller pod (implied: direct mode has no results server)")
	fl.BoolVar(&summaryOnly, "summary-only", false, "download only the summary files ("+strings.Join(kube.SummaryFiles, ", ")+")")
	fl.BoolVarP(&all, "all", "a", true, "download every artifact (the default; the opposite of --summary-only)")
	fl.BoolVar(&shutdown, "shutdown", false, "then shut the controller's API down so the pod exits")
	return cmd
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

func shutdownController(ctx context.Context, w io.Writer, c *kube.ControllerAPI, name string) error {
	err := c.Shutdown(ctx)
	if errors.Is(err, kube.ErrStillRunning) {
		fmt.Fprintf(w, "%s is still running; the API will not shut down mid-benchmark. Use `aiperf kube cancel %s` to stop it\n"+
			"(its controller then writes the partial artifacts and keeps serving them).\n", name, name)
		return nil
	}
	if err != nil {
		return &config.ExitError{Code: config.ExitFailure, Err: err}
	}
	fmt.Fprintf(w, "Shutdown requested for %s: the controller pod exits once its API stops; fetch nothing more from it.\n", name)
	return nil
}

// newKubeShutdownCommand builds `aiperf kube shutdown NAME`: retire a
// finished benchmark's controller (its API stops, the pod exits and
// releases its reservation). A running benchmark is refused, as in
// AIPerf: `kube cancel` stops one.
func newKubeShutdownCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var ns string
	cmd := &cobra.Command{
		Use:   "shutdown [NAME]",
		Short: "Retire a finished benchmark's controller pod (it stops serving its results and exits)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, cs, err := kubeTargetClient(env, cmd, args, &ns, client)
			if err != nil {
				return err
			}
			c, err := kube.NewControllerAPI(cmd.Context(), cs, ns, name)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			return shutdownController(cmd.Context(), env.Stdout, c, name)
		},
	}
	kubeNamespaceFlag(cmd, &ns)
	return cmd
}

// newKubeAttachCommand builds `aiperf kube attach NAME`: follow a
// benchmark's progress until its run ends.
func newKubeAttachCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var ns string
	var interval, wait time.Duration
	var ignoreNotFound bool
	cmd := &cobra.Command{
		Use:   "attach [NAME]",
		Short: "Follow a running benchmark's progress until it ends",
		Long: "attach waits for the controller pod, then prints its progress (from its /api/progress, through\n" +
			"the API server's pod proxy) whenever it changes, until the run ends: exit 0 when it completed,\n" +
			"1 when it failed or was cancelled. An exited controller pod's last log lines are printed.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, cs, err := kubeTargetClient(env, cmd, args, &ns, client)
			if err != nil {
				return err
			}
			return attach(cmd.Context(), env.Stdout, cs, ns, name, interval, wait, ignoreNotFound)
		},
	}
	kubeNamespaceFlag(cmd, &ns)
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "how often to poll the progress")
	cmd.Flags().BoolVar(&ignoreNotFound, "ignore-not-found", false, "exit 0 when the benchmark has no controller pod (no waiting for one)")
	cmd.Flags().DurationVar(&wait, "wait", 10*time.Minute, "how long to wait for the controller pod to be created and start (a pod that can never start, such as a missing image, ends the wait at once)")
	return cmd
}

func attach(ctx context.Context, w io.Writer, cs kubernetes.Interface, ns, name string, interval, wait time.Duration, ignoreNotFound bool) error {
	if interval <= 0 {
		return kubeUsage("attach", fmt.Errorf("--interval %s: must be positive", interval))
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	start := time.Now()
	var last, waiting string
	// Right after kube profile the pod may not exist yet (the operator
	// creates it) or still be starting: wait for it, not fail.
	if !ignoreNotFound {
		wctx, cancel := context.WithTimeout(ctx, wait)
		_, err := kube.WaitControllerPod(wctx, cs, ns, name, interval, func(s string) { fmt.Fprintln(w, s) })
		cancel()
		if err != nil {
			return &config.ExitError{Code: config.ExitFailure, Err: err}
		}
	}
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
		pod, err := kube.ControllerPod(ctx, cs, ns, name)
		if errors.Is(err, kube.ErrNoController) && ignoreNotFound {
			fmt.Fprintf(w, "benchmark %s/%s not found\n", ns, name)
			return nil
		}
		if err != nil {
			return &config.ExitError{Code: config.ExitFailure, Err: err}
		}
		switch pod.Status.Phase {
		case corev1.PodSucceeded, corev1.PodFailed:
			fmt.Fprintf(w, "controller pod %s %s; its last log lines:\n", pod.Name, pod.Status.Phase)
			if err := kube.TailLogs(ctx, cs, ns, pod.Name, 20, w); err != nil {
				fmt.Fprintf(w, "  (no log: %v)\n", err)
			}
			if pod.Status.Phase == corev1.PodFailed {
				return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("benchmark %s/%s failed", ns, name)}
			}
			return nil
		case corev1.PodRunning:
		default:
			if s := fmt.Sprintf("waiting for the controller pod %s (%s)", pod.Name, pod.Status.Phase); s != waiting {
				fmt.Fprintln(w, s)
				waiting = s
			}
			continue
		}
		c, err := kube.NewControllerAPI(ctx, cs, ns, name)
		if err != nil {
			continue
		}
		p, err := c.Progress(ctx)
		if err != nil {
			if s := "waiting for the controller's API"; s != waiting {
				fmt.Fprintln(w, s)
				waiting = s
			}
			continue
		}
		if line := progressLine(p); line != last {
			fmt.Fprintf(w, "[%5.0fs] %s\n", time.Since(start).Seconds(), line)
			last = line
		}
		res, err := c.Result(ctx)
		if err != nil || res.Status == "running" {
			continue
		}
		fmt.Fprintf(w, "benchmark %s/%s %s%s; fetch the artifacts with: aiperf kube results %s -n %s\n", ns, name, res.Status, suffix(": ", res.Error), name, ns)
		if res.Status != "complete" {
			return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("benchmark %s/%s ended %s", ns, name, res.Status)}
		}
		return nil
	}
}

// progressLine is one line of attach's output: the system state and each
// phase's requests.
func progressLine(p kube.Progress) string {
	var b strings.Builder
	b.WriteString(p.SystemState)
	for _, ph := range []string{"warmup", "profiling"} {
		s, ok := p.Phases[ph]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "; %s: %d sent, %d completed", ph, s.RequestsSent, s.RequestsCompleted)
		if s.TotalExpected != nil {
			fmt.Fprintf(&b, " of %d", *s.TotalExpected)
		}
		if s.Progress != nil {
			fmt.Fprintf(&b, " (%.1f%%)", *s.Progress)
		}
		if s.RequestErrors > 0 {
			fmt.Fprintf(&b, ", %d errors", s.RequestErrors)
		}
	}
	return b.String()
}
