package kubecli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/aiperf-go/aiperf/internal/cli"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// newKubeCommand builds `aiperf kube`: one benchmark as a
// controller Job and an Indexed Job of load workers, created directly
// with client-go, or as an AIPerfJob the operator (kube install, kube
// operator) reconciles into the same objects.
func newKubeCommand(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kube",
		Short: "Run a benchmark on Kubernetes: one controller pod, N load-worker pods",
		Long: "aiperf kube runs `aiperf profile` on a cluster: a controller Job (aiperf profile --workers N\n" +
			"--worker-listen :7070, which keeps the schedule and writes the artifacts), a headless Service,\n" +
			"and an Indexed Job of N load workers (aiperf cluster-worker) that send the requests.\n" +
			"The profile arguments go after --.",
	}
	var kubeconfig string
	cmd.PersistentFlags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	// restConfig: the kubeconfig, or the pod's service account in a cluster.
	restConfig := func() (*rest.Config, error) {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		if kubeconfig != "" {
			rules.ExplicitPath = kubeconfig
		}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("kubeconfig: %w", err)
		}
		return cfg, nil
	}
	client := func() (kubernetes.Interface, error) {
		cfg, err := restConfig()
		if err != nil {
			return nil, err
		}
		return kubernetes.NewForConfig(cfg)
	}
	// dyn creates JobSets (no typed client for them here).
	dyn := func() (dynamic.Interface, error) {
		cfg, err := restConfig()
		if err != nil {
			return nil, err
		}
		return dynamic.NewForConfig(cfg)
	}
	cmd.AddCommand(newKubeProfileCommand(env, "generate", client, dyn, restConfig), newKubeProfileCommand(env, "profile", client, dyn, restConfig),
		newKubeProfileCommand(env, "sweep", client, dyn, restConfig),
		newKubeInstallCommand(env, restConfig), newKubeOperatorCommand(env, restConfig),
		newKubeListCommand(env, client), newKubeValidateCommand(env), newKubeLogsCommand(env, client),
		newKubeNamedCommand(env, "show", client, dyn), newKubeNamedCommand(env, "cancel", client, dyn), newKubeNamedCommand(env, "delete", client, dyn),
		newKubeInitCommand(env), newKubeCleanupCommand(env, client, dyn),
		newKubeResultsCommand(env, client), newKubeShutdownCommand(env, client), newKubeAttachCommand(env, client),
		newKubeDebugCommand(env, client), newKubePreflightCommand(env, client))
	return cmd
}

// sweepFlags are `kube sweep`'s multi-run flags (AIPerf's spellings),
// passed on as the controller's profile flags.
type sweepFlags struct {
	trials, maxRuns int
	cooldown        float64
}

func (s sweepFlags) profileArgs() []string {
	var args []string
	runs := s.trials
	if runs == 0 {
		runs = s.maxRuns
	}
	if runs > 0 {
		args = append(args, "--num-profile-runs", strconv.Itoa(runs))
	}
	if s.cooldown > 0 {
		args = append(args, "--profile-run-cooldown-seconds", strconv.FormatFloat(s.cooldown, 'f', -1, 64))
	}
	return args
}

func kubeUsage(sub string, err error) error {
	return cli.UsageError("aiperf kube "+sub, err)
}

// newKubeProfileCommand builds `kube generate` (print the manifests) and
// `kube profile` (create them; --dry-run prints them).
func newKubeProfileCommand(env *Env, use string, client func() (kubernetes.Interface, error), dyn func() (dynamic.Interface, error), restConfig func() (*rest.Config, error)) *cobra.Command {
	k := &kubeProfile{env: env, use: use, client: client, dyn: dyn, restConfig: restConfig, jobSet: "auto"}
	short := "Create the benchmark's objects on the cluster (direct mode)"
	example := "  aiperf kube " + use + " --name chat1 --namespace perf --image registry/aiperf:v1 --workers 8 -- \\\n" +
		"    -m llama -u http://vllm.perf.svc:8000 --streaming --concurrency 2000 --request-count 100000"
	switch use {
	case "generate":
		short = "Print the benchmark's Kubernetes manifests (YAML) without creating them"
	case "sweep":
		short = "Run a parameter sweep or repeated runs on the cluster: the controller pod runs the whole experiment"
		example = "  aiperf kube sweep -f sweep.yaml --image registry/aiperf:v1 --workers 4\n" +
			"  aiperf kube sweep --name conc --workers 8 --trials 3 --cooldown 30 -- -m llama -u http://vllm:8000 --concurrency 64,128,256"
	}
	cmd := &cobra.Command{
		Use:     use + " [flags] -- <aiperf profile arguments>",
		Short:   short,
		Example: example,
		RunE:    k.run,
	}
	f := cmd.Flags()
	f.StringVar(&k.o.Name, "name", "aiperf", "name of the benchmark's objects (a DNS label)")
	kubeNamespaceFlag(cmd, &k.o.Namespace)
	f.StringVar(&k.jobSet, "jobset", "auto", "run as one JobSet (jobset.x-k8s.io) instead of two Jobs: auto = when the cluster serves the CRD (generate and --dry-run: two Jobs), true, false")
	f.StringVar(&k.o.Image, "image", kube.DefaultImage, "aiperf container image (see Dockerfile)")
	f.Var(pullPolicy{&k.o.ImagePullPolicy}, "image-pull-policy", "the pods' image pull policy: Always, IfNotPresent or Never (default: the cluster's, IfNotPresent unless the tag is latest); Never for an image loaded into the nodes without a registry")
	f.IntVar(&k.o.Workers, "workers", 1, "number of load-worker pods")
	f.IntVar(&k.o.Workers, "total-workers", 1, "same as --workers")
	f.IntVar(&k.o.Port, "port", kube.DefaultPort, "the controller's protocol port")
	f.StringVar(&k.o.WorkerCPU, "worker-cpu", "", "CPU request of each worker pod (e.g. 2)")
	f.StringVar(&k.o.WorkerMemory, "worker-memory", "", "memory request of each worker pod (e.g. 1Gi)")
	f.IntVar(&k.o.APIPort, "api-port", kube.DefaultAPIPort, "the controller's HTTP API port (results, progress, shutdown)")
	f.DurationVar(&k.o.ResultsLinger, "results-linger", kube.DefaultResultsLinger,
		"how long the controller keeps serving the results after the run, until `kube shutdown` (negative: exit at once)")
	f.BoolVar(&k.o.CreateNamespace, "create-namespace", true, "also create the namespace (an existing one is kept)")
	f.BoolVar(&k.noOperator, "no-operator", true, "direct mode: create the Jobs with client-go (the default)")
	f.BoolVar(&k.operator, "operator", false, "submit an AIPerfJob for the operator (aiperf kube install) instead of creating the objects")
	f.StringVar(&k.apiKeySecret, "api-key-secret", "", "the endpoint's API key from this Secret's key (NAME or NAME/KEY, KEY default api-key) in the benchmark's namespace; "+
		"an --api-key or -H given after -- is moved into a Secret NAME-credentials instead of the pods' arguments")
	f.StringVarP(&k.configFile, "config", "f", "", "benchmark config file, or an AIPerfJob manifest (aiperf kube init); profile arguments after -- still apply")
	if use != "generate" {
		f.BoolVar(&k.dryRun, "dry-run", false, "print the manifests instead of creating them")
		f.BoolVarP(&k.detach, "detach", "d", true, "return once the objects exist (the only behaviour of this build; follow with kube attach)")
	}
	if use == "sweep" {
		f.IntVar(&k.sw.trials, "trials", 0, "runs per sweep cell (profile's --num-profile-runs)")
		f.Float64Var(&k.sw.cooldown, "cooldown", 0, "cooldown seconds between the runs of a cell (profile's --profile-run-cooldown-seconds)")
		f.IntVar(&k.sw.maxRuns, "max-runs", 0, "the most runs of a cell with --convergence-metric (default --trials; profile's --num-profile-runs)")
	}
	return cmd
}

// kubeProfile is `kube profile`, `kube generate` or `kube sweep` (use):
// its flags and the cluster clients.
type kubeProfile struct {
	env                              *Env
	use                              string
	client                           func() (kubernetes.Interface, error)
	dyn                              func() (dynamic.Interface, error)
	restConfig                       func() (*rest.Config, error)
	o                                kube.Options
	dryRun, noOperator, operator     bool
	detach                           bool
	sw                               sweepFlags
	jobSet, configFile, apiKeySecret string
}

func (k *kubeProfile) run(cmd *cobra.Command, args []string) error {
	_ = k.detach // the command always returns once the objects exist
	k.o.ProfileArgs = append(args, k.sw.profileArgs()...)
	if k.apiKeySecret != "" {
		ref, err := kube.ParseSecretRef(k.apiKeySecret)
		if err != nil {
			return kubeUsage(k.use, fmt.Errorf("--api-key-secret: %w", err))
		}
		k.o.APIKeySecret = &ref
	}
	// The API key and headers leave the arguments for a Secret:
	// no resource holds them in plaintext.
	if _, err := k.o.TakeCredentials(); err != nil {
		return kubeUsage(k.use, err)
	}
	spec, err := k.readConfig(cmd)
	if err != nil {
		return err
	}
	if k.operator && cmd.Flags().Changed("no-operator") && k.noOperator {
		return kubeUsage(k.use, errors.New("--operator and --no-operator: choose one"))
	}
	if k.operator { // an AIPerfJob (kube sweep: an AIPerfSweep) for the operator
		return submitAIPerfJob(cmd, k.env, k.restConfig, k.o, spec, k.use == "generate" || k.dryRun, k.use == "sweep")
	}
	objs, err := k.objects(cmd)
	if err != nil {
		return err
	}
	if k.use == "generate" || k.dryRun {
		y, err := kube.YAML(objs)
		if err != nil {
			return err
		}
		_, err = k.env.Stdout.Write(y)
		return err
	}
	return k.create(cmd, objs)
}

// readConfig reads --config (a benchmark config or an AIPerfJob
// manifest) into the options; its name names the benchmark unless --name
// is given.
func (k *kubeProfile) readConfig(cmd *cobra.Command) (spec v1alpha1.WorkloadSpec, err error) {
	if k.configFile == "" {
		return spec, nil
	}
	s, name, err := benchmarkSpec(k.configFile)
	if err != nil {
		return spec, kubeUsage(k.use, fmt.Errorf("--config: %w", err))
	}
	if name != "" && !cmd.Flags().Changed("name") {
		k.o.Name = name
	}
	spec = s
	if k.o.ConfigFile, err = spec.ConfigFile(); err != nil {
		return spec, kubeUsage(k.use, fmt.Errorf("--config %s: %w", k.configFile, err))
	}
	if k.o.PodTemplate, err = kube.PodTemplateFrom(spec.Extra); err != nil {
		return spec, kubeUsage(k.use, fmt.Errorf("--config %s: %w", k.configFile, err))
	}
	return spec, nil
}

// objects are the direct mode's objects: the controller and worker Jobs
// (a JobSet with --jobset true).
func (k *kubeProfile) objects(cmd *cobra.Command) ([]runtime.Object, error) {
	objs, err := kube.Objects(k.o)
	if err != nil {
		return nil, kubeUsage(k.use, err)
	}
	if k.o.Experiment, err = parseControllerCommand(cmd.Context(), k.o); err != nil {
		return nil, kubeUsage(k.use, err)
	}
	if k.use == "sweep" && !k.o.Experiment {
		return nil, kubeUsage(k.use, errors.New("the benchmark is one run, not a sweep: give a list (e.g. --concurrency 8,16,32), a sweep: section in --config, "+
			"or --trials N; for one run use aiperf kube profile"))
	}
	if k.o.Experiment { // a sweep: its workers rejoin each run
		objs, _ = kube.Objects(k.o)
	}
	if k.jobSet != "auto" && k.jobSet != "true" && k.jobSet != "false" {
		return nil, kubeUsage(k.use, fmt.Errorf("--jobset %q: want auto, true or false", k.jobSet))
	}
	if k.jobSet == "true" {
		if objs, err = kube.AsJobSet(objs); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// create creates objs on the cluster (as a JobSet when --jobset auto finds
// the CRD) and says how to follow the benchmark.
func (k *kubeProfile) create(cmd *cobra.Command, objs []runtime.Object) error {
	cs, err := k.client()
	if err != nil {
		return err
	}
	if k.jobSet == "auto" {
		installed, err := kube.JobSetInstalled(cs)
		if err != nil {
			return fmt.Errorf("discovering the JobSet CRD: %w (--jobset=false skips it)", err)
		}
		if installed {
			if objs, err = kube.AsJobSet(objs); err != nil {
				return err
			}
		}
	}
	dc, err := k.dyn()
	if err != nil {
		return err
	}
	if err := kube.Create(cmd.Context(), cs, dc, objs); err != nil {
		return err
	}
	saveLastBenchmark(k.env, k.o.Name, k.o.Namespace)
	fmt.Fprintf(k.env.Stdout, "benchmark %s created in namespace %s: %d load workers, controller at %s\n"+
		"follow it with:    aiperf kube attach %s -n %s\n"+
		"then fetch it with: aiperf kube results %s -n %s --shutdown\n",
		k.o.Name, k.o.Namespace, k.o.Workers, k.o.ControllerAddress(), k.o.Name, k.o.Namespace, k.o.Name, k.o.Namespace)
	return nil
}

func newKubeListCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var ns string
	var all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the benchmarks in a namespace (-A: every namespace) and their state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cs, err := client()
			if err != nil {
				return err
			}
			if all {
				ns = "" // every namespace
			}
			st, err := kube.List(cmd.Context(), cs, ns)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			head := "NAME\tPHASE\tWORKERS ACTIVE\tSUCCEEDED\tFAILED"
			if all {
				head = "NAMESPACE\t" + head
			}
			fmt.Fprintln(tw, head)
			for _, s := range st {
				phase := s.Phase
				if s.Serving {
					phase += " (serving results)"
				}
				if all {
					fmt.Fprintf(tw, "%s\t", s.Namespace)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", s.Name, phase, s.WorkersActive, s.WorkersSucceeded, s.WorkersFailed)
			}
			return tw.Flush()
		},
	}
	kubeNamespaceFlag(cmd, &ns)
	cmd.Flags().BoolVarP(&all, "all-namespaces", "A", false, "list the benchmarks of every namespace")
	return cmd
}

// newKubeNamedCommand builds `kube show NAME`, `kube cancel NAME` and `kube delete NAME`.
func newKubeNamedCommand(env *Env, use string, client func() (kubernetes.Interface, error), dyn func() (dynamic.Interface, error)) *cobra.Command {
	var ns string
	short := "Cancel a running benchmark (suspend its workers; the controller writes partial artifacts)"
	switch use {
	case "delete":
		short = "Delete a benchmark's objects (Jobs, pods, Service, ConfigMap, ServiceAccount)"
	case "show":
		short = "Show a benchmark's state and the controller's command line"
	}
	cmd := &cobra.Command{
		Use:   use + " [NAME]",
		Short: short,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, err := kubeTarget(env, cmd, args, &ns)
			if err != nil {
				return err
			}
			args = []string{name}
			// An AIPerfJob of that name is the operator's: cancel and
			// delete go through it (cmd_kube_operator.go).
			if handled, err := aiperfJobNamed(cmd.Context(), env, dyn, use, ns, args[0]); handled || err != nil {
				return err
			}
			cs, err := client()
			if err != nil {
				return err
			}
			if use == "show" {
				sh, err := kube.Describe(cmd.Context(), cs, ns, args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "benchmark:  %s/%s\nphase:      %s\nworkers:    %d active, %d succeeded, %d failed\ncontroller: %s\ncommand:    aiperf %s\n",
					ns, sh.Name, sh.Phase, sh.WorkersActive, sh.WorkersSucceeded, sh.WorkersFailed, sh.Controller, strings.Join(sh.ProfileArgs, " "))
				return nil
			}
			if use == "cancel" {
				if err := kube.Cancel(cmd.Context(), cs, ns, args[0]); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "benchmark %s/%s cancelled\n", ns, args[0])
				return nil
			}
			dc, err := dyn()
			if err != nil {
				return err
			}
			n, err := kube.Delete(cmd.Context(), cs, dc, ns, args[0])
			fmt.Fprintf(env.Stdout, "benchmark %s/%s: %d objects deleted\n", ns, args[0], n)
			return err
		},
	}
	kubeNamespaceFlag(cmd, &ns)
	return cmd
}

// checkProfileArgs parses the controller pod's command line with this
// build's own profile command (nothing runs), so a bad flag is reported
// here rather than in a pod's log. It reports whether the command line
// runs an experiment (a sweep, repeated runs or a search) rather than one
// run.
func checkProfileArgs(ctx context.Context, args []string) (experiment bool, err error) {
	var errOut bytes.Buffer
	env := Env{Stdout: io.Discard, Stderr: &errOut,
		Runner: func(_ context.Context, cfg *config.Config, rio cli.RunIO) error {
			experiment = rio.Search != nil || len(rio.Variations) > 1 || cfg.Experiment.NumProfileRuns > 1
			return nil
		}}
	if code := cli.Main(ctx, args, env); code != 0 {
		return false, fmt.Errorf("the profile arguments do not parse (exit %d):\n%s", code, strings.TrimSpace(errOut.String()))
	}
	return experiment, nil
}

func newKubeLogsCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var ns string
	var workers, follow bool
	cmd := &cobra.Command{
		Use:   "logs [NAME]",
		Short: "Print the controller pod's log (--workers: every worker pod's)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, cs, err := kubeTargetClient(env, cmd, args, &ns, client)
			if err != nil {
				return err
			}
			role := "controller"
			if workers {
				role = "worker"
			}
			return kube.Logs(cmd.Context(), cs, ns, name, role, follow, env.Stdout)
		},
	}
	kubeNamespaceFlag(cmd, &ns)
	cmd.Flags().BoolVar(&workers, "workers", false, "the worker pods' logs instead of the controller's")
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "stream the logs until the pods end")
	return cmd
}

// pullPolicy is --image-pull-policy: one of Kubernetes' three.
type pullPolicy struct{ p *corev1.PullPolicy }

func (v pullPolicy) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}

func (v pullPolicy) Set(s string) error {
	switch p := corev1.PullPolicy(s); p {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		*v.p = p
		return nil
	}
	return fmt.Errorf("want Always, IfNotPresent or Never")
}

func (pullPolicy) Type() string { return "policy" }
