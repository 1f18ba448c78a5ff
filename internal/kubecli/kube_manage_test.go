package kubecli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/aiperf-go/aiperf/internal/configfile"
	"github.com/aiperf-go/aiperf/internal/kube"
)

// TestKubeInitWritesJobsThatValidate: `kube init` wraps every bundled
// template in an AIPerfJob that `kube validate` accepts, with --model and
// --url filled in, and --list names this command in its hint.
func TestKubeInitWritesJobsThatValidate(t *testing.T) {
	dir := t.TempDir()
	for _, tm := range configfile.Templates() {
		out := filepath.Join(dir, tm.Name+".yaml")
		r := runMain(t, context.Background(), nil, "kube", "init", "-t", tm.Name, "--model", "llama-x",
			"--url", "http://vllm.perf.svc:8000", "--job-name", strings.ReplaceAll(tm.Name, "_", "-"), "-o", out)
		if r.code != 0 || !strings.Contains(r.stdout, "Created "+out) {
			t.Fatalf("%s: exit %d\n%s%s", tm.Name, r.code, r.stdout, r.stderr)
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), "kind: AIPerfJob") || !strings.Contains(string(b), "llama-x") || !strings.Contains(string(b), "vllm.perf.svc") {
			t.Errorf("%s: the manifest lacks the kind or the overrides:\n%s", tm.Name, b)
		}
		r = runMain(t, context.Background(), nil, "kube", "validate", out)
		if r.code != 0 {
			t.Errorf("%s: the generated AIPerfJob does not validate: %s\n%s", tm.Name, r.stderr, b)
		}
	}
	r := runMain(t, context.Background(), nil, "kube", "init")
	if r.code != 0 || !strings.Contains(r.stdout, "name: my-benchmark") || !strings.Contains(r.stdout, "\n  benchmark:\n") {
		t.Errorf("default: exit %d\n%s", r.code, r.stdout)
	}
	r = runMain(t, context.Background(), nil, "kube", "init", "--list")
	if r.code != 0 || !strings.Contains(r.stdout, "minimal") || !strings.Contains(r.stdout, "aiperf kube init --template") {
		t.Errorf("--list: exit %d\n%s", r.code, r.stdout)
	}
	for _, bad := range [][]string{{"-t", "no_such"}, {"--job-name", "Bad_Name"}} {
		if r := runMain(t, context.Background(), nil, append([]string{"kube", "init"}, bad...)...); r.code == 0 || r.stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

func TestWrapAsAIPerfJobFlatBody(t *testing.T) {
	doc := kube.WrapAsAIPerfJob("# a note\nmodel: m\nendpoint:\n  url: http://x\n", "b.yaml", "j1")
	if !strings.Contains(doc, "spec:\n  benchmark:\n    model: m\n    endpoint:\n      url: http://x\n") || strings.Contains(doc, "a note") {
		t.Errorf("flat body wrapped as\n%s", doc)
	}
}

// kubeObjects creates a benchmark's objects in cs and sets its
// controller Job's state.
func kubeObjects(t *testing.T, cs kubernetes.Interface, ns, name string, cond batchv1.JobConditionType, active int32) {
	t.Helper()
	objs, err := kube.Objects(kube.Options{Name: name, Namespace: ns, Workers: 2, CreateNamespace: true, ProfileArgs: []string{"-m", "m"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := kube.Create(ctx, cs, nil, objs); err != nil {
		t.Fatal(err)
	}
	j, _ := cs.BatchV1().Jobs(ns).Get(ctx, name+"-controller", metav1.GetOptions{})
	j.Status.Active = active
	if cond != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
	}
	if _, err := cs.BatchV1().Jobs(ns).UpdateStatus(ctx, j, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// cleanupCmd is newKubeCleanupCommand with dyn as its dynamic client.
func cleanupCmd(dyn dynamic.Interface) func(*Env, func() (kubernetes.Interface, error)) *cobra.Command {
	return func(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
		return newKubeCleanupCommand(env, client, func() (dynamic.Interface, error) { return dyn, nil })
	}
}

// runKube runs one kube subcommand built by mk against cs.
func runKube(t *testing.T, mk func(*Env, func() (kubernetes.Interface, error)) *cobra.Command, cs kubernetes.Interface, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin)}
	cmd := mk(env, func() (kubernetes.Interface, error) { return cs, nil })
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage = true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestKubeCleanupRemovesOnlyFinishedBenchmarks(t *testing.T) {
	cs := fake.NewClientset()
	kubeObjects(t, cs, "perf", "done1", batchv1.JobComplete, 0)
	kubeObjects(t, cs, "perf", "failed1", batchv1.JobFailed, 0)
	kubeObjects(t, cs, "perf", "busy1", "", 1)
	kubeObjects(t, cs, "ns2", "elsewhere1", "", 1)
	out, _, err := runKube(t, newKubeListCommand, cs, "", "-A")
	if err != nil || !strings.Contains(out, "NAMESPACE") || !strings.Contains(out, "ns2") || !strings.Contains(out, "elsewhere1") || !strings.Contains(out, "busy1") {
		t.Errorf("list -A: %v\n%s", err, out)
	}
	if out, _, _ := runKube(t, newKubeListCommand, cs, "", "-n", "perf"); strings.Contains(out, "elsewhere1") || !strings.Contains(out, "done1") {
		t.Errorf("list -n perf:\n%s", out)
	}
	out, _, err = runKube(t, cleanupCmd(nil), cs, "", "-n", "perf", "--dry-run")
	if err != nil || !strings.Contains(out, "done1 (Succeeded)") || !strings.Contains(out, "failed1 (Failed)") ||
		strings.Contains(out, "busy1") || !strings.Contains(out, "2 benchmark(s) would be removed") {
		t.Fatalf("--dry-run: %v\n%s", err, out)
	}
	if st, _ := kube.List(context.Background(), cs, "perf"); len(st) != 3 {
		t.Fatalf("--dry-run deleted something: %+v", st)
	}
	out, _, err = runKube(t, cleanupCmd(nil), cs, "n\n", "-n", "perf")
	if err != nil || !strings.Contains(out, "Aborted") {
		t.Fatalf("answering no: %v\n%s", err, out)
	}
	out, _, err = runKube(t, cleanupCmd(nil), cs, "y\n", "-n", "perf", "--delete-namespace")
	if err != nil || !strings.Contains(out, "Removed 2 benchmark(s) (10 objects)") || !strings.Contains(out, "Left 1 running") ||
		!strings.Contains(out, "Kept namespace perf") {
		t.Fatalf("cleanup: %v\n%s", err, out)
	}
	st, _ := kube.List(context.Background(), cs, "perf")
	if len(st) != 1 || st[0].Name != "busy1" {
		t.Fatalf("left: %+v; want only the running benchmark", st)
	}
	out, _, err = runKube(t, cleanupCmd(nil), cs, "", "-n", "perf", "--all", "--force", "--delete-namespace")
	if err != nil || !strings.Contains(out, "Removed 1 benchmark(s)") || !strings.Contains(out, "Deleted namespace perf") {
		t.Fatalf("--all: %v\n%s", err, out)
	}
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "perf", metav1.GetOptions{}); err == nil {
		t.Error("the namespace aiperf created is still there")
	}
	out, _, _ = runKube(t, cleanupCmd(nil), cs, "", "-n", "other")
	if !strings.Contains(out, "No AIPerf benchmarks found in namespace other") {
		t.Errorf("empty namespace: %s", out)
	}
}

func TestKubePreflightAndDebugCommands(t *testing.T) {
	cs := fake.NewClientset()
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.31.2"}
	// The fake's access reviews allow nothing: every RBAC check fails,
	// and the command exits 1 after reporting them all.
	out, _, err := runKube(t, newKubePreflightCommand, cs, "", "-n", "perf", "-o", "json", "--image", "Reg/AIPerf:v1")
	var doc struct {
		Passed bool
		Checks []kube.Check
	}
	if jerr := json.Unmarshal([]byte(out), &doc); jerr != nil || err == nil || doc.Passed {
		t.Fatalf("json: %v %v passed %v\n%s", jerr, err, doc.Passed, out)
	}
	fails := 0
	for _, c := range doc.Checks {
		if c.Status == kube.CheckFail {
			fails++
		}
	}
	// 15 direct-mode permissions + create namespaces (it is missing), no
	// node, the image's upper case.
	if fails != 16+1+1 {
		t.Errorf("%d failed checks; want 18:\n%s", fails, out)
	}
	out, _, err = runKube(t, newKubePreflightCommand, cs, "", "-o", "yaml")
	if err == nil || !strings.Contains(err.Error(), "--output") {
		t.Errorf("-o yaml: %v", err)
	}
	for ref, ok := range map[string]bool{"nvcr.io/nvidia/aiperf:0.13": true, "localhost:5000/aiperf": true, "Reg/x": false,
		"x@sha256:" + strings.Repeat("a", 64): true, "x@sha256:12": false, "x:": false} {
		if c := imageCheck(ref); (c.Status == kube.CheckPass) != ok {
			t.Errorf("image %q: %+v", ref, c)
		}
	}

	kubeObjects(t, cs, "perf", "bad1", batchv1.JobFailed, 0)
	out, _, err = runKube(t, newKubeDebugCommand, cs, "", "bad1", "-n", "perf")
	if err != nil || !strings.Contains(out, "benchmark perf/bad1: Failed") || !strings.Contains(out, "findings:") {
		t.Errorf("debug: %v\n%s", err, out)
	}
	out, _, err = runKube(t, newKubeDebugCommand, cs, "", "-A")
	if err != nil || !strings.Contains(out, "benchmark perf/bad1") {
		t.Errorf("debug -A: %v\n%s", err, out)
	}
	if _, _, err := runKube(t, newKubeDebugCommand, cs, ""); err == nil {
		t.Error("debug without a name or -A: no error")
	}
}

// TestKubeProfileCreatesAJobSetWhenTheCRDIsServed: --jobset auto creates
// one JobSet instead of the two Jobs when discovery shows the CRD, the
// two Jobs when it does not; generate --jobset true prints it.
func TestKubeProfileCreatesAJobSetWhenTheCRDIsServed(t *testing.T) {
	gvr := kube.JobSetResource
	for _, served := range []bool{true, false} {
		cs := fake.NewClientset()
		if served {
			cs.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{{GroupVersion: kube.JobSetGroupVersion,
				APIResources: []metav1.APIResource{{Name: "jobsets", Kind: kube.KindJobSet, Namespaced: true}}}}
		}
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "JobSetList"})
		mk := func(env *Env, client func() (kubernetes.Interface, error)) *cobra.Command {
			return newKubeProfileCommand(env, "profile", client, func() (dynamic.Interface, error) { return dyn, nil }, nil)
		}
		out, _, err := runKube(t, mk, cs, "", "--name", "js1", "-n", "perf", "--workers", "2", "--", "-m", "m", "-u", "http://x:8000")
		if err != nil || !strings.Contains(out, "benchmark js1 created") {
			t.Fatalf("served %v: %v\n%s", served, err, out)
		}
		l, _ := dyn.Resource(gvr).Namespace("perf").List(context.Background(), metav1.ListOptions{})
		jobs, _ := cs.BatchV1().Jobs("perf").List(context.Background(), metav1.ListOptions{})
		if served && (len(l.Items) != 1 || len(jobs.Items) != 0) || !served && (len(l.Items) != 0 || len(jobs.Items) != 2) {
			t.Errorf("CRD served %v: %d JobSets, %d Jobs", served, len(l.Items), len(jobs.Items))
		}
	}
	r := runMain(t, context.Background(), nil, "kube", "generate", "--jobset", "true", "--", "-m", "m")
	if r.code != 0 || !strings.Contains(r.stdout, "kind: JobSet") || strings.Contains(r.stdout, "kind: Job\n") {
		t.Errorf("generate --jobset true: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runMain(t, context.Background(), nil, "kube", "generate", "--jobset", "maybe", "--", "-m", "m"); r.code != 2 {
		t.Errorf("--jobset maybe: exit %d", r.code)
	}
}

// TestKubeInitManifestsDeploy: every bundled template's kube init
// manifest is accepted by kube profile --config in direct mode (its
// controller command parses), those with a sweep by kube sweep too.
func TestKubeInitManifestsDeploy(t *testing.T) {
	dir := t.TempDir()
	for _, tm := range configfile.Templates() {
		f := filepath.Join(dir, tm.Name+".yaml")
		if r := runMain(t, context.Background(), nil, "kube", "init", "-t", tm.Name, "--model", "m", "--url", "http://x:8000",
			"--job-name", strings.ReplaceAll(tm.Name, "_", "-"), "-o", f); r.code != 0 {
			t.Fatalf("%s: kube init: %s", tm.Name, r.stderr)
		}
		r := runMain(t, context.Background(), nil, "kube", "profile", "--dry-run", "-f", f)
		if r.code != 0 || !strings.Contains(r.stdout, "kind: Job") {
			t.Errorf("%s: kube profile --dry-run -f: exit %d\n%s", tm.Name, r.code, r.stderr)
			continue
		}
		if strings.Contains(r.stdout, "--next-run-timeout") {
			if r := runMain(t, context.Background(), nil, "kube", "sweep", "--dry-run", "-f", f); r.code != 0 {
				t.Errorf("%s: kube sweep --dry-run -f: exit %d\n%s", tm.Name, r.code, r.stderr)
			}
		}
	}
}
