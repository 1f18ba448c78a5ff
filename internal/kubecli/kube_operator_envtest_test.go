package kubecli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
	"github.com/aiperf-go/aiperf/internal/kube/operator"
)

// TestKubeOperatorCommandsAgainstARealAPIServer runs docs/kubernetes.md's operator
// commands against a real kube-apiserver and etcd: `kube install`, `kube
// operator` (in this process), `kube profile --operator` (an AIPerfJob
// from a `kube init` manifest), then `kube show`, `kube cancel` and `kube
// delete` through the AIPerfJob. No kubelet runs pods here, so the Jobs
// never start; the objects and the status are what is checked. Needs
// AIPERF_ENVTEST=1 and KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh).
func TestKubeOperatorCommandsAgainstARealAPIServer(t *testing.T) {
	cfg := kubetest.StartControlPlane(t)
	kc := kubetest.Kubeconfig(t, cfg)
	s, _ := operator.Scheme()
	c, err := ctrlclient.New(cfg, ctrlclient.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	r := runMain(t, ctx, nil, "kube", "install", "--kubeconfig", kc, "--image", "reg/aiperf:v1")
	if r.code != 0 || !strings.Contains(r.stdout, "CustomResourceDefinition aiperfjobs.aiperf.nvidia.com created") ||
		!strings.Contains(r.stdout, "Deployment aiperf-system/aiperf-operator created") {
		t.Fatalf("kube install: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	opCtx, stopOperator := context.WithCancel(ctx)
	opDone := make(chan result, 1)
	go func() {
		opDone <- runMain(t, opCtx, nil, "kube", "operator", "--kubeconfig", kc, "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	}()
	t.Cleanup(func() {
		stopOperator()
		if r := <-opDone; r.code != 0 {
			t.Errorf("kube operator: exit %d\n%s", r.code, r.stderr)
		}
	})

	manifest := filepath.Join(t.TempDir(), "bench.yaml")
	if r := runMain(t, ctx, nil, "kube", "init", "--model", "llama", "--url", "http://vllm.perf.svc:8000", "--job-name", "chat1", "-o", manifest); r.code != 0 {
		t.Fatalf("kube init: %s", r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "profile", "--operator", "--kubeconfig", kc, "--config", manifest, "-n", "perf", "--workers", "3", "--image", "reg/aiperf:v1")
	if r.code != 0 || !strings.Contains(r.stdout, "AIPerfJob perf/chat1 created") {
		t.Fatalf("kube profile --operator: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	key := ctrlclient.ObjectKey{Namespace: "perf", Name: "chat1"}
	job := &v1alpha1.AIPerfJob{}
	// waitFor polls every 50 ms and logs how long the operator took (the
	// figures in BENCHMARKS.md, "The operator (AIPerfJob)").
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		start := time.Now()
		defer func() { t.Logf("operator: %s after %v", what, time.Since(start).Round(time.Millisecond)) }()
		if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			err := c.Get(ctx, key, job)
			if apierrors.IsNotFound(err) {
				return ok(), nil
			}
			return err == nil && ok(), err
		}); err != nil {
			t.Fatalf("%s: %v; status %+v", what, err, job.Status)
		}
	}
	waitFor("objects created", func() bool {
		return meta.IsStatusConditionTrue(job.Status.Conditions, v1alpha1.ConditionResourcesCreated)
	})
	if job.Status.Phase != v1alpha1.PhasePending || job.Status.Workers == nil || job.Status.Workers.Total != 3 ||
		!meta.IsStatusConditionTrue(job.Status.Conditions, v1alpha1.ConditionConfigValid) {
		t.Fatalf("status: %+v", job.Status)
	}
	ctl := &batchv1.Job{}
	if err := c.Get(ctx, ctrlclient.ObjectKey{Namespace: "perf", Name: "chat1-controller"}, ctl); err != nil {
		t.Fatal(err)
	}
	if args := strings.Join(ctl.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--config /etc/aiperf/benchmark.yaml") ||
		!strings.Contains(args, "--workers 3") || ctl.OwnerReferences[0].Name != "chat1" {
		t.Fatalf("controller Job: %s, owners %v", args, ctl.OwnerReferences)
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, key, cm); err != nil || !strings.Contains(cm.Data["benchmark.yaml"], "url: http://vllm.perf.svc:8000") {
		t.Fatalf("ConfigMap: %v %v", err, cm.Data)
	}

	r = runMain(t, ctx, nil, "kube", "show", "chat1", "-n", "perf", "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stdout, "AIPerfJob:  perf/chat1 (operator)") || !strings.Contains(r.stdout, "condition:  ResourcesCreated=True") {
		t.Fatalf("kube show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, ctx, nil, "kube", "cancel", "chat1", "-n", "perf", "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stdout, "spec.cancel set") {
		t.Fatalf("kube cancel: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	waitFor("cancelled", func() bool { return job.Status.Phase == v1alpha1.PhaseCancelled })
	w := &batchv1.Job{}
	if err := c.Get(ctx, ctrlclient.ObjectKey{Namespace: "perf", Name: "chat1-workers"}, w); err != nil || w.Spec.Suspend == nil || !*w.Spec.Suspend {
		t.Fatalf("worker Job not suspended: %v", err)
	}
	r = runMain(t, ctx, nil, "kube", "delete", "chat1", "-n", "perf", "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stdout, "AIPerfJob perf/chat1 deleted") {
		t.Fatalf("kube delete: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	waitFor("deleted", func() bool {
		return apierrors.IsNotFound(c.Get(ctx, key, &v1alpha1.AIPerfJob{}))
	})
	for _, name := range []string{"chat1-controller", "chat1-workers"} {
		if err := c.Get(ctx, ctrlclient.ObjectKey{Namespace: "perf", Name: name}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
			t.Errorf("Job %s after delete: %v", name, err)
		}
	}
	if err := c.Get(ctx, key, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMap after delete: %v", err)
	}

	// kube sweep --operator: an AIPerfSweep, run by one controller pod.
	r = runMain(t, ctx, nil, "kube", "sweep", "--operator", "--kubeconfig", kc, "-n", "perf", "--name", "conc", "--workers", "2", "--trials", "2",
		"--", "-m", "llama", "-u", "http://vllm.perf.svc:8000", "--concurrency", "8")
	if r.code != 0 || !strings.Contains(r.stdout, "AIPerfSweep perf/conc created") {
		t.Fatalf("kube sweep --operator: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	sw := &v1alpha1.AIPerfSweep{}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, ctrlclient.ObjectKey{Namespace: "perf", Name: "conc"}, sw)
		return err == nil && meta.IsStatusConditionTrue(sw.Status.Conditions, v1alpha1.ConditionResourcesCreated), ctrlclient.IgnoreNotFound(err)
	}); err != nil {
		t.Fatalf("sweep objects: %v; status %+v", err, sw.Status)
	}
	r = runMain(t, ctx, nil, "kube", "show", "conc", "-n", "perf", "--kubeconfig", kc)
	if r.code != 0 || !strings.Contains(r.stdout, "AIPerfSweep: perf/conc (operator)") || !strings.Contains(r.stdout, "--num-profile-runs") {
		t.Fatalf("kube show of the sweep: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runMain(t, ctx, nil, "kube", "delete", "conc", "-n", "perf", "--kubeconfig", kc); r.code != 0 || !strings.Contains(r.stdout, "AIPerfSweep perf/conc deleted") {
		t.Fatalf("kube delete of the sweep: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := c.Get(ctx, ctrlclient.ObjectKey{Namespace: "perf", Name: "conc-controller"}, &batchv1.Job{})
		return apierrors.IsNotFound(err), ctrlclient.IgnoreNotFound(err)
	}); err != nil {
		t.Fatalf("the sweep's controller Job after delete: %v", err)
	}
}
