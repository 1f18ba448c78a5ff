package kube

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

func testOptions() Options {
	return Options{
		Name: "bench1", Namespace: "perf", Image: "registry.example/aiperf:v1", Workers: 3,
		ProfileArgs:     []string{"-m", "llama", "-u", "http://vllm.perf.svc:8000", "--streaming", "--concurrency", "300"},
		CreateNamespace: true, WorkerCPU: "2", WorkerMemory: "1Gi",
	}
}

// decode reads a generated multi-document YAML stream back through
// client-go's own deserializer, as kubectl apply would.
func decode(t *testing.T, y []byte) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, doc := range bytes.Split(y, []byte("\n---\n")) {
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("a generated manifest does not decode into client-go types: %v\n%s", err, doc)
		}
		if gvk.Kind == "" || gvk.Version == "" {
			t.Fatalf("manifest without kind/apiVersion:\n%s", doc)
		}
		out = append(out, obj)
	}
	return out
}

func TestGeneratedManifestsDecodeIntoClientGoTypes(t *testing.T) {
	o := testOptions()
	objs, err := Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	y, err := YAML(objs)
	if err != nil {
		t.Fatal(err)
	}
	got := decode(t, y)
	var kinds []string
	var ctl, workers *batchv1.Job
	var svc *corev1.Service
	for _, obj := range got {
		kinds = append(kinds, obj.GetObjectKind().GroupVersionKind().Kind)
		switch v := obj.(type) {
		case *batchv1.Job:
			if v.Labels[LabelRole] == "controller" {
				ctl = v
			} else {
				workers = v
			}
		case *corev1.Service:
			svc = v
		}
		if m := obj.(metav1.Object); m.GetName() != "perf" && m.GetNamespace() != "perf" {
			t.Errorf("%T %s is not in the namespace", obj, m.GetName())
		}
	}
	if want := []string{"Namespace", "ServiceAccount", "ConfigMap", "Service", "Job", "Job"}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v; want %v", kinds, want)
	}
	// The workers reach the controller through the headless Service.
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || svc.Spec.Ports[0].Port != DefaultPort ||
		svc.Spec.Selector[LabelRole] != "controller" || ctl.Spec.Template.Labels[LabelRole] != "controller" {
		t.Errorf("service %+v does not select the controller pod %v", svc.Spec, ctl.Spec.Template.Labels)
	}
	c := ctl.Spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"profile -m llama -u http://vllm.perf.svc:8000", "--workers 3", "--worker-listen :7070", "--output-artifact-dir /results", "--api-port 9090 --api-host 0.0.0.0"} {
		if !strings.Contains(args, want) {
			t.Errorf("controller args %q lack %q", args, want)
		}
	}
	if len(c.Env) != 1 || c.Env[0].Name != "AIPERF_API_SERVER_LINGER_SECONDS" || c.Env[0].Value != "3600" || c.Ports[1].Name != APIPortName {
		t.Errorf("controller env %v ports %v; want the API kept up 1h after the run on port %q", c.Env, c.Ports, APIPortName)
	}
	w := workers.Spec.Template.Spec.Containers[0]
	if *workers.Spec.CompletionMode != batchv1.IndexedCompletion || *workers.Spec.Completions != 3 || *workers.Spec.Parallelism != 3 {
		t.Errorf("worker job spec %+v; want an Indexed Job of 3", workers.Spec)
	}
	if want := []string{"cluster-worker", "--controller", "bench1-controller.perf.svc:7070", "--name", "$(POD_NAME)"}; !slices.Equal(w.Args, want) {
		t.Errorf("worker args %v; want %v", w.Args, want)
	}
	if c.Image != o.Image || w.Image != o.Image || c.Command[0] != "/aiperf" || w.Command[0] != "/aiperf" {
		t.Errorf("images %s %s commands %v %v; want both %s running /aiperf (the Dockerfile's binary)", c.Image, w.Image, c.Command, w.Command, o.Image)
	}
	if w.Resources.Requests.Cpu().String() != "2" || w.Resources.Requests.Memory().String() != "1Gi" {
		t.Errorf("worker requests %v", w.Resources.Requests)
	}
}

func TestOptionsValidateReportsEveryProblem(t *testing.T) {
	o := Options{Name: "Bad_Name", Namespace: "x", Workers: 0, WorkerCPU: "lots",
		ProfileArgs: []string{"-m", "m", "--workers", "3", "--output-artifact-dir=/x", "--api-port", "1"}}
	err := o.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"--name", "--workers: must be at least 1", "--worker-cpu", "profile argument --workers", "profile argument --output-artifact-dir=/x", "profile argument --api-port"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestCreateListCancelDelete drives the direct mode through client-go's
// fake clientset (its object tracker; no API server here, see docs/kubernetes.md
// for what envtest would add).
func TestCreateListCancelDelete(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	o := testOptions()
	objs, err := Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, cs, nil, objs); err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, cs, nil, objs[1:]); err == nil || !strings.Contains(err.Error(), "ServiceAccount perf/bench1") {
		t.Errorf("creating it twice: %v; want an error naming the existing object", err)
	}
	for _, name := range []string{"bench1-controller", "bench1-workers"} {
		if _, err := cs.BatchV1().Jobs("perf").Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("job %s: %v", name, err)
		}
	}
	// The controller's Job is running.
	ctl, _ := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-controller", metav1.GetOptions{})
	ctl.Status.Active = 1
	if _, err := cs.BatchV1().Jobs("perf").UpdateStatus(ctx, ctl, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := List(ctx, cs, "perf")
	if err != nil || len(st) != 1 || st[0].Name != "bench1" || st[0].Phase != "Running" {
		t.Fatalf("list: %+v, %v", st, err)
	}
	sh, err := Describe(ctx, cs, "perf", "bench1")
	if err != nil || sh.Phase != "Running" || sh.Controller != "bench1-controller.perf.svc:7070" || sh.ProfileArgs[0] != "profile" ||
		!slices.Contains(sh.ProfileArgs, "--worker-listen") {
		t.Errorf("describe: %+v, %v", sh, err)
	}
	if err := Logs(ctx, cs, "perf", "bench1", "controller", false, io.Discard); err == nil || !strings.Contains(err.Error(), "no controller pod") {
		t.Errorf("logs without pods: %v", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bench1-controller-x", Namespace: "perf", Labels: o.labels("controller")}}
	if _, err := cs.CoreV1().Pods("perf").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	if err := Logs(ctx, cs, "perf", "bench1", "controller", false, &logs); err != nil || !strings.HasPrefix(logs.String(), "==> bench1-controller-x <==\n") {
		t.Errorf("logs: %q, %v", logs.String(), err)
	}
	if err := Cancel(ctx, cs, "perf", "bench1"); err != nil {
		t.Fatal(err)
	}
	if st, _ := List(ctx, cs, "perf"); st[0].Phase != "Cancelled" {
		t.Errorf("after cancel: %+v", st)
	}
	n, err := Delete(ctx, cs, nil, "perf", "bench1")
	if err != nil || n != 5 {
		t.Fatalf("delete: %d objects, %v; want the 5 of the benchmark", n, err)
	}
	if st, _ := List(ctx, cs, "perf"); len(st) != 0 {
		t.Errorf("after delete: %+v", st)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "perf", metav1.GetOptions{}); err != nil {
		t.Errorf("delete removed the namespace: %v", err)
	}
}
