package operator

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// observed is what the reconciler saw of a job's objects.
type observed struct {
	// controller and workers are the two Jobs (nil: not there).
	controller, workers *batchv1.Job
	// cancelled: spec.cancel was honoured (the worker Job is suspended).
	cancelled bool
	// run is what the controller pod said of its run (nil: not asked,
	// or no answer).
	run *RunReport
}

// nextStatus is the status a job has given what was observed: a pure
// function, so the phase table is tested without a cluster. A terminal
// phase is never left; conditions keep their lastTransitionTime while
// their status does not change.
func nextStatus(job *v1alpha1.AIPerfJob, obs observed, now metav1.Time) v1alpha1.AIPerfJobStatus {
	st := *job.Status.DeepCopy()
	st.ObservedGeneration = job.Generation
	set := func(typ string, ok bool, reason, msg string) {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg,
			ObservedGeneration: job.Generation, LastTransitionTime: now})
	}
	total := int32(job.Spec.Workers())
	w := v1alpha1.WorkerCounts{Total: total}
	if obs.workers != nil {
		js := obs.workers.Status
		w.Active, w.Succeeded, w.Failed = js.Active, js.Succeeded, js.Failed
		if js.Ready != nil {
			w.Ready = *js.Ready
		}
	}
	st.Workers = &w

	phase := st.Phase
	if !phase.Terminal() {
		phase = jobPhase(obs)
	}
	switch {
	case st.Phase.Terminal():
		// Already final; only the counts and the results move.
	case phase == v1alpha1.PhaseCancelled:
		set(v1alpha1.ConditionBenchmarkRunning, false, "Cancelled", "spec.cancel is true: the load workers were suspended")
	case phase == v1alpha1.PhaseCompleted:
		set(v1alpha1.ConditionBenchmarkRunning, false, "Finished", "the controller pod finished")
		set(v1alpha1.ConditionComplete, true, "Succeeded", "the benchmark finished; the controller wrote the artifacts")
	case phase == v1alpha1.PhaseFailed:
		reason, msg := failure(obs)
		set(v1alpha1.ConditionBenchmarkRunning, false, reason, msg)
		set(v1alpha1.ConditionFailed, true, reason, msg)
		st.Error = msg
	case phase == v1alpha1.PhaseRunning:
		set(v1alpha1.ConditionBenchmarkRunning, true, "WorkersConnected", "the controller pod and every load worker are up")
	case phase == v1alpha1.PhaseInitializing:
		set(v1alpha1.ConditionBenchmarkRunning, false, "WaitingForWorkers", fmt.Sprintf("%d of %d load workers ready", w.Ready, total))
	default:
		set(v1alpha1.ConditionBenchmarkRunning, false, "PodsPending", "waiting for the controller pod to start")
	}
	switch {
	case phase.Terminal():
		set(v1alpha1.ConditionWorkersReady, false, "Finished", fmt.Sprintf("%d succeeded, %d failed", w.Succeeded, w.Failed))
	case w.Ready >= total:
		set(v1alpha1.ConditionWorkersReady, true, "AllWorkersReady", fmt.Sprintf("%d of %d load workers ready", w.Ready, total))
	default:
		set(v1alpha1.ConditionWorkersReady, false, "WorkersStarting", fmt.Sprintf("%d of %d load workers ready", w.Ready, total))
	}
	if phase.Terminal() {
		served := meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionResultsAvailable)
		switch {
		case obs.run != nil && obs.run.ResultsReady:
			set(v1alpha1.ConditionResultsAvailable, true, "Serving",
				"the controller pod serves the artifacts (aiperf kube results "+job.Name+" -n "+job.Namespace+"; API server path "+st.APIURL+")")
		case served && controllerExited(obs.controller):
			set(v1alpha1.ConditionResultsAvailable, false, "ControllerExited",
				"the controller pod exited (results linger over, or kube shutdown); its artifacts went with its emptyDir")
		case !served:
			set(v1alpha1.ConditionResultsAvailable, false, "NotServed", "no controller pod serves the artifacts")
		}
	}
	if phase.Terminal() && st.CompletionTime == nil {
		st.CompletionTime = &now
	}
	st.Phase = phase
	return st
}

// jobPhase maps the run's and the Jobs' state to a phase: the controller
// pod's own word first (it knows the run is over while it still serves
// the artifacts), then the Jobs.
func jobPhase(obs observed) v1alpha1.Phase {
	c := obs.controller
	if r := obs.run; r != nil {
		switch r.Status {
		case RunComplete:
			return v1alpha1.PhaseCompleted
		case RunCancelled:
			return v1alpha1.PhaseCancelled
		case RunFailed, RunIncomplete:
			if obs.cancelled {
				return v1alpha1.PhaseCancelled
			}
			return v1alpha1.PhaseFailed
		case RunRunning:
			return v1alpha1.PhaseRunning
		}
	}
	switch {
	case c != nil && jobCondition(c, batchv1.JobComplete) != nil:
		return v1alpha1.PhaseCompleted
	case c != nil && jobCondition(c, batchv1.JobFailed) != nil:
		return v1alpha1.PhaseFailed
	case obs.cancelled:
		return v1alpha1.PhaseCancelled
	case c == nil || c.Status.Active == 0:
		return v1alpha1.PhasePending
	}
	w := obs.workers
	if w != nil && w.Status.Ready != nil && w.Spec.Parallelism != nil && *w.Status.Ready >= *w.Spec.Parallelism {
		return v1alpha1.PhaseRunning
	}
	return v1alpha1.PhaseInitializing
}

func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if c := &j.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

func controllerExited(j *batchv1.Job) bool {
	return j != nil && (jobCondition(j, batchv1.JobComplete) != nil || jobCondition(j, batchv1.JobFailed) != nil)
}

// failure is the reason and message of a failed run, or else of a failed
// controller Job.
func failure(obs observed) (reason, msg string) {
	if r := obs.run; r != nil && (r.Status == RunFailed || r.Status == RunIncomplete) {
		reason, msg = "RunFailed", "the run failed"
		if r.Status == RunIncomplete {
			reason, msg = "RunIncomplete", "the run ended before its phases did (partial artifacts)"
		}
		if r.Error != "" {
			msg += ": " + r.Error
		}
		return reason, msg
	}
	j := obs.controller
	c := jobCondition(j, batchv1.JobFailed)
	reason, msg = "ControllerFailed", "the controller pod failed"
	if c != nil && c.Reason != "" {
		reason = c.Reason
	}
	if c != nil && c.Message != "" {
		msg = "the controller pod failed: " + c.Message
	}
	return reason, msg
}
