package operator

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// workload is an AIPerfJob or an AIPerfSweep as the reconciler handles
// it: the resource itself (for its finalizer, its owner references and
// its status subresource) and an AIPerfJob view of it (metadata, spec and
// the job's status fields), on which the reconcile logic works.
type workload interface {
	object() client.Object
	view() *v1alpha1.AIPerfJob
	// setStatus writes a view's status back into the resource.
	setStatus(st v1alpha1.AIPerfJobStatus)
	// empty is a new workload of the same kind, to read the latest into.
	empty() workload
	// sweep: an AIPerfSweep (spec.sweep required; the controller pod runs
	// every variation, its workers rejoining each run).
	sweep() bool
}

type jobWorkload struct{ j *v1alpha1.AIPerfJob }

func (w jobWorkload) object() client.Object                 { return w.j }
func (w jobWorkload) view() *v1alpha1.AIPerfJob             { return w.j }
func (w jobWorkload) setStatus(st v1alpha1.AIPerfJobStatus) { w.j.Status = st }
func (w jobWorkload) empty() workload                       { return jobWorkload{&v1alpha1.AIPerfJob{}} }
func (w jobWorkload) sweep() bool                           { return false }

// sweepWorkload views an AIPerfSweep as one job: this implementation runs
// a sweep's variations in one controller pod (as `kube sweep` does in
// direct mode) rather than one child AIPerfJob each.
type sweepWorkload struct {
	s *v1alpha1.AIPerfSweep
	v *v1alpha1.AIPerfJob
}

func newSweepWorkload(s *v1alpha1.AIPerfSweep) sweepWorkload {
	st := s.Status
	v := &v1alpha1.AIPerfJob{TypeMeta: s.TypeMeta, ObjectMeta: s.ObjectMeta, Spec: s.Spec, Status: v1alpha1.AIPerfJobStatus{
		Lifecycle: st.Lifecycle, JobID: st.JobID, ControllerJob: st.ControllerJob, WorkersJob: st.WorkersJob,
		Workers: st.Workers, Progress: st.Progress, ResultsPath: st.ResultsPath, APIURL: st.APIURL, Error: st.Error}}
	return sweepWorkload{s, v.DeepCopy()}
}

func (w sweepWorkload) object() client.Object     { return w.s }
func (w sweepWorkload) view() *v1alpha1.AIPerfJob { return w.v }
func (w sweepWorkload) setStatus(st v1alpha1.AIPerfJobStatus) {
	s := &w.s.Status
	s.Lifecycle, s.JobID, s.ControllerJob, s.WorkersJob = st.Lifecycle, st.JobID, st.ControllerJob, st.WorkersJob
	s.Workers, s.Progress, s.ResultsPath, s.APIURL, s.Error = st.Workers, st.Progress, st.ResultsPath, st.APIURL, st.Error
}
func (w sweepWorkload) empty() workload { return newSweepWorkload(&v1alpha1.AIPerfSweep{}) }
func (w sweepWorkload) sweep() bool     { return true }
