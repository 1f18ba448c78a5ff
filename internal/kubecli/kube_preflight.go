package kubecli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/kube"
)

// newKubePreflightCommand builds `aiperf kube preflight`: check that the
// cluster can run a benchmark before deploying one (AIPerf's flags).
func newKubePreflightCommand(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
	var o kube.PreflightOptions
	var image, output string
	var nodeSelector []string
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Check the cluster before deploying: API, namespace, RBAC, JobSet CRD, secrets, quota, nodes, endpoint",
		Example: "  aiperf kube preflight -n perf --workers 8 --worker-cpu 2 --worker-memory 2Gi\n" +
			"  aiperf kube preflight --image-pull-secret regcred --endpoint-url http://vllm.perf.svc:8000 -o json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "text" && output != "json" {
				return kubeUsage("preflight", fmt.Errorf("--output %q: want text or json", output))
			}
			for _, kv := range nodeSelector {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return kubeUsage("preflight", fmt.Errorf("--node-selector %q: want key=value", kv))
				}
				if o.NodeSelector == nil {
					o.NodeSelector = map[string]string{}
				}
				o.NodeSelector[k] = v
			}
			if o.Workers < 1 {
				return kubeUsage("preflight", fmt.Errorf("--workers: must be at least 1, got %d", o.Workers))
			}
			cs, err := client()
			if err != nil {
				return err
			}
			checks := kube.Preflight(cmd.Context(), cs, o)
			if image != "" {
				checks = append(checks, imageCheck(image))
			}
			failed := 0
			for _, c := range checks {
				if c.Status == kube.CheckFail {
					failed++
				}
			}
			if output == "json" {
				b, _ := json.MarshalIndent(map[string]any{"namespace": o.Namespace, "passed": failed == 0, "checks": checks}, "", "  ")
				fmt.Fprintln(env.Stdout, string(b))
			} else {
				tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
				for _, c := range checks {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", strings.ToUpper(c.Status), c.Name, c.Detail)
				}
				tw.Flush()
			}
			if failed > 0 {
				return &config.ExitError{Code: config.ExitFailure, Err: fmt.Errorf("preflight: %d of %d checks failed in namespace %s", failed, len(checks), o.Namespace)}
			}
			if output == "text" {
				fmt.Fprintf(env.Stdout, "preflight: all %d checks passed or warned in namespace %s\n", len(checks), o.Namespace)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	kubeNamespaceFlag(cmd, &o.Namespace)
	fl.StringVarP(&image, "image", "i", "", "container image reference to check (its form; pulling is the nodes' business)")
	fl.StringSliceVar(&o.ImagePullSecrets, "image-pull-secret", nil, "image pull secret that must exist (repeatable)")
	fl.StringSliceVar(&o.ImagePullSecrets, "image-pull-secrets", nil, "same as --image-pull-secret")
	fl.StringSliceVar(&o.Secrets, "secret", nil, "secret the benchmark references that must exist (repeatable)")
	fl.StringSliceVar(&o.Secrets, "secrets", nil, "same as --secret")
	fl.StringVarP(&o.EndpointURL, "endpoint-url", "e", "", "LLM endpoint URL to probe (from this machine)")
	fl.IntVarP(&o.Workers, "workers", "w", 1, "planned number of worker pods (for the quota and node projection)")
	fl.StringVar(&o.WorkerCPU, "worker-cpu", "", "planned CPU request of each worker pod")
	fl.StringVar(&o.WorkerMemory, "worker-memory", "", "planned memory request of each worker pod")
	fl.StringVarP(&output, "output", "o", "text", "output format: text or json")
	fl.StringArrayVar(&nodeSelector, "node-selector", nil, "key=value label the pods' nodes must have (repeatable): the node check counts only those nodes")
	return cmd
}

// imageCheck checks an image reference's form:
// [registry[:port]/]repository[:tag][@sha256:digest], the repository in
// lower case.
func imageCheck(ref string) kube.Check {
	bad := func(why string) kube.Check {
		return kube.Check{Name: "image", Status: kube.CheckFail, Detail: fmt.Sprintf("%s: not a valid image reference (%s)", ref, why)}
	}
	name, digest, hasDigest := strings.Cut(ref, "@")
	if hasDigest && (!strings.HasPrefix(digest, "sha256:") || len(digest) != len("sha256:")+64) {
		return bad("the digest is not sha256:<64 hex digits>")
	}
	repo := name
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		repo = name[:i]
		if name[i+1:] == "" {
			return bad("empty tag")
		}
	}
	switch {
	case repo == "" || strings.ContainsAny(ref, " \t"):
		return bad("empty or with spaces")
	case repo != strings.ToLower(repo):
		return bad("the repository must be lower case")
	}
	return kube.Check{Name: "image", Status: kube.CheckPass, Detail: ref + " (its form; whether the nodes can pull it shows in kube debug)"}
}
