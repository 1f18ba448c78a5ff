package operator

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// fakeHarness runs the reconciler by hand against controller-runtime's
// fake client: settle reconciles the job (twice: the first pass may only
// add the finalizer's update) and checks the outcome at once.
func fakeHarness(t *testing.T) *harness {
	s := testScheme(t)
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&v1alpha1.AIPerfJob{}, &batchv1.Job{}).Build()
	r := &Reconciler{Client: c, Scheme: s, Validate: fakeValidate}
	h := &harness{t: t, ctx: context.Background(), c: c}
	h.settle = func(name, what string, ok func(*v1alpha1.AIPerfJob) bool) *v1alpha1.AIPerfJob {
		t.Helper()
		key := client.ObjectKey{Namespace: "perf", Name: name}
		for range 2 {
			if _, err := r.Reconcile(h.ctx, ctrl.Request{NamespacedName: key}); err != nil {
				t.Fatalf("%s: reconcile %s: %v", what, name, err)
			}
		}
		got := &v1alpha1.AIPerfJob{}
		err := c.Get(h.ctx, key, got)
		if ok == nil {
			if !apierrors.IsNotFound(err) {
				t.Fatalf("%s: %s still there (%v), finalizers %v", what, name, err, got.Finalizers)
			}
			return nil
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !ok(got) {
			t.Fatalf("%s: not reached; status %+v", what, got.Status)
		}
		return got
	}
	return h
}

func TestReconcileLifecycleWithTheFakeClient(t *testing.T) {
	h := fakeHarness(t)
	runLifecycle(h)
}

func TestReconcileCancelWithTheFakeClient(t *testing.T) { runCancel(fakeHarness(t)) }

func TestReconcileFailuresWithTheFakeClient(t *testing.T) { runFailures(fakeHarness(t)) }
