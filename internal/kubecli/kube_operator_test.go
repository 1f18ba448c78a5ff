package kubecli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/aiperf-go/aiperf/internal/api"
	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
	"github.com/aiperf-go/aiperf/internal/kube/operator"
	"github.com/aiperf-go/aiperf/internal/live"
)

// TestKubeInstallDryRunPrintsTheOperator: `kube install --dry-run` prints
// the CRDs, RBAC and the operator's Deployment; every document decodes
// into its API type, and the Deployment runs this build's `kube operator`.
func TestKubeInstallDryRunPrintsTheOperator(t *testing.T) {
	r := runMain(t, context.Background(), nil, "kube", "install", "--dry-run", "--image", "reg/aiperf:v1", "--watch-namespace", "perf")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var dep *appsv1.Deployment
	for _, doc := range bytes.Split([]byte(r.stdout), []byte("\n---\n")) {
		obj, gvk, err := serializer.NewCodecFactory(s).UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("a manifest does not decode: %v\n%s", err, doc)
		}
		kinds = append(kinds, gvk.Kind)
		if d, ok := obj.(*appsv1.Deployment); ok {
			dep = d
		}
	}
	want := []string{"CustomResourceDefinition", "CustomResourceDefinition", "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if c.Image != "reg/aiperf:v1" || !slices.Equal(c.Args[:2], []string{"kube", "operator"}) || !slices.Contains(c.Args, "perf") {
		t.Fatalf("operator container %v %v", c.Image, c.Args)
	}
	// The operator's command line is one this build accepts.
	if r := runMain(t, context.Background(), nil, append(c.Args, "--help")...); r.code != 0 {
		t.Fatalf("the operator's args do not parse: %s", r.stderr)
	}
}

// TestKubeProfileOperatorWritesAnAIPerfJob: `kube profile --operator
// --dry-run` prints the AIPerfJob it would submit, from profile arguments
// or from a config file / `kube init` manifest, checked by this build's
// profile parser first.
func TestKubeProfileOperatorWritesAnAIPerfJob(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "bench.yaml")
	if r := runMain(t, context.Background(), nil, "kube", "init", "--model", "llama", "--url", "http://vllm.perf.svc:8000", "-o", manifest); r.code != 0 {
		t.Fatalf("kube init: %s", r.stderr)
	}
	decode := func(y string) *v1alpha1.AIPerfJob {
		t.Helper()
		s, _ := operator.Scheme()
		obj, _, err := serializer.NewCodecFactory(s).UniversalDeserializer().Decode([]byte(y), nil, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, y)
		}
		return obj.(*v1alpha1.AIPerfJob)
	}

	r := runMain(t, context.Background(), nil, "kube", "profile", "--operator", "--dry-run", "--name", "chat1", "-n", "perf", "--workers", "3",
		"--image", "reg/aiperf:v1", "--", "-m", "llama", "-u", "http://vllm:8000", "--concurrency", "30")
	if r.code != 0 {
		t.Fatalf("args: exit %d\n%s", r.code, r.stderr)
	}
	j := decode(r.stdout)
	if j.Name != "chat1" || j.Namespace != "perf" || j.Spec.Workers() != 3 || j.Spec.Image != "reg/aiperf:v1" ||
		string(j.Spec.Benchmark.Raw) != "{}" || !slices.Equal(j.Spec.ProfileArgs, []string{"-m", "llama", "-u", "http://vllm:8000", "--concurrency", "30"}) {
		t.Fatalf("from args: %+v", j.Spec)
	}

	r = runMain(t, context.Background(), nil, "kube", "profile", "--operator", "--dry-run", "--config", manifest, "-n", "perf", "--workers", "2")
	if r.code != 0 {
		t.Fatalf("config: exit %d\n%s", r.code, r.stderr)
	}
	j = decode(r.stdout)
	cfg, err := j.Spec.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if j.Name != "my-benchmark" || j.Spec.Workers() != 2 || len(j.Spec.ProfileArgs) != 0 || !strings.Contains(string(cfg), "url: http://vllm.perf.svc:8000") {
		t.Fatalf("from the kube init manifest: name %s spec %+v\n%s", j.Name, j.Spec, cfg)
	}
	// What the operator would run parses, as the operator checks it.
	o := kube.Options{Name: j.Name, Namespace: j.Namespace, Workers: j.Spec.Workers(), ConfigFile: cfg}
	if err := validateControllerCommand(context.Background(), o); err != nil {
		t.Fatal(err)
	}

	body, _ := os.ReadFile(manifest)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, bytes.Replace(body, []byte("concurrency: 8"), []byte("concurrency: -8"), 1), 0o600)
	r = runMain(t, context.Background(), nil, "kube", "profile", "--operator", "--dry-run", "--config", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "--concurrency") {
		t.Fatalf("bad config: exit %d\n%s", r.code, r.stderr)
	}
	o.ConfigFile = bytes.Replace(cfg, []byte("concurrency: 8"), []byte("concurrency: -8"), 1)
	if err := validateControllerCommand(context.Background(), o); err == nil || !strings.Contains(err.Error(), "concurrency") {
		t.Fatalf("the operator's check let a bad config through: %v", err)
	}
}

// TestOperatorFollowsTheControllerPodsRun: the reconciler asks the
// controller pod (a real api.Server behind kubetest's pod proxy, as behind
// a real API server's) how its run stands: Running while it goes,
// Completed with ResultsAvailable and the results location as soon as the
// run ends (the pod still serves the artifacts), `kube results` fetches
// them from there, and once the controller pod exits ResultsAvailable
// turns False.
func TestOperatorFollowsTheControllerPodsRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(`{"request_count":{"unit":"requests","avg":40}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "profile_export_aiperf.csv"), []byte("Metric,avg\nRequest Count,40\n"), 0o644)
	pod, srv := controllerPod(t, "perf", "chat1", dir)
	ks := kubetest.New(pod)
	defer ks.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: ks.URL})
	if err != nil {
		t.Fatal(err)
	}
	s, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.AIPerfJob{}, &batchv1.Job{}).Build()
	r := &operator.Reconciler{Client: c, Scheme: s, Runs: operator.ControllerRuns{Clientset: cs}, Validate: validateControllerCommand}
	ctx := context.Background()
	key := ctrlclient.ObjectKey{Namespace: "perf", Name: "chat1"}
	workers := int32(2)
	job := &v1alpha1.AIPerfJob{ObjectMeta: metav1.ObjectMeta{Name: "chat1", Namespace: "perf"}, Spec: v1alpha1.AIPerfJobSpec{
		Benchmark: runtime.RawExtension{Raw: []byte("{}")}, TotalWorkers: &workers,
		ProfileArgs: []string{"-m", "llama", "-u", "http://vllm:8000", "--concurrency", "8", "--request-count", "40"}}}
	if err := c.Create(ctx, job); err != nil {
		t.Fatal(err)
	}
	reconcile := func() (ctrl.Result, *v1alpha1.AIPerfJob) {
		t.Helper()
		res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
		if err != nil {
			t.Fatal(err)
		}
		got := &v1alpha1.AIPerfJob{}
		if err := c.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		return res, got
	}
	reconcile()
	setController := func(edit func(*batchv1.JobStatus)) {
		t.Helper()
		j := &batchv1.Job{}
		if err := c.Get(ctx, ctrlclient.ObjectKey{Namespace: "perf", Name: "chat1-controller"}, j); err != nil {
			t.Fatal(err)
		}
		edit(&j.Status)
		if err := c.Status().Update(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	setController(func(s *batchv1.JobStatus) { s.Active, s.Ready = 1, ptrTo(int32(1)) })
	// The controller pod answers, its workers not yet connected (no
	// phase has begun): Initializing.
	res, got := reconcile()
	if got.Status.Phase != v1alpha1.PhaseInitializing || res.RequeueAfter == 0 {
		t.Fatalf("waiting for the workers: phase %s, requeue %v", got.Status.Phase, res.RequeueAfter)
	}
	// The first phase began: every worker connected.
	srv.Observe(&live.Snapshot{Seq: 1, Wall: time.Now(), Phase: live.Progress{Phase: "profiling", Sent: 12, Done: 10, Errors: 1}})
	res, got = reconcile()
	if got.Status.Phase != v1alpha1.PhaseRunning || res.RequeueAfter == 0 || got.Status.Workers.Connected != 2 ||
		got.Status.Progress == nil || *got.Status.Progress != (v1alpha1.RunProgress{Phase: "profiling", RequestsSent: 12, RequestsCompleted: 10, RequestErrors: 1}) {
		t.Fatalf("mid-run: phase %s, requeue %v, %+v, %+v", got.Status.Phase, res.RequeueAfter, got.Status.Workers, got.Status.Progress)
	}

	srv.Finish(api.StatusComplete, "")
	_, got = reconcile()
	avail := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionResultsAvailable)
	if got.Status.Phase != v1alpha1.PhaseCompleted || avail == nil || avail.Status != metav1.ConditionTrue || avail.Reason != "Serving" ||
		got.Status.ResultsPath != "perf/chat1" || got.Status.APIURL != "/api/v1/namespaces/perf/pods/chat1-controller-abcde:9090/proxy/api/results/list" ||
		!meta.IsStatusConditionTrue(got.Status.Conditions, v1alpha1.ConditionComplete) {
		t.Fatalf("after the run: %+v", got.Status)
	}
	// `kube results` fetches them from where the status says.
	out := filepath.Join(t.TempDir(), "out")
	if r := runMain(t, ctx, nil, "kube", "results", "chat1", "-n", "perf", "--kubeconfig", kubeconfigFor(t, ks.URL), "-o", out); r.code != 0 {
		t.Fatalf("kube results: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "profile_export_aiperf.csv")); err != nil || !strings.Contains(string(b), "Request Count") {
		t.Fatalf("fetched csv: %q %v", b, err)
	}

	setController(func(s *batchv1.JobStatus) {
		now := metav1.Now()
		s.Active, s.Ready, s.Succeeded, s.StartTime, s.CompletionTime = 0, ptrTo(int32(0)), 1, &now, &now
		s.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	})
	_, got = reconcile()
	if avail := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionResultsAvailable); got.Status.Phase != v1alpha1.PhaseCompleted ||
		avail.Status != metav1.ConditionFalse || avail.Reason != "ControllerExited" {
		t.Fatalf("after the pod exited: %+v", got.Status)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestKubeProfileConfigAppliesThePodTemplate: a manifest's spec.podTemplate
// reaches the pods in direct mode too; an unapplied key is a usage error.
func TestKubeProfileConfigAppliesThePodTemplate(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "bench.yaml")
	if r := runMain(t, context.Background(), nil, "kube", "init", "--model", "llama", "--url", "http://vllm.perf.svc:8000", "-o", manifest); r.code != 0 {
		t.Fatalf("kube init: %s", r.stderr)
	}
	body, _ := os.ReadFile(manifest)
	withPT := append(body, []byte("\n  podTemplate:\n    nodeSelector:\n      pool: load\n    imagePullSecrets:\n      - my-registry-secret\n")...)
	os.WriteFile(manifest, withPT, 0o600)
	r := runMain(t, context.Background(), nil, "kube", "generate", "--config", manifest)
	if r.code != 0 || strings.Count(r.stdout, "pool: load") != 2 || strings.Count(r.stdout, "name: my-registry-secret") != 2 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(manifest, append(body, []byte("\n  podTemplate:\n    initContainers: []\n")...), 0o600)
	if r := runMain(t, context.Background(), nil, "kube", "generate", "--config", manifest); r.code != 2 || !strings.Contains(r.stderr, "initContainers") {
		t.Fatalf("unapplied key: exit %d\n%s", r.code, r.stderr)
	}
}
