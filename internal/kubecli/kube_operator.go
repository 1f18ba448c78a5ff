package kubecli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr/funcr"
	goyaml "github.com/goccy/go-yaml"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
	"github.com/aiperf-go/aiperf/internal/kube/operator"
)

// The operator's commands: `kube install` (CRDs, RBAC and the
// operator's Deployment), `kube operator` (the operator itself, what that
// Deployment runs) and `kube profile --operator` (an AIPerfJob instead of
// direct mode's objects).

// newKubeInstallCommand builds `aiperf kube install`.
func newKubeInstallCommand(env *Env, restConfig func() (*rest.Config, error)) *cobra.Command {
	var o operator.InstallOptions
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the AIPerfJob/AIPerfSweep CRDs and the operator (RBAC, Deployment); --dry-run prints the YAML",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			objs, err := operator.InstallObjects(o)
			if err != nil {
				return kubeUsage("install", err)
			}
			if dryRun {
				y, err := operator.YAML(objs)
				if err != nil {
					return err
				}
				_, err = env.Stdout.Write(y)
				return err
			}
			c, err := operatorClient(restConfig)
			if err != nil {
				return err
			}
			done, err := operator.Apply(cmd.Context(), c, objs)
			for _, d := range done {
				fmt.Fprintln(env.Stdout, d)
			}
			if err != nil {
				return err
			}
			if o.WithoutCRDs {
				return nil
			}
			if err := wait.PollUntilContextTimeout(cmd.Context(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				return operator.Established(ctx, c)
			}); err != nil {
				return fmt.Errorf("the CRDs were applied but are not established after 30 s: %w", err)
			}
			fmt.Fprintf(env.Stdout, "the operator runs in namespace %s; submit a benchmark with: aiperf kube profile --operator --config FILE\n", o.Namespace)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Namespace, "namespace", "n", operator.DefaultOperatorNamespace, "namespace of the operator")
	f.StringVar(&o.Name, "name", operator.DefaultOperatorName, "name of the operator's objects")
	f.StringVar(&o.Image, "image", kube.DefaultImage, "aiperf image (the operator, and the benchmarks' default)")
	f.StringVar(&o.WatchNamespace, "watch-namespace", "", "reconcile AIPerfJobs of this namespace only (default: all)")
	f.BoolVar(&o.WithoutCRDs, "without-crds", false, "leave the CRDs out (installed separately)")
	f.BoolVar(&dryRun, "dry-run", false, "print the manifests (YAML) instead of applying them")
	return cmd
}

// newKubeOperatorCommand builds `aiperf kube operator`, the operator
// process (in the Deployment `kube install` creates, or anywhere with a
// kubeconfig).
func newKubeOperatorCommand(env *Env, restConfig func() (*rest.Config, error)) *cobra.Command {
	var o operator.RunOptions
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Run the AIPerfJob operator (what `kube install` deploys): reconcile AIPerfJobs into benchmarks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := restConfig()
			if err != nil {
				return err
			}
			ctrl.SetLogger(funcr.New(func(prefix, args string) {
				fmt.Fprintln(env.Stderr, time.Now().UTC().Format(time.RFC3339), prefix, args)
			}, funcr.Options{}))
			o.Validate = validateOperatorCommand
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			o.Runs = operator.ControllerRuns{Clientset: cs}
			fmt.Fprintf(env.Stderr, "aiperf operator: watching AIPerfJobs in %s\n", map[bool]string{true: "all namespaces", false: "namespace " + o.WatchNamespace}[o.WatchNamespace == ""])
			return operator.Run(cmd.Context(), cfg, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Image, "image", kube.DefaultImage, "the benchmarks' image when spec.image is empty")
	f.StringVar(&o.WatchNamespace, "watch-namespace", "", "reconcile AIPerfJobs of this namespace only (default: all)")
	f.StringVar(&o.MetricsAddr, "metrics-bind-address", fmt.Sprintf(":%d", operator.MetricsPort), "metrics listen address (0: off)")
	f.BoolVar(&o.LeaderElect, "leader-elect", false, "reconcile only while holding the operator's Lease (what kube install's Deployment runs)")
	f.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "", "namespace of the Lease (default: the pod's own; needed outside a cluster)")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", fmt.Sprintf(":%d", operator.ProbePort), "/healthz and /readyz listen address (0: off)")
	return cmd
}

func operatorClient(restConfig func() (*rest.Config, error)) (ctrlclient.Client, error) {
	cfg, err := restConfig()
	if err != nil {
		return nil, err
	}
	s, err := operator.Scheme()
	if err != nil {
		return nil, err
	}
	return ctrlclient.New(cfg, ctrlclient.Options{Scheme: s})
}

// validateControllerCommand parses a benchmark's controller command line
// (its config file, written to a temporary file, and its arguments) with
// this build's own profile command; nothing runs.
func validateControllerCommand(ctx context.Context, o kube.Options) error {
	_, err := parseControllerCommand(ctx, o)
	return err
}

// parseControllerCommand is validateControllerCommand that also reports
// whether the command runs an experiment (a sweep or repeated runs).
func parseControllerCommand(ctx context.Context, o kube.Options) (experiment bool, err error) {
	if err := o.Validate(); err != nil {
		return false, err
	}
	args := o.ControllerArgs()
	if len(o.ConfigFile) > 0 {
		dir, err := os.MkdirTemp("", "aiperf-kube-config-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
		tmp := filepath.Join(dir, filepath.Base(kube.ConfigPath))
		if err := os.WriteFile(tmp, o.ConfigFile, 0o600); err != nil {
			return false, err
		}
		for i, a := range args {
			if a == kube.ConfigPath {
				args[i] = tmp
			}
		}
	}
	experiment, err = checkProfileArgs(ctx, args)
	if err != nil && len(o.ConfigFile) > 0 {
		// Name the file as the user knows it.
		err = errors.New(strings.ReplaceAll(err.Error(), filepath.Join(os.TempDir(), "aiperf-kube-config-"), "spec:"))
	}
	return experiment, err
}

// benchmarkSpec reads --config FILE: an AIPerfJob (or AIPerfSweep) manifest,
// an envelope-shaped config file (a top-level benchmark key) or a flat one
// (the body itself), as a workload spec; name is the manifest's name.
func benchmarkSpec(path string) (spec v1alpha1.WorkloadSpec, name string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return spec, "", err
	}
	// YAML 1.2 (goccy), as the config loader reads it: sigs.k8s.io/yaml's
	// YAML 1.1 would turn a key such as y: (a plot axis) into "true".
	j, err := goyaml.YAMLToJSON(b)
	if err != nil {
		return spec, "", fmt.Errorf("%s: %w", path, err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(j, &doc); err != nil {
		return spec, "", fmt.Errorf("%s: not a YAML mapping: %w", path, err)
	}
	if _, ok := doc["kind"]; ok {
		var cr v1alpha1.AIPerfJob
		if err := json.Unmarshal(j, &cr); err != nil {
			return spec, "", fmt.Errorf("%s: %w", path, err)
		}
		if cr.APIVersion != v1alpha1.APIVersion || (cr.Kind != v1alpha1.KindAIPerfJob && cr.Kind != v1alpha1.KindAIPerfSweep) {
			return spec, "", fmt.Errorf("%s: %s %s is not an AIPerfJob (%s)", path, cr.APIVersion, cr.Kind, v1alpha1.APIVersion)
		}
		return cr.Spec, cr.Name, nil
	}
	if _, ok := doc["benchmark"]; ok {
		err = json.Unmarshal(j, &spec)
	} else {
		spec.Benchmark = runtime.RawExtension{Raw: j}
	}
	if err != nil {
		return spec, "", fmt.Errorf("%s: %w", path, err)
	}
	return spec, "", nil
}

// submitAIPerfJob is `kube profile --operator`: the benchmark as an
// AIPerfJob (printed with --dry-run, else created for the operator).
func submitAIPerfJob(cmd *cobra.Command, env *Env, restConfig func() (*rest.Config, error), o kube.Options, spec v1alpha1.WorkloadSpec, print, sweep bool) error {
	use := cmd.Name()
	workers := int32(o.Workers)
	spec.Image, spec.TotalWorkers, spec.ProfileArgs = o.Image, &workers, o.ProfileArgs
	if o.ImagePullPolicy != "" {
		spec.ImagePullPolicy = string(o.ImagePullPolicy)
	}
	if r := o.APIKeySecret; r != nil {
		spec.APIKeySecret = &v1alpha1.SecretKeyRef{Name: r.Name, Key: r.Key}
	}
	for _, r := range o.HeaderSecrets {
		spec.HeaderSecrets = append(spec.HeaderSecrets, v1alpha1.HeaderSecret{Header: r.Header, Name: r.Name, Key: r.Key})
	}
	secret := o.CredentialsSecret // created after the resource, which owns it
	if len(spec.Benchmark.Raw) == 0 {
		spec.Benchmark = runtime.RawExtension{Raw: []byte("{}")}
	}
	kind, plural := v1alpha1.KindAIPerfJob, "aiperfjob"
	var obj ctrlclient.Object
	meta0 := metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace}
	if sweep {
		kind, plural = v1alpha1.KindAIPerfSweep, "aiperfsweep"
		if spec.Sweep == nil {
			// The variations come from list-valued profile arguments or
			// --trials; the CRD still requires the key.
			spec.Sweep = &runtime.RawExtension{Raw: []byte("{}")}
		}
		obj = &v1alpha1.AIPerfSweep{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: kind}, ObjectMeta: meta0, Spec: spec}
	} else {
		obj = &v1alpha1.AIPerfJob{TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: kind}, ObjectMeta: meta0, Spec: spec}
	}
	cfg, err := spec.ConfigFile()
	if err != nil {
		return kubeUsage(use, err)
	}
	o.ConfigFile, o.Experiment = cfg, sweep
	if err := o.Validate(); err != nil {
		return kubeUsage(use, err)
	}
	if err := validateOperatorCommand(cmd.Context(), o); err != nil {
		return kubeUsage(use, err)
	}
	if print {
		// The resource as one would kubectl apply it: no status.
		y, err := yaml.Marshal(struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta     `json:"metadata"`
			Spec            v1alpha1.WorkloadSpec `json:"spec"`
		}{metav1.TypeMeta{APIVersion: v1alpha1.APIVersion, Kind: kind}, meta0, spec})
		if err != nil {
			return err
		}
		if secret != nil { // the Secret the resource names, to apply with it
			sy, err := yaml.Marshal(secret)
			if err != nil {
				return err
			}
			y = append(append(sy, "---\n"...), y...)
		}
		_, err = env.Stdout.Write(y)
		return err
	}
	c, err := operatorClient(restConfig)
	if err != nil {
		return err
	}
	if o.CreateNamespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: map[string]string{kube.LabelName: "aiperf"}}}
		if err := c.Create(cmd.Context(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", o.Namespace, err)
		}
	}
	if err := c.Create(cmd.Context(), obj); err != nil {
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			return fmt.Errorf("creating %s %s/%s: %w (is the operator installed? aiperf kube install)", kind, o.Namespace, o.Name, err)
		}
		return fmt.Errorf("creating %s %s/%s: %w", kind, o.Namespace, o.Name, err)
	}
	if secret != nil {
		// Owned by the resource: deleting it deletes the Secret. Until
		// the Secret exists the controller pod waits (the kubelet retries).
		secret.OwnerReferences = []metav1.OwnerReference{{APIVersion: v1alpha1.APIVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID()}}
		if err := c.Create(cmd.Context(), secret); err != nil {
			return fmt.Errorf("creating the credentials Secret %s/%s: %w", secret.Namespace, secret.Name, err)
		}
	}
	saveLastBenchmark(env, o.Name, o.Namespace) // later commands may leave NAME out
	fmt.Fprintf(env.Stdout, "%s %s/%s created: %d load workers; the operator creates its objects\n"+
		"watch it with:      kubectl -n %s get %s %s -w\n"+
		"then fetch it with: aiperf kube results %s -n %s --shutdown\n",
		kind, o.Namespace, o.Name, o.Workers, o.Namespace, plural, o.Name, o.Name, o.Namespace)
	return nil
}

// validateOperatorCommand is the operator's check of a benchmark's
// controller command line: it parses, and it is one run for an AIPerfJob,
// an experiment (a sweep, trials) for an AIPerfSweep.
func validateOperatorCommand(ctx context.Context, o kube.Options) error {
	experiment, err := parseControllerCommand(ctx, o)
	switch {
	case err != nil:
		return err
	case experiment && !o.Experiment:
		return errors.New("the benchmark is a sweep (list values, trials or a sweep block): submit it as an AIPerfSweep (aiperf kube sweep --operator)")
	case !experiment && o.Experiment:
		return errors.New("the AIPerfSweep's benchmark is one run: give its sweep block variations (or list values, --trials N), or submit an AIPerfJob")
	}
	return nil
}

// aiperfJobNamed handles `kube cancel|delete|show NAME` for a benchmark
// the operator runs, as AIPerf's CLI does: cancel sets spec.cancel (the
// operator suspends the workers and reports Cancelled), delete deletes the
// AIPerfJob (its finalizer deletes the objects; deleting them alone would
// only have the operator recreate them), show prints its status first.
// handled is false when there is no such AIPerfJob (or no CRD): the
// direct-mode command goes on.
func aiperfJobNamed(ctx context.Context, env *Env, dyn func() (dynamic.Interface, error), use, ns, name string) (handled bool, err error) {
	dc, err := dyn()
	if err != nil {
		return false, err
	}
	var res dynamic.ResourceInterface
	var u *unstructured.Unstructured
	kind := ""
	for _, r := range []struct {
		kind string
		gvr  schema.GroupVersionResource
	}{{v1alpha1.KindAIPerfJob, v1alpha1.AIPerfJobResource}, {v1alpha1.KindAIPerfSweep, v1alpha1.AIPerfSweepResource}} {
		res = dc.Resource(r.gvr).Namespace(ns)
		u, err = res.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("%s %s/%s: %w", r.kind, ns, name, err)
		}
		kind = r.kind
		break
	}
	if kind == "" {
		return false, nil
	}
	switch use {
	case "cancel":
		if _, err := res.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"cancel":true}}`), metav1.PatchOptions{}); err != nil {
			return true, fmt.Errorf("cancelling %s %s/%s: %w", kind, ns, name, err)
		}
		fmt.Fprintf(env.Stdout, "%s %s/%s: spec.cancel set; the operator suspends its workers (phase Cancelled)\n", kind, ns, name)
		return true, nil
	case "delete":
		if err := res.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return true, fmt.Errorf("deleting %s %s/%s: %w", kind, ns, name, err)
		}
		fmt.Fprintf(env.Stdout, "%s %s/%s deleted; the operator deletes its objects\n", kind, ns, name)
		return true, nil
	case "show":
	default:
		return false, nil
	}
	var job v1alpha1.AIPerfJob // a sweep's status has the same run fields
	var sweep v1alpha1.AIPerfSweep
	if kind == v1alpha1.KindAIPerfSweep {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &sweep)
		st := sweep.Status
		job.Status = v1alpha1.AIPerfJobStatus{Lifecycle: st.Lifecycle, Workers: st.Workers, ResultsPath: st.ResultsPath, APIURL: st.APIURL, Error: st.Error}
	} else {
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &job)
	}
	if err != nil {
		return true, fmt.Errorf("%s %s/%s: %w", kind, ns, name, err)
	}
	st := job.Status
	fmt.Fprintf(env.Stdout, "%s:%s%s/%s (operator)\nphase:      %s\n", kind, strings.Repeat(" ", max(1, 11-len(kind))), ns, name, orDash(string(st.Phase)))
	if st.Workers != nil {
		fmt.Fprintf(env.Stdout, "workers:    %d of %d ready\n", st.Workers.Ready, st.Workers.Total)
	}
	for _, c := range st.Conditions {
		fmt.Fprintf(env.Stdout, "condition:  %s=%s (%s) %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	if st.ResultsPath != "" {
		fmt.Fprintf(env.Stdout, "results:    %s (API server path %s)\n", st.ResultsPath, st.APIURL)
	}
	if st.Error != "" {
		fmt.Fprintf(env.Stdout, "error:      %s\n", st.Error)
	}
	return false, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
