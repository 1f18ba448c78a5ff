package operator

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.AIPerfJob{}, &v1alpha1.AIPerfSweep{}, &batchv1.Job{}).Build()
	r := &Reconciler{Client: c, Scheme: s, Validate: fakeValidate}
	h := &harness{t: t, ctx: context.Background(), c: c}
	h.settle = fakeSettle(h, r, func() *v1alpha1.AIPerfJob { return &v1alpha1.AIPerfJob{} })
	h.settleSweep = fakeSettle(h, SweepReconciler{r}, func() *v1alpha1.AIPerfSweep { return &v1alpha1.AIPerfSweep{} })
	return h
}

func TestReconcileLifecycleWithTheFakeClient(t *testing.T) {
	h := fakeHarness(t)
	runLifecycle(h)
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
