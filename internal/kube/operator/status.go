package operator

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/aiperf-go/aiperf/internal/kube"
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
	// pod is a problem a pod of the job reported while starting (nil:
	// none).
	pod *kube.StartProblem
}

// rank orders the phases: a status only moves to a later rank, so an
// observation that says less than was already seen (the controller's API
// stopped answering after the run, a Job's counts lagging its pods) never
// steps the phase back. The terminal phases share the last rank: the
// first one reached is final.
func rank(p v1alpha1.Phase) int {
	switch {
	case p.Terminal():
		return 3
	case p == v1alpha1.PhaseRunning:
		return 2
	case p == v1alpha1.PhaseInitializing:
		return 1
	}
	return 0 // "", Pending, Queued
}

// advance is the phase after from, given the phase an observation
// suggests: the later of the two; a terminal phase is never left.
func advance(from, seen v1alpha1.Phase) v1alpha1.Phase {
	if rank(seen) > rank(from) {
		return seen
	}
	if from == "" {
		return v1alpha1.PhasePending
	}
	return from
}

// nextStatus is the status a job has given what was observed: a pure
// function, so the phase table is tested without a cluster. The phase
// only moves forward (advance): Pending, Initializing, Running, then one
// terminal phase, which is never left. Conditions keep their
// lastTransitionTime while their status does not change.
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
	switch {
	case obs.run != nil && obs.run.Started:
		w.Connected = total
	case job.Status.Workers != nil:
		w.Connected = job.Status.Workers.Connected
	}
	st.Workers = &w
	if obs.run != nil && obs.run.Progress != nil && !st.Phase.Terminal() {
		p := *obs.run.Progress
		st.Progress = &p
	}

	phase := advance(st.Phase, jobPhase(obs))
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
		set(v1alpha1.ConditionBenchmarkRunning, true, "WorkersConnected", fmt.Sprintf("every load worker (%d) connected to the controller; the run has begun", total))
	case obs.pod != nil:
		set(v1alpha1.ConditionBenchmarkRunning, false, obs.pod.Reason, obs.pod.Message)
	case phase == v1alpha1.PhaseInitializing:
		set(v1alpha1.ConditionBenchmarkRunning, false, "WaitingForWorkers",
			fmt.Sprintf("the controller pod is up; %d of %d load-worker pods ready, waiting for every worker to connect", w.Ready, total))
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

// jobPhase maps the run's and the Jobs' state to the phase they suggest:
// the controller pod's own word first (it knows the run is over while it
// still serves the artifacts, and that its workers connected), then the
// Jobs. Running comes only from the controller: pods that are ready say
// nothing of whether their workers reached it.
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
			if r.Started {
				return v1alpha1.PhaseRunning
			}
			return v1alpha1.PhaseInitializing
		}
	}
	switch {
	case c != nil && jobCondition(c, batchv1.JobComplete) != nil:
		return v1alpha1.PhaseCompleted
	case c != nil && jobCondition(c, batchv1.JobFailed) != nil:
		return v1alpha1.PhaseFailed
	case obs.cancelled:
		return v1alpha1.PhaseCancelled
	case obs.pod != nil && obs.pod.Fatal:
		return v1alpha1.PhaseFailed
	case c == nil || c.Status.Active == 0:
		return v1alpha1.PhasePending
	}
	return v1alpha1.PhaseInitializing
}

func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	if j == nil {
		return nil
	}
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
	if p := obs.pod; p != nil && p.Fatal && jobCondition(obs.controller, batchv1.JobFailed) == nil {
		return p.Reason, p.Message
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
