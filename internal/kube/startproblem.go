package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// StartProblem is why a pod of a benchmark cannot start its container.
type StartProblem struct {
	// Reason is the kubelet's (ErrImageNeverPull, ImagePullBackOff, ...);
	// Message names the pod and container.
	Reason, Message string
	// Fatal: the pod will never start as it is (its image cannot be had,
	// or its name is invalid); waiting for it would wait forever.
	Fatal bool
}

func (p *StartProblem) Error() string { return p.Message }

// fatalWaiting are the waiting reasons no retry can clear; the others
// (an image pull backing off, a Secret not yet created) are reported
// while the kubelet retries.
var fatalWaiting = map[string]bool{"ErrImageNeverPull": true, "InvalidImageName": true}

// reportedWaiting are the waiting reasons worth saying.
var reportedWaiting = map[string]bool{"ErrImageNeverPull": true, "InvalidImageName": true, "ErrImagePull": true,
	"ImagePullBackOff": true, "CreateContainerConfigError": true, "CreateContainerError": true}

// StartProblemOf is the first start problem among pods, a fatal one
// first; nil when none has one.
func StartProblemOf(pods []corev1.Pod) *StartProblem {
	var found *StartProblem
	for i := range pods {
		p := &pods[i]
		for _, cs := range p.Status.ContainerStatuses {
			wt := cs.State.Waiting
			if wt == nil || !reportedWaiting[wt.Reason] {
				continue
			}
			sp := &StartProblem{Reason: wt.Reason, Fatal: fatalWaiting[wt.Reason],
				Message: fmt.Sprintf("pod %s, container %s: %s: %s", p.Name, cs.Name, wt.Reason, wt.Message)}
			if sp.Fatal {
				return sp
			}
			if found == nil {
				found = sp
			}
		}
	}
	return found
}
