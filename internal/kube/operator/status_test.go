package operator

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// TestAdvanceNeverGoesBack: the phase table. An observation that says
// less than was seen keeps the phase; a terminal phase is final.
func TestAdvanceNeverGoesBack(t *testing.T) {
	const (
		pe = v1alpha1.PhasePending
		in = v1alpha1.PhaseInitializing
		ru = v1alpha1.PhaseRunning
		co = v1alpha1.PhaseCompleted
		fa = v1alpha1.PhaseFailed
		ca = v1alpha1.PhaseCancelled
	)
	for _, c := range []struct{ from, seen, want v1alpha1.Phase }{
		{"", pe, pe}, {"", in, in}, {"", ru, ru}, {"", fa, fa},
		{pe, pe, pe}, {pe, in, in}, {pe, ru, ru}, {pe, co, co}, {pe, ca, ca},
		{in, pe, in}, {in, in, in}, {in, ru, ru}, {in, fa, fa},
		{ru, pe, ru}, {ru, in, ru}, {ru, ru, ru}, {ru, co, co}, {ru, ca, ca},
		{co, in, co}, {co, fa, co}, {co, ca, co}, {fa, co, fa}, {ca, co, ca}, {ca, ru, ca},
	} {
		if got := advance(c.from, c.seen); got != c.want {
			t.Errorf("advance(%q, %q) = %q, want %q", c.from, c.seen, got, c.want)
		}
	}
}

func waitingPod(name, reason string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
		Name: "controller", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "image x"}}}}}}
}

// TestPodProblems: an image that cannot be had fails the run with the
// kubelet's reason; a pull backing off is said while it retries; a pod
// starting normally is no problem.
func TestPodProblems(t *testing.T) {
	job := newJob(t, nil)
	active := &batchv1.Job{Status: batchv1.JobStatus{Active: 1}}
	now := metav1.Now()
	for _, c := range []struct {
		name      string
		pods      []corev1.Pod
		wantPhase v1alpha1.Phase
		reason    string
	}{
		{"never pull", []corev1.Pod{waitingPod("a", "ContainerCreating"), waitingPod("b", "ErrImageNeverPull")}, v1alpha1.PhaseFailed, "ErrImageNeverPull"},
		{"invalid name", []corev1.Pod{waitingPod("a", "InvalidImageName")}, v1alpha1.PhaseFailed, "InvalidImageName"},
		{"backing off", []corev1.Pod{waitingPod("a", "ImagePullBackOff")}, v1alpha1.PhaseInitializing, "ImagePullBackOff"},
		{"starting", []corev1.Pod{waitingPod("a", "ContainerCreating")}, v1alpha1.PhaseInitializing, "WaitingForWorkers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := observed{controller: active, pod: kube.StartProblemOf(c.pods)}
			st := nextStatus(job, obs, now)
			if st.Phase != c.wantPhase {
				t.Fatalf("phase %s, want %s: %+v", st.Phase, c.wantPhase, st)
			}
			cond := condition(&v1alpha1.AIPerfJob{Status: st}, v1alpha1.ConditionBenchmarkRunning)
			if cond == nil || cond.Reason != c.reason {
				t.Fatalf("BenchmarkRunning %+v, want reason %s", cond, c.reason)
			}
			if c.wantPhase == v1alpha1.PhaseFailed && (st.Error == "" || !hasCondition(&v1alpha1.AIPerfJob{Status: st}, v1alpha1.ConditionFailed, metav1.ConditionTrue, c.reason)) {
				t.Fatalf("failed without its reason: %+v", st)
			}
		})
	}
}
