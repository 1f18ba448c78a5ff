package kube

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func controllerPodNamed(name string, phase corev1.PodPhase, waiting string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "perf",
		Labels: map[string]string{LabelJob: "chat", LabelRole: "controller"}}, Status: corev1.PodStatus{Phase: phase}}
	if waiting != "" {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "controller",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting, Message: "image aiperf:nope"}}}}
	}
	return p
}

// TestWaitControllerPod: following a benchmark right after submitting it
// waits for its pod to be created and to run; a pod that can never start
// ends the wait with the kubelet's reason.
func TestWaitControllerPod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		cs := fake.NewClientset()
		var said []string
		got := make(chan *corev1.Pod)
		go func() {
			p, err := WaitControllerPod(ctx, cs, "perf", "chat", time.Second, func(s string) { said = append(said, s) })
			if err != nil {
				t.Error(err)
			}
			got <- p
		}()
		<-time.After(3 * time.Second) // the bubble's clock: the pod does not exist yet
		synctest.Wait()
		pods := cs.CoreV1().Pods("perf")
		if _, err := pods.Create(ctx, controllerPodNamed("chat-controller-x", corev1.PodPending, "ImagePullBackOff"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		<-time.After(2 * time.Second)
		synctest.Wait()
		if _, err := pods.Update(ctx, controllerPodNamed("chat-controller-x", corev1.PodRunning, ""), metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if p := <-got; p == nil || p.Name != "chat-controller-x" {
			t.Fatalf("pod %v", p)
		}
		if len(said) != 2 || !strings.Contains(said[0], "to be created") || !strings.Contains(said[1], "ImagePullBackOff") {
			t.Fatalf("said %q", said)
		}
	})

	cs := fake.NewClientset(controllerPodNamed("chat-controller-y", corev1.PodPending, "ErrImageNeverPull"))
	_, err := WaitControllerPod(context.Background(), cs, "perf", "chat", time.Hour, nil)
	if err == nil || !strings.Contains(err.Error(), "ErrImageNeverPull") || !strings.Contains(err.Error(), "cannot start") {
		t.Fatalf("a pod that can never start: %v", err)
	}
}
