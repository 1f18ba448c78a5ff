package operator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
)

// TestOperatorAgainstARealAPIServer installs the operator's manifests
// (CRDs, RBAC, Deployment) into a real kube-apiserver and etcd, runs the
// operator's manager in this process, and plays the scenarios: the objects
// and the status of a job, its phases as the Jobs' status moves (the test
// writes it: there is no kube-controller-manager or kubelet), cancel,
// failures and delete. Needs AIPERF_ENVTEST=1 and
// KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh).
func TestOperatorAgainstARealAPIServer(t *testing.T) {
	cfg := kubetest.StartControlPlane(t)
	s := testScheme(t)
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// `aiperf kube install`: everything is accepted, and a second apply
	// only updates.
	objs, err := InstallObjects(InstallOptions{Image: "registry/aiperf:v1"})
	if err != nil {
		t.Fatal(err)
	}
	done, err := Apply(ctx, c, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != len(objs) || !strings.HasSuffix(done[0], "created") {
		t.Fatalf("install: %v", done)
	}
	objs, _ = InstallObjects(InstallOptions{Image: "registry/aiperf:v2"})
	if done, err = Apply(ctx, c, objs); err != nil || !slices.Contains(done, "Deployment aiperf-system/aiperf-operator configured") {
		t.Fatalf("second install: %v %v", done, err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return Established(ctx, c)
	}); err != nil {
		t.Fatalf("CRDs not established: %v", err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "perf"}}); err != nil {
		t.Fatal(err)
	}

	// With leader election, as the installed Deployment runs it.
	runs := &scriptedRuns{}
	mgr, err := NewManager(cfg, RunOptions{MetricsAddr: "0", ProbeAddr: "0", Validate: fakeValidate, Runs: runs,
		LeaderElect: true, LeaderElectionNamespace: DefaultOperatorNamespace})
	if err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(mgrCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-stopped; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	lease := &coordinationv1.Lease{}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, client.ObjectKey{Namespace: DefaultOperatorNamespace, Name: LeaderElectionID}, lease)
		return err == nil && lease.Spec.HolderIdentity != nil, client.IgnoreNotFound(err)
	}); err != nil {
		t.Fatalf("no leader-election Lease: %v", err)
	}
	for _, sc := range []struct {
		name string
		run  func(*harness)
	}{{"lifecycle", runLifecycle}, {"cancel", runCancel}, {"failures", runFailures}, {"sweep", runSweep}} {
		t.Run(sc.name, func(t *testing.T) { sc.run(pollHarness(t, ctx, c, runs)) })
	}
}

// pollHarness waits for the running operator: settle polls the job until
// ok holds (or, with ok nil, until it is gone).
func pollHarness(t *testing.T, ctx context.Context, c client.Client, runs *scriptedRuns) *harness {
	h := &harness{t: t, ctx: ctx, c: c, sweepSchema: true, runs: runs}
	h.settleSweep = pollSettle(h, func() *v1alpha1.AIPerfSweep { return &v1alpha1.AIPerfSweep{} })
	h.settle = pollSettle(h, func() *v1alpha1.AIPerfJob { return &v1alpha1.AIPerfJob{} })
	return h
}

// pollSettle polls the resource called name until ok holds (nil: until
// it is gone).
func pollSettle[T client.Object](h *harness, empty func() T) func(name, what string, ok func(T) bool) T {
	return func(name, what string, ok func(T) bool) T {
		t := h.t
		t.Helper()
		key := client.ObjectKey{Namespace: "perf", Name: name}
		got := empty()
		err := wait.PollUntilContextTimeout(h.ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			err := h.c.Get(ctx, key, got)
			if ok == nil {
				return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
			}
			return err == nil && ok(got), client.IgnoreNotFound(err)
		})
		if err != nil {
			t.Fatalf("%s: %s not reached (%v): %+v", name, what, err, got)
		}
		return got
	}
}
