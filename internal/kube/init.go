package kube

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// AIPerfJob's group/version and kind (AIPerf 0.13's CRD).
const (
	AIPerfAPIVersion = "aiperf.nvidia.com/v1alpha1"
	KindAIPerfJob    = "AIPerfJob"
)

// WrapAsAIPerfJob wraps a benchmark config file body in an AIPerfJob
// custom resource, as AIPerf 0.13's `kube init` does: the config is the
// resource's spec (spec.benchmark its body). An envelope-shape config (a
// top-level benchmark: key, as every bundled template) goes one level
// under spec:, a flat body (benchmark fields at the top) under
// spec.benchmark:. The config's leading comment block (template
// metadata, a "run it with" line that no longer applies) is dropped;
// the rest, comments included, is kept as written. Commented deployment
// options (TTL, pod customization, Kueue) follow, as in AIPerf's.
func WrapAsAIPerfJob(body, filename, jobName string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	i := 0
	for i < len(lines) && (strings.HasPrefix(strings.TrimSpace(lines[i]), "#") || strings.TrimSpace(lines[i]) == "") {
		i++
	}
	lines = lines[i:]
	indent := "    "
	var top map[string]any
	if err := yaml.Unmarshal([]byte(strings.Join(lines, "\n")), &top); err == nil {
		if _, ok := top["benchmark"]; ok {
			indent = "  "
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# AIPerf Kubernetes benchmark: an AIPerfJob custom resource.\n#\n"+
		"#   aiperf kube validate %[1]s   # check it offline\n"+
		"#   kubectl apply -f %[1]s       # hand it to the AIPerf operator\n#\n"+
		"# spec is the benchmark config (spec.benchmark its body) plus the deployment options below.\n\n"+
		"apiVersion: %[2]s\nkind: %[3]s\nmetadata:\n  name: %[4]s\nspec:\n", filename, AIPerfAPIVersion, KindAIPerfJob, jobName)
	if indent == "    " {
		b.WriteString("  benchmark:\n")
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(indent + l + "\n")
	}
	b.WriteString(deploymentOptionsComment)
	return b.String()
}

const deploymentOptionsComment = `
  # --- Deployment options ---
  # ttlSecondsAfterFinished: 300
  # timeoutSeconds: 0
  # totalWorkers: 4

  # --- Pod customization ---
  # podTemplate:
  #   nodeSelector:
  #     nvidia.com/gpu.product: "A100"
  #   tolerations:
  #     - key: nvidia.com/gpu
  #       operator: Exists
  #       effect: NoSchedule
  #   imagePullSecrets:
  #     - my-registry-secret
  #   env:
  #     - name: AIPERF_HTTP_CONNECTION_LIMIT
  #       value: "200"

  # --- Kueue scheduling ---
  # scheduling:
  #   queueName: my-queue
  #   priorityClass: high-priority
`
