package operator

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// The results endpoint is the controller pod's own HTTP API (aiperf
// profile --api-port, internal/kube's ControllerAPI): while the run goes
// it reports progress, after it the run's status and its artifacts, and
// it keeps serving them for the results linger or until `kube shutdown`.
// The operator asks it how the run stands, so a job is Completed when its
// run is (not an hour later, when the pod exits), and reports where the
// artifacts are served; `kube results` fetches them from there.

// RunObserver asks a job's controller pod how its run stands.
type RunObserver interface {
	Observe(ctx context.Context, job *v1alpha1.AIPerfJob) (RunReport, error)
}

// Run statuses the controller's API reports (/api/results "status").
const (
	RunRunning    = "running"
	RunComplete   = "complete"
	RunCancelled  = "cancelled"
	RunIncomplete = "incomplete"
	RunFailed     = "failed"
)

// RunReport is what the controller pod said.
type RunReport struct {
	// Status is one of the Run* statuses; Error explains a failed run.
	Status, Error string
	// Started: a phase of the run has begun, which the controller does
	// only once every load worker has connected and built its part of the
	// run (until then the pods may be ready while the workers are not).
	Started bool
	// Progress is the phase running and its counts (nil: not started).
	Progress *v1alpha1.RunProgress
	// ResultsReady: the artifacts are written and served at Location.
	ResultsReady bool
	Location
}

// Over reports whether the run has ended.
func (r RunReport) Over() bool { return r.Status != "" && r.Status != RunRunning }

// Location is where a job's artifacts are: Path names them
// (namespace/name) and URL is the API server path that proxies to the
// controller pod's results API.
type Location struct {
	Path, URL string
}

// ControllerRuns is the RunObserver that talks to the controller pod
// through the API server's pod proxy.
type ControllerRuns struct {
	Clientset kubernetes.Interface
}

// Observe asks the job's running controller pod for /api/results and, once
// the run is over, /api/results/list.
func (c ControllerRuns) Observe(ctx context.Context, job *v1alpha1.AIPerfJob) (RunReport, error) {
	capi, err := kube.NewControllerAPI(ctx, c.Clientset, job.Namespace, job.Name)
	if err != nil {
		return RunReport{}, err
	}
	res, err := capi.Result(ctx)
	if err != nil {
		return RunReport{}, err
	}
	rep := RunReport{Status: res.Status, Error: res.Error}
	if !rep.Over() {
		p, err := capi.Progress(ctx)
		if err != nil {
			return rep, err
		}
		rep.Started, rep.Progress = progressOf(p)
		return rep, nil
	}
	files, err := capi.Files(ctx)
	if err != nil {
		return rep, err
	}
	rep.ResultsReady = files.Ready
	rep.Location = Location{Path: job.Namespace + "/" + job.Name,
		URL: fmt.Sprintf("/api/v1/namespaces/%s/pods/%s:%d/proxy/api/results/list", job.Namespace, capi.Pod, capi.Port)}
	return rep, nil
}

// progressOf reads /api/progress: the run has started once it left the
// initializing state (its first phase began); the counts are the phase
// running's, the profiling phase's once it runs.
func progressOf(p kube.Progress) (started bool, rp *v1alpha1.RunProgress) {
	if p.SystemState == "" || p.SystemState == "initializing" || len(p.Phases) == 0 {
		return false, nil
	}
	name := "profiling"
	if _, ok := p.Phases[name]; !ok {
		for n := range p.Phases {
			name = n // the only one: warmup
		}
	}
	ph := p.Phases[name]
	return true, &v1alpha1.RunProgress{Phase: name, RequestsSent: int64(ph.RequestsSent),
		RequestsCompleted: int64(ph.RequestsCompleted), RequestErrors: int64(ph.RequestErrors)}
}
