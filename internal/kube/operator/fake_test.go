package operator

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// fakeHarness runs the reconciler by hand against controller-runtime's
// fake client: settle reconciles the job (twice: the first pass may only
// add the finalizer's update) and checks the outcome at once.
func fakeHarness(t *testing.T) *harness {
	s := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.AIPerfJob{}, &v1alpha1.AIPerfSweep{}, &batchv1.Job{}, &corev1.Pod{}).Build()
	runs := &scriptedRuns{}
	r := &Reconciler{Client: c, Scheme: s, Validate: fakeValidate, Events: events.NewFakeRecorder(100), Runs: runs}
	h := &harness{t: t, ctx: context.Background(), c: c, events: r.Events, runs: runs}
	h.settle = fakeSettle(h, r, func() *v1alpha1.AIPerfJob { return &v1alpha1.AIPerfJob{} })
	h.settleSweep = fakeSettle(h, SweepReconciler{r}, func() *v1alpha1.AIPerfSweep { return &v1alpha1.AIPerfSweep{} })
	return h
}

func TestReconcileLifecycleWithTheFakeClient(t *testing.T) {
	h := fakeHarness(t)
	runLifecycle(h)
	// Each phase change is an Event on the AIPerfJob.
	rec := h.events.(*events.FakeRecorder)
	var got []string
	for len(rec.Events) > 0 {
		got = append(got, <-rec.Events)
	}
	want := []string{"Normal Pending phase Pending", "Normal Initializing phase Initializing", "Normal Running phase Running", "Normal Completed phase Completed"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q, want %q", got, want)
	}
}

func TestReconcileCancelWithTheFakeClient(t *testing.T) { runCancel(fakeHarness(t)) }

func TestReconcileFailuresWithTheFakeClient(t *testing.T) { runFailures(fakeHarness(t)) }

func TestReconcileSweepWithTheFakeClient(t *testing.T) { runSweep(fakeHarness(t)) }

// fakeSettle reconciles the resource called name (twice: the first pass
// may only add the finalizer) and checks ok at once (nil: it is gone).
func fakeSettle[T client.Object](h *harness, r reconcile.Reconciler, empty func() T) func(name, what string, ok func(T) bool) T {
	return func(name, what string, ok func(T) bool) T {
		t := h.t
		t.Helper()
		key := client.ObjectKey{Namespace: "perf", Name: name}
		for range 2 {
			if _, err := r.Reconcile(h.ctx, ctrl.Request{NamespacedName: key}); err != nil {
				t.Fatalf("%s: reconcile %s: %v", what, name, err)
			}
		}
		got := empty()
		err := h.c.Get(h.ctx, key, got)
		var none T
		if ok == nil {
			if !apierrors.IsNotFound(err) {
				t.Fatalf("%s: %s still there (%v), finalizers %v", what, name, err, got.GetFinalizers())
			}
			return none
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !ok(got) {
			t.Fatalf("%s: not reached: %+v", what, got)
		}
		return got
	}
}

// TestPodTemplateIsApplied: AIPerf's spec.podTemplate (as its kube init
// footer documents it) reaches both pods; a key this operator does not
// apply fails the job naming it instead of being dropped.
func TestPodTemplateIsApplied(t *testing.T) {
	h := fakeHarness(t)
	job := newJob(t, func(j *v1alpha1.AIPerfJob) {
		j.Name = "pt"
		j.Spec.Extra = map[string]runtime.RawExtension{"podTemplate": {Raw: []byte(`{"nodeSelector":{"nvidia.com/gpu.product":"A100"},
			"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],
			"imagePullSecrets":["my-registry-secret",{"name":"other"}],
			"env":[{"name":"AIPERF_HTTP_CONNECTION_LIMIT","value":"200"}],
			"labels":{"team":"perf","aiperf.nvidia.com/role":"hijack"}}`)}}
	})
	if err := h.c.Create(h.ctx, job); err != nil {
		t.Fatal(err)
	}
	h.settle("pt", "objects created", func(j *v1alpha1.AIPerfJob) bool {
		return hasCondition(j, v1alpha1.ConditionResourcesCreated, metav1.ConditionTrue, "")
	})
	for _, name := range []string{"pt-controller", "pt-workers"} {
		p := h.job(name).Spec.Template
		c := p.Spec.Containers[0]
		if p.Spec.NodeSelector["nvidia.com/gpu.product"] != "A100" || len(p.Spec.Tolerations) != 1 ||
			len(p.Spec.ImagePullSecrets) != 2 || p.Spec.ImagePullSecrets[1].Name != "other" ||
			len(c.Env) == 0 || c.Env[len(c.Env)-1].Name != "AIPERF_HTTP_CONNECTION_LIMIT" ||
			p.Labels["team"] != "perf" || p.Labels["aiperf.nvidia.com/role"] == "hijack" {
			t.Errorf("%s pod template: %+v", name, p)
		}
	}

	bad := newJob(t, func(j *v1alpha1.AIPerfJob) {
		j.Name = "ptbad"
		j.Spec.Extra = map[string]runtime.RawExtension{"podTemplate": {Raw: []byte(`{"initContainers":[{"name":"x"}]}`)}}
	})
	if err := h.c.Create(h.ctx, bad); err != nil {
		t.Fatal(err)
	}
	got := h.settle("ptbad", "invalid", phase(v1alpha1.PhaseFailed))
	if !hasCondition(got, v1alpha1.ConditionConfigValid, metav1.ConditionFalse, "InvalidConfig") || !strings.Contains(got.Status.Error, "initContainers") {
		t.Fatalf("unapplied podTemplate key: %+v", got.Status)
	}
}
