package kubecli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
)

// TestKubeCommandsDefaultToTheLastBenchmark: the benchmark kube profile
// created last (AIPerf's ~/.aiperf/last_kube_benchmark.json) is the one
// a command without NAME acts on, in its namespace unless -n is given;
// without one the command asks for a NAME.
func TestKubeCommandsDefaultToTheLastBenchmark(t *testing.T) {
	home := t.TempDir()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	saveLastBenchmark(&env, "bench7", "perf7")
	b, err := os.ReadFile(filepath.Join(home, ".aiperf", "last_kube_benchmark.json"))
	if err != nil || !strings.Contains(string(b), `"job_id":"bench7"`) || !strings.Contains(string(b), `"namespace":"perf7"`) {
		t.Fatalf("saved %s, %v", b, err)
	}
	ks := kubetest.New()
	defer ks.Close()
	kc := kubeconfigFor(t, ks.URL)
	run := func(args ...string) (int, string) {
		out.Reset()
		errOut.Reset()
		code := Main(context.Background(), append([]string{"kube", "--kubeconfig", kc}, args...), env)
		return code, out.String() + errOut.String()
	}
	if code, s := run("attach", "--ignore-not-found"); code != 0 || !strings.Contains(s, "benchmark perf7/bench7 not found") {
		t.Errorf("attach without NAME: exit %d %s", code, s)
	}
	if code, s := run("attach", "--ignore-not-found", "-n", "other"); code != 0 || !strings.Contains(s, "benchmark other/bench7 not found") {
		t.Errorf("attach -n other: exit %d %s", code, s)
	}
	if code, s := run("results", "named1", "-o", t.TempDir()); code != 1 || !strings.Contains(s, "aiperf/named1") {
		t.Errorf("results NAME (default namespace): exit %d %s", code, s)
	}
	os.RemoveAll(filepath.Join(home, ".aiperf"))
	if code, s := run("shutdown"); code != 2 || !strings.Contains(s, "name the benchmark") {
		t.Errorf("shutdown without NAME or record: exit %d %s", code, s)
	}
}
