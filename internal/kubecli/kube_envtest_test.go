package kubecli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
)

// TestKubeCommandsAgainstARealAPIServer drives docs/kubernetes.md's kube commands
// through a kubeconfig against envtest's kube-apiserver and etcd
// (AIPERF_ENVTEST=1 KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh)):
// preflight's real access reviews, profile (two Jobs: no JobSet CRD
// served), sweep (workers that rejoin each run), list, show, debug,
// cancel and cleanup. No kubelet runs there, so no pod starts: attach and
// results are tested against kubetest's pod proxy instead.
func TestKubeCommandsAgainstARealAPIServer(t *testing.T) {
	cfg := kubetest.StartControlPlane(t)
	kc := kubetest.Kubeconfig(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kube1 := func(args ...string) result {
		t.Helper()
		return runMain(t, ctx, nil, append([]string{"kube", "--kubeconfig", kc}, args...)...)
	}

	r := kube1("preflight", "-n", "perf", "-w", "2", "-o", "json")
	var pf struct {
		Passed bool
		Checks []kube.Check
	}
	if err := json.Unmarshal([]byte(r.stdout), &pf); err != nil || r.code != 1 || pf.Passed {
		t.Fatalf("preflight: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	status := map[string]string{}
	for _, c := range pf.Checks {
		status[c.Name] = c.Status
	}
	for name, want := range map[string]string{"API server": kube.CheckPass, "namespace": kube.CheckWarn, "RBAC": kube.CheckPass,
		"JobSet CRD": kube.CheckPass, "nodes": kube.CheckFail} {
		if status[name] != want {
			t.Errorf("preflight %s: %s; want %s\n%s", name, status[name], want, r.stdout)
		}
	}

	r = kube1("profile", "--name", "e1", "-n", "perf", "--workers", "2", "--", "-m", "m", "-u", "http://vllm.perf.svc:8000", "--concurrency", "4")
	if r.code != 0 || !strings.Contains(r.stdout, "benchmark e1 created in namespace perf") {
		t.Fatalf("profile: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kube1("sweep", "--name", "s1", "-n", "perf", "--workers", "2", "--trials", "2", "--", "-m", "m", "-u", "http://vllm.perf.svc:8000")
	if r.code != 0 {
		t.Fatalf("sweep: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	w, err := cs.BatchV1().Jobs("perf").Get(ctx, "s1-workers", metav1.GetOptions{})
	if err != nil || !slices.Contains(w.Spec.Template.Spec.Containers[0].Args, "--next-run-timeout") {
		t.Errorf("the sweep's workers: %v %v", err, w)
	}
	r = kube1("list", "-n", "perf")
	if r.code != 0 || !strings.Contains(r.stdout, "e1") || !strings.Contains(r.stdout, "s1") {
		t.Errorf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kube1("show", "e1", "-n", "perf")
	if r.code != 0 || !strings.Contains(r.stdout, "e1-controller.perf.svc:7070") || !strings.Contains(r.stdout, "--api-port 9090") {
		t.Errorf("show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kube1("debug", "e1", "-n", "perf")
	if r.code != 0 || !strings.Contains(r.stdout, "benchmark perf/e1") || !strings.Contains(r.stdout, "pods:\n  (none)") {
		t.Errorf("debug: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kube1("cancel", "e1", "-n", "perf")
	if r.code != 0 {
		t.Errorf("cancel: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if w, _ := cs.BatchV1().Jobs("perf").Get(ctx, "e1-workers", metav1.GetOptions{}); w.Spec.Suspend == nil || !*w.Spec.Suspend {
		t.Errorf("cancel did not suspend the workers")
	}
	// No Job controller runs, so neither benchmark ever finishes: cleanup
	// leaves them, --all takes them and the namespace aiperf created.
	r = kube1("cleanup", "-n", "perf", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "still running") {
		t.Errorf("cleanup --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = kube1("cleanup", "-n", "perf", "--all", "--force", "--delete-namespace")
	if r.code != 0 || !strings.Contains(r.stdout, "Removed 2 benchmark(s) (10 objects)") || !strings.Contains(r.stdout, "Deleted namespace perf") {
		t.Errorf("cleanup --all: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if jobs, _ := cs.BatchV1().Jobs("perf").List(ctx, metav1.ListOptions{}); len(jobs.Items) != 0 {
		t.Errorf("after cleanup: %d Jobs left", len(jobs.Items))
	}
}
