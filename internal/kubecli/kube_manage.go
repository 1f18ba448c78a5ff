package kubecli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/aiperf-go/aiperf/internal/cli"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/kube"
)

// initFlags are `kube init`'s flags (`aiperf config init`'s, less the
// starter-file ones).
type initFlags struct {
	template, search, category, model, url, output string
	list, verbose                                  bool
}

// newKubeInitCommand builds `aiperf kube init`: one of the bundled config
// templates (AIPerf 0.13's), wrapped in an AIPerfJob, as AIPerf's.
func newKubeInitCommand(env *Env) *cobra.Command {
	var o initFlags
	var jobName string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a starter AIPerfJob manifest from a bundled config template (--list shows them)",
		Long: "Wrap one of the bundled config templates (default minimal) in an AIPerfJob custom resource:\n" +
			"the config becomes its spec (spec.benchmark the body). --model and --url fill in the two\n" +
			"fields every config needs. Without --output the manifest goes to stdout.",
		Example: "  aiperf kube init --list --category throughput\n" +
			"  aiperf kube init -t goodput_slo --model llama --url http://vllm.perf.svc:8000 -o bench.yaml",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if o.list || o.search != "" {
				return cli.TemplateQuery{List: o.list, Search: o.search, Category: o.category, Verbose: o.verbose, Command: "aiperf kube init"}.Write(w)
			}
			if ms := validation.IsDNS1123Subdomain(jobName); len(ms) > 0 {
				return kubeUsage("init", fmt.Errorf("--job-name %q: %s", jobName, strings.Join(ms, "; ")))
			}
			name := o.template
			if name == "" {
				name = "minimal"
			}
			tm, err := configfile.LookupTemplate(name)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			body, err := tm.WithOverrides(o.model, o.url)
			if err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			filename := "benchmark.yaml"
			if o.output != "" {
				filename = filepath.Base(o.output)
			}
			doc := kube.WrapAsAIPerfJob(body, filename, jobName)
			if o.output == "" {
				_, err := fmt.Fprint(w, doc)
				return err
			}
			if err := os.MkdirAll(filepath.Dir(o.output), 0o755); err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			if err := os.WriteFile(o.output, []byte(doc), 0o644); err != nil {
				return &config.ExitError{Code: config.ExitFailure, Err: err}
			}
			_, err = fmt.Fprintf(w, "Created %s from template '%s' (%s)\nNext: edit the model, URL and load; check it with: aiperf kube validate %s\n",
				o.output, tm.Name, tm.Title, o.output)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.template, "template", "t", "", "Template name to use (default minimal; --list shows them).")
	fl.BoolVarP(&o.list, "list", "l", false, "List the bundled templates grouped by category.")
	fl.StringVarP(&o.search, "search", "s", "", "Search templates by keyword.")
	fl.StringVarP(&o.category, "category", "c", "", "Filter --list by category.")
	fl.BoolVarP(&o.verbose, "verbose", "v", false, "Show tags and difficulty in listings.")
	fl.StringVar(&o.model, "model", "", "Override the model name in the generated config.")
	fl.StringVar(&o.url, "url", "", "Override the endpoint URL in the generated config.")
	fl.StringVarP(&o.output, "output", "o", "", "Output file (default: stdout); an existing file is replaced.")
	fl.StringVar(&jobName, "job-name", "my-benchmark", "metadata.name of the generated AIPerfJob.")
	return cmd
}

// newKubeCleanupCommand builds `aiperf kube cleanup`: delete the finished
// benchmarks of a namespace (--all: every one), after a confirmation
// unless --force; --dry-run only lists them.
func newKubeCleanupCommand(env *Env, client func() (kubernetes.Interface, error), dyn func() (dynamic.Interface, error)) *cobra.Command {
	var ns string
	var all, force, dryRun, deleteNS bool
	cmd := &cobra.Command{
		Use:     "cleanup",
		Short:   "Delete the finished benchmarks of a namespace (--all: running ones too)",
		Example: "  aiperf kube cleanup --dry-run\n  aiperf kube cleanup -n perf --all --force --delete-namespace",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cs, err := client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			targets, skipped, err := kube.CleanupTargets(ctx, cs, ns, all)
			if err != nil {
				return err
			}
			out := env.Stdout
			if len(targets) == 0 {
				if skipped > 0 {
					fmt.Fprintf(out, "Nothing to clean up in %s: all %d benchmark(s) are still running (use --all to include them).\n", ns, skipped)
				} else {
					fmt.Fprintf(out, "No AIPerf benchmarks found in namespace %s\n", ns)
				}
				return nil
			}
			for _, t := range targets {
				fmt.Fprintf(out, "  benchmark %s (%s)\n", t.Name, t.Phase)
			}
			if dryRun {
				fmt.Fprintf(out, "--dry-run: %d benchmark(s) would be removed.\n", len(targets))
				return nil
			}
			if !force && !confirm(env, fmt.Sprintf("Remove %d benchmark(s) from namespace %s?", len(targets), ns)) {
				fmt.Fprintln(out, "Aborted.")
				return nil
			}
			dc, err := dyn()
			if err != nil {
				return err
			}
			n, err := kube.Cleanup(ctx, cs, dc, targets)
			fmt.Fprintf(out, "Removed %d benchmark(s) (%d objects) from namespace %s\n", len(targets), n, ns)
			if skipped > 0 {
				fmt.Fprintf(out, "Left %d running benchmark(s) alone (use --all to include them).\n", skipped)
			}
			if err != nil {
				return err
			}
			if deleteNS {
				gone, err := kube.DeleteNamespaceIfEmpty(ctx, cs, ns)
				if err != nil {
					return err
				}
				if gone {
					fmt.Fprintf(out, "Deleted namespace %s\n", ns)
				} else {
					fmt.Fprintf(out, "Kept namespace %s (not created by aiperf, or benchmarks left in it)\n", ns)
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	kubeNamespaceFlag(cmd, &ns)
	fl.BoolVarP(&all, "all", "a", false, "Also remove benchmarks that are still running (their results go with them).")
	fl.BoolVarP(&force, "force", "f", false, "Skip the confirmation prompt.")
	fl.BoolVar(&dryRun, "dry-run", false, "List what would be removed and exit without deleting anything.")
	fl.BoolVar(&deleteNS, "delete-namespace", false, "Then delete the namespace too, if aiperf created it and it is empty.")
	return cmd
}

// kubeNamespaceFlag adds -n/--namespace, AIPerf's spelling.
func kubeNamespaceFlag(cmd *cobra.Command, ns *string) {
	cmd.Flags().StringVarP(ns, "namespace", "n", kube.DefaultNamespace, "namespace of the benchmark")
}

// confirm asks question on stderr and reads y/yes from stdin.
func confirm(env *Env, question string) bool {
	fmt.Fprintf(env.Stderr, "%s [y/N] ", question)
	if env.Stdin == nil {
		return false
	}
	line, _ := bufio.NewReader(env.Stdin).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

// newKubeDebugCommand builds `aiperf kube debug NAME`: a failing
// benchmark's pods, events and last log lines, with what they mean.
func newKubeDebugCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var ns, jobID string
	var verbose, allNamespaces bool
	var tail int64
	cmd := &cobra.Command{
		Use:   "debug [NAME]",
		Short: "Diagnose a benchmark: its pods' states, the events about it, the last log lines of failing pods",
		Example: "  aiperf kube debug chat1 -n perf\n  aiperf kube debug -A        # every benchmark in every namespace\n" +
			"  aiperf kube debug chat1 -v  # every pod's last log lines",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				jobID = args[0]
			}
			if jobID == "" && !allNamespaces {
				name, err := kubeTarget(env, cmd, nil, &ns)
				if err != nil {
					return kubeUsage("debug", errors.New("name the benchmark (NAME or -j/--job-id; default the last deployed one), or give -A for every one"))
				}
				jobID = name
			}
			cs, err := client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			type target struct{ ns, name string }
			var targets []target
			if jobID != "" && !allNamespaces {
				targets = append(targets, target{ns, jobID})
			} else {
				sts, err := kube.List(ctx, cs, "")
				if err != nil {
					return err
				}
				for _, st := range sts {
					if jobID == "" || st.Name == jobID {
						targets = append(targets, target{st.Namespace, st.Name})
					}
				}
				if len(targets) == 0 {
					fmt.Fprintln(env.Stdout, "No AIPerf benchmarks found in any namespace")
					return nil
				}
			}
			for i, t := range targets {
				if i > 0 {
					fmt.Fprintln(env.Stdout, strings.Repeat("-", 72))
				}
				d, err := kube.Diagnose(ctx, cs, t.ns, t.name)
				if err != nil {
					return &config.ExitError{Code: config.ExitFailure, Err: err}
				}
				d.Write(ctx, cs, env.Stdout, tail, verbose)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	kubeNamespaceFlag(cmd, &ns)
	fl.StringVarP(&jobID, "job-id", "j", "", "the benchmark to diagnose (same as NAME)")
	fl.BoolVarP(&verbose, "verbose", "v", false, "print every pod's last log lines, not only the failing ones'")
	fl.BoolVarP(&allNamespaces, "all-namespaces", "A", false, "diagnose the benchmarks of every namespace")
	fl.Int64Var(&tail, "tail", 30, "log lines per pod")
	return cmd
}
