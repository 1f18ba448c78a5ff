package kubecli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
)

// lastBenchmark is AIPerf's ~/.aiperf/last_kube_benchmark.json: the
// benchmark `kube profile`/`kube sweep` created last, which the commands
// that take a NAME use when it is left out (as AIPerf's do).
type lastBenchmark struct {
	JobID     string `json:"job_id"`
	Namespace string `json:"namespace"`
	Name      string `json:"name,omitempty"`
}

// lastBenchmarkPath is the file under $HOME ("" without a HOME, as in
// tests, which then neither read nor write it).
func lastBenchmarkPath(env *Env) string {
	if env.Getenv == nil || env.Getenv("HOME") == "" {
		return ""
	}
	return filepath.Join(env.Getenv("HOME"), ".aiperf", "last_kube_benchmark.json")
}

// saveLastBenchmark records the benchmark just created; failing to is
// only a warning.
func saveLastBenchmark(env *Env, name, namespace string) {
	p := lastBenchmarkPath(env)
	if p == "" {
		return
	}
	b, _ := json.Marshal(lastBenchmark{JobID: name, Namespace: namespace, Name: name})
	err := os.MkdirAll(filepath.Dir(p), 0o755)
	if err == nil {
		err = os.WriteFile(p, b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "warning: could not record the last benchmark: %v\n", err)
	}
}

// kubeTargetClient is kubeTarget and then a client for the cluster.
func kubeTargetClient(env *Env, cmd *cobra.Command, args []string, ns *string, client func() (kubernetes.Interface, error)) (string, kubernetes.Interface, error) {
	name, err := kubeTarget(env, cmd, args, ns)
	if err != nil {
		return "", nil, err
	}
	cs, err := client()
	return name, cs, err
}

// kubeTarget is the benchmark a command names: its NAME argument, else
// the last one created (and its namespace, unless -n is given).
func kubeTarget(env *Env, cmd *cobra.Command, args []string, ns *string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	p := lastBenchmarkPath(env)
	b, err := os.ReadFile(p)
	if p == "" || err != nil {
		return "", kubeUsage(cmd.Name(), errors.New("name the benchmark: no NAME and no last deployed benchmark (~/.aiperf/last_kube_benchmark.json)"))
	}
	var last lastBenchmark
	if err := json.Unmarshal(b, &last); err != nil || last.JobID == "" {
		return "", kubeUsage(cmd.Name(), fmt.Errorf("%s: not a last-benchmark record; name the benchmark", p))
	}
	if !cmd.Flags().Changed("namespace") && last.Namespace != "" {
		*ns = last.Namespace
	}
	return last.JobID, nil
}
