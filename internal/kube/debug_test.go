package kube

import (
	"context"
	"net/http"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
)

// TestDiagnoseExplainsFailingPods: an image that cannot be pulled, an
// unschedulable worker, an OOM-killed worker and a failed Job are each
// named with what to do, with the events about the benchmark's objects
// (not others') and the failing pods' logs.
func TestDiagnoseExplainsFailingPods(t *testing.T) {
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
	ctl, _ := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-controller", metav1.GetOptions{})
	ctl.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"}}
	cs.BatchV1().Jobs("perf").UpdateStatus(ctx, ctl, metav1.UpdateOptions{})
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "bench1-controller-a", Labels: o.labels("controller")},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "controller", Image: o.Image,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "pull access denied"}}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bench1-workers-0-x", Labels: o.labels("worker")}, Spec: corev1.PodSpec{NodeName: "node1"},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: "worker", RestartCount: 0,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bench1-workers-1-y", Labels: o.labels("worker")},
			Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu."}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bench1-workers-2-z", Labels: o.labels("worker")},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "worker",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}},
	}
	for _, p := range pods {
		p.Namespace = "perf"
		if _, err := cs.CoreV1().Pods("perf").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range []struct{ obj, reason, msg string }{
		{"bench1-controller-a", "Failed", "Failed to pull image"},
		{"other-pod", "Killing", "not ours"},
		{"bench1-workers", "SuccessfulCreate", "Created pod: bench1-workers-0-x"},
	} {
		ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "ev" + string(rune('a'+i)), Namespace: "perf"}, Type: "Warning", Reason: e.reason, Message: e.msg,
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: e.obj}}
		if _, err := cs.CoreV1().Events("perf").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Diagnose(ctx, cs, "perf", "bench1")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	d.Write(ctx, cs, &b, 5, false)
	out := b.String()
	for _, want := range []string{
		"benchmark perf/bench1: Failed",
		"job bench1-controller failed (BackoffLimitExceeded)",
		"pod bench1-controller-a: image registry.example/aiperf:v1 cannot be pulled (ImagePullBackOff): check --image",
		"pod bench1-workers-0-x: out of memory (OOMKilled): raise --worker-memory",
		"pod bench1-workers-1-y: cannot be scheduled (Unschedulable): 0/3 nodes are available: 3 Insufficient cpu.",
		"worker: terminated OOMKilled, exit 137, 0 restarts",
		"Warning Failed pod/bench1-controller-a: Failed to pull image",
		"last 5 log lines of bench1-workers-0-x:\nfake logs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not ours") || strings.Contains(out, "log lines of bench1-workers-2-z") {
		t.Errorf("report includes another object's event or a healthy pod's log:\n%s", out)
	}
	if _, err := Diagnose(ctx, cs, "perf", "nope"); err == nil {
		t.Error("diagnosing a benchmark that does not exist: no error")
	}
}

// TestListAsksARunningControllerWhetherItsRunIsOver: a controller Job
// stays active while its pod serves the results after the run; list asks
// the pod's API (through the pod proxy) and reports how the run ended.
func TestListAsksARunningControllerWhetherItsRunIsOver(t *testing.T) {
	status := "running"
	pod := &kubetest.Pod{Namespace: "perf", Name: "bench1-controller-a", Phase: "Running",
		Labels: map[string]string{LabelJob: "bench1", LabelRole: "controller"}, Ports: map[string]int{APIPortName: DefaultAPIPort},
		Backend: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/results" {
				w.Write([]byte(`{"status":"` + status + `"}`))
			}
		})}
	ks := kubetest.New(pod)
	defer ks.Close()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: ks.URL})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		api, phase string
		serving    bool
	}{{"running", "Running", false}, {"complete", "Succeeded", true}, {"cancelled", "Cancelled", true}, {"failed", "Failed", true}} {
		status = c.api
		st := Status{Name: "bench1", Namespace: "perf", Phase: "Running"}
		servingPhase(context.Background(), cs, &st)
		if st.Phase != c.phase || st.Serving != c.serving {
			t.Errorf("API status %s: phase %s serving %v; want %s %v", c.api, st.Phase, st.Serving, c.phase, c.serving)
		}
	}
}
