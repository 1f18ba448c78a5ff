package kube

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// PodState is one pod of a benchmark as `kube debug` reports it.
type PodState struct {
	Name, Role, Node string
	Phase            corev1.PodPhase
	// Containers: one line each ("worker: running, 0 restarts",
	// "controller: waiting ImagePullBackOff: ...").
	Containers []string
	// Problem is what is wrong with the pod ("" when nothing is).
	Problem string
}

// Diagnosis is `kube debug`'s report of one benchmark.
type Diagnosis struct {
	Status
	Pods []PodState
	// Events are the namespace's events about the benchmark's objects,
	// oldest first ("Warning BackOff pod/x: message").
	Events []string
	// Findings say what went wrong and what to do, one line each.
	Findings []string
}

// Diagnose gathers a benchmark's state, pods and events and explains
// the problems it recognises: images that cannot be pulled, pods that
// cannot be scheduled, containers that crashed or ran out of memory,
// Jobs that failed, workers that were suspended (cancelled).
func Diagnose(ctx context.Context, cs kubernetes.Interface, namespace, name string) (Diagnosis, error) {
	d := Diagnosis{Status: Status{Name: name, Namespace: namespace, Phase: "Unknown"}}
	sts, err := List(ctx, cs, namespace)
	if err != nil {
		return d, err
	}
	found := false
	for _, st := range sts {
		if st.Name == name {
			d.Status, found = st, true
		}
	}
	o := Options{Name: name, Namespace: namespace}
	ctl, workers, err := benchmarkJobs(ctx, cs, namespace, name)
	if err != nil {
		return d, err
	}
	involved := map[string]bool{o.controllerName(): true, o.workersName(): true, name: true}
	for _, j := range []*batchv1.Job{ctl, workers} {
		if j == nil {
			continue
		}
		involved[j.Name] = true
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				d.Findings = append(d.Findings, fmt.Sprintf("job %s failed (%s): %s", j.Name, c.Reason, c.Message))
			}
		}
		if cancelled(j) {
			d.Findings = append(d.Findings, fmt.Sprintf("job %s is stopped: the benchmark was cancelled", j.Name))
		}
	}
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, selector(name))
	if err != nil {
		return d, fmt.Errorf("listing the pods of %s/%s: %w", namespace, name, err)
	}
	if !found && len(pods.Items) == 0 {
		return d, fmt.Errorf("benchmark %s/%s: no controller Job and no pods found", namespace, name)
	}
	for _, p := range pods.Items {
		ps := podState(&p)
		if ps.Problem != "" {
			d.Findings = append(d.Findings, fmt.Sprintf("pod %s: %s", p.Name, ps.Problem))
		}
		d.Pods = append(d.Pods, ps)
		involved[p.Name] = true
	}
	sort.Slice(d.Pods, func(i, j int) bool { return d.Pods[i].Name < d.Pods[j].Name })
	evs, err := cs.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{})
	if err == nil {
		items := evs.Items
		sort.SliceStable(items, func(i, j int) bool { return eventTime(&items[i]).Time.Before(eventTime(&items[j]).Time) })
		for _, e := range items {
			if !involved[e.InvolvedObject.Name] {
				continue
			}
			d.Events = append(d.Events, fmt.Sprintf("%s %s %s/%s: %s", e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, e.Message))
		}
	}
	if len(d.Findings) == 0 {
		d.Findings = append(d.Findings, "no problem found")
	}
	return d, nil
}

func eventTime(e *corev1.Event) metav1.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp
	case !e.EventTime.IsZero():
		return metav1.Time{Time: e.EventTime.Time}
	}
	return e.CreationTimestamp
}

// podState reads one pod's containers and names its problem.
func podState(p *corev1.Pod) PodState {
	ps := PodState{Name: p.Name, Role: p.Labels[LabelRole], Node: p.Spec.NodeName, Phase: p.Status.Phase}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			ps.Problem = fmt.Sprintf("cannot be scheduled (%s): %s; lower --worker-cpu/--worker-memory or --workers, or add nodes", c.Reason, c.Message)
		}
	}
	for _, c := range append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...) {
		line := fmt.Sprintf("%s: ", c.Name)
		switch s := c.State; {
		case s.Waiting != nil:
			line += "waiting " + s.Waiting.Reason
			if s.Waiting.Message != "" {
				line += ": " + s.Waiting.Message
			}
			switch s.Waiting.Reason {
			case "ImagePullBackOff", "ErrImagePull", "InvalidImageName":
				ps.Problem = fmt.Sprintf("image %s cannot be pulled (%s): check --image and the namespace's image pull secrets", c.Image, s.Waiting.Reason)
			case "CrashLoopBackOff":
				ps.Problem = "crash loop: see its log below"
			case "CreateContainerConfigError":
				ps.Problem = "container config error: " + s.Waiting.Message
			}
		case s.Running != nil:
			line += "running"
		case s.Terminated != nil:
			line += fmt.Sprintf("terminated %s, exit %d", s.Terminated.Reason, s.Terminated.ExitCode)
			if s.Terminated.Reason == "OOMKilled" {
				ps.Problem = "out of memory (OOMKilled): raise --worker-memory, or spread the load over more --workers"
			} else if s.Terminated.ExitCode != 0 && ps.Problem == "" {
				ps.Problem = fmt.Sprintf("container %s exited %d (%s): see its log below", c.Name, s.Terminated.ExitCode, s.Terminated.Reason)
			}
		}
		line += fmt.Sprintf(", %d restarts", c.RestartCount)
		ps.Containers = append(ps.Containers, line)
	}
	return ps
}

// Write prints d; logs adds the last tail lines of each problem pod's
// log (every pod's with all).
func (d *Diagnosis) Write(ctx context.Context, cs kubernetes.Interface, w io.Writer, tail int64, all bool) {
	fmt.Fprintf(w, "benchmark %s/%s: %s (workers %d active, %d succeeded, %d failed)\n",
		d.Namespace, d.Name, d.Phase, d.WorkersActive, d.WorkersSucceeded, d.WorkersFailed)
	fmt.Fprintln(w, "\npods:")
	if len(d.Pods) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, p := range d.Pods {
		fmt.Fprintf(w, "  %s (%s) %s on %s\n", p.Name, p.Role, p.Phase, orNone(p.Node))
		for _, c := range p.Containers {
			fmt.Fprintf(w, "    %s\n", c)
		}
	}
	fmt.Fprintln(w, "\nevents:")
	if len(d.Events) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, e := range d.Events {
		fmt.Fprintf(w, "  %s\n", e)
	}
	fmt.Fprintln(w, "\nfindings:")
	for _, f := range d.Findings {
		fmt.Fprintf(w, "  - %s\n", f)
	}
	for _, p := range d.Pods {
		if !all && p.Problem == "" {
			continue
		}
		fmt.Fprintf(w, "\nlast %d log lines of %s:\n", tail, p.Name)
		if err := TailLogs(ctx, cs, d.Namespace, p.Name, tail, w); err != nil {
			fmt.Fprintf(w, "  (no log: %v)\n", err)
		}
		fmt.Fprintln(w)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(no node)"
	}
	return s
}
