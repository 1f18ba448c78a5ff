package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Phase is an AIPerfJob's or AIPerfSweep's lifecycle phase (AIPerf's
// kubernetes/phase.py vocabulary).
type Phase string

// The phases. Completed, Failed and Cancelled are terminal.
const (
	PhasePending      Phase = "Pending"
	PhaseQueued       Phase = "Queued"
	PhaseInitializing Phase = "Initializing"
	PhaseRunning      Phase = "Running"
	PhaseCompleted    Phase = "Completed"
	PhaseFailed       Phase = "Failed"
	PhaseCancelled    Phase = "Cancelled"
)

// Terminal reports whether p is a final phase: nothing runs any more.
func (p Phase) Terminal() bool {
	return p == PhaseCompleted || p == PhaseFailed || p == PhaseCancelled
}

// Condition types of status.conditions (AIPerf's operator/status.py). Complete
// and Failed mirror a batch/v1 Job's, so `kubectl wait
// --for=condition=Complete aiperfjob/NAME` works; a cancelled job sets
// neither (phase Cancelled is the signal), as a Job does.
const (
	ConditionConfigValid      = "ConfigValid"
	ConditionResourcesCreated = "ResourcesCreated"
	ConditionWorkersReady     = "WorkersReady"
	ConditionBenchmarkRunning = "BenchmarkRunning"
	ConditionResultsAvailable = "ResultsAvailable"
	ConditionComplete         = "Complete"
	ConditionFailed           = "Failed"
)

// AIPerfJob is one benchmark run by the operator: a controller pod that
// keeps the schedule and writes the artifacts, and N load-worker pods.
type AIPerfJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AIPerfJobSpec   `json:"spec"`
	Status AIPerfJobStatus `json:"status,omitempty"`
}

// AIPerfJobList is a list of AIPerfJobs.
type AIPerfJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AIPerfJob `json:"items"`
}

// AIPerfJobSpec is an AIPerfJob's spec: the workload (its spec.sweep must
// be unset; sweeps are AIPerfSweeps).
type AIPerfJobSpec = WorkloadSpec

// AIPerfSweepSpec is an AIPerfSweep's spec: the same workload as a
// template for every child AIPerfJob, and spec.sweep, which is required.
type AIPerfSweepSpec = WorkloadSpec

// WorkloadSpec is the spec both kinds share (AIPerf's AIPerfWorkloadSpec):
// the AIPerf config envelope (benchmark plus its sibling keys) and the
// deployment options. Keys this type does not name are kept in Extra and
// written back unchanged, so a resource round-trips whole.
type WorkloadSpec struct {
	// Benchmark is the config v2 body (endpoint, datasets, phases, ...).
	Benchmark runtime.RawExtension `json:"benchmark"`
	// Sweep is the sweep block (grid or scenarios): AIPerfSweep only.
	Sweep *runtime.RawExtension `json:"sweep,omitempty"`
	// Cancel, set to true, stops the run: the load workers are suspended
	// and the controller writes partial artifacts; phase becomes Cancelled.
	Cancel bool `json:"cancel,omitempty"`
	// Image is the aiperf image both pods run.
	Image string `json:"image,omitempty"`
	// ImagePullPolicy is Always, Never or IfNotPresent.
	ImagePullPolicy string `json:"imagePullPolicy,omitempty"`
	// TotalWorkers is the number of load-worker pods (this implementation's
	// key; AIPerf derives its count from the concurrency). Default 1.
	TotalWorkers *int32 `json:"totalWorkers,omitempty"`
	// TimeoutSeconds bounds the run (0: none): the Jobs' activeDeadlineSeconds.
	TimeoutSeconds *float64 `json:"timeoutSeconds,omitempty"`
	// TTLSecondsAfterFinished removes the Jobs that long after they end.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// ProfileArgs are `aiperf profile` arguments for the controller pod
	// (this implementation's key; `kube profile --operator -- ARGS` sets
	// it): they follow the config file, or replace it when benchmark is {}.
	ProfileArgs []string `json:"profileArgs,omitempty"`
	// ChildMetadata: labels and annotations for a sweep's child jobs.
	ChildMetadata *ChildMetadata `json:"childMetadata,omitempty"`
	// APIKeySecret names the Secret key holding the endpoint's API key:
	// the controller pod reads it from the Secret, so the key is never in
	// this resource, the ConfigMap or a pod's arguments.
	APIKeySecret *SecretKeyRef `json:"apiKeySecret,omitempty"`
	// HeaderSecrets are request headers whose values are read from Secret
	// keys, for credentials sent as headers.
	HeaderSecrets []HeaderSecret `json:"headerSecrets,omitempty"`

	// Extra holds every other key (model, dataset, variables, random_seed,
	// multi_run, podTemplate, scheduling, ...) as raw JSON.
	Extra map[string]runtime.RawExtension `json:"-"`
}

// SecretKeyRef is one key of a Secret in the job's namespace.
type SecretKeyRef struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// HeaderSecret is a request header whose value is a Secret's key.
type HeaderSecret struct {
	// Header is the header's name (Authorization, X-Api-Key, ...).
	Header string `json:"header"`
	Name   string `json:"name"`
	Key    string `json:"key"`
}

// ChildMetadata is stamped onto each child AIPerfJob of a sweep.
type ChildMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Lifecycle is the part of status both kinds share.
type Lifecycle struct {
	// Phase: Pending, Initializing, Running, Completed, Failed, Cancelled.
	Phase Phase `json:"phase,omitempty"`
	// ObservedGeneration is the spec generation this status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: ConfigValid, ResourcesCreated, WorkersReady,
	// BenchmarkRunning, ResultsAvailable, Complete, Failed.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// StartTime is when the run's objects were created; CompletionTime
	// when it reached a terminal phase.
	StartTime      *metav1.Time `json:"startTime,omitempty"`
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
}

// AIPerfJobStatus is what the operator reports of a job.
type AIPerfJobStatus struct {
	Lifecycle `json:",inline"`
	// JobID identifies the run (the resource's UID).
	JobID string `json:"jobId,omitempty"`
	// ControllerJob and WorkersJob name the batch/v1 Jobs created.
	ControllerJob string `json:"controllerJob,omitempty"`
	WorkersJob    string `json:"workersJob,omitempty"`
	// Workers counts the load-worker pods.
	Workers *WorkerCounts `json:"workers,omitempty"`
	// ResultsPath is where the artifacts are (a path of the results
	// endpoint, namespace/name); APIURL is the endpoint serving them.
	ResultsPath string `json:"resultsPath,omitempty"`
	APIURL      string `json:"apiUrl,omitempty"`
	// Progress is the run's request counts while it runs, from the
	// controller pod.
	Progress *RunProgress `json:"progress,omitempty"`
	// Error explains a Failed phase.
	Error string `json:"error,omitempty"`
}

// RunProgress is how far the run has got (the controller pod's
// /api/progress): the phase running and its request counts.
type RunProgress struct {
	Phase             string `json:"phase,omitempty"`
	RequestsSent      int64  `json:"requestsSent"`
	RequestsCompleted int64  `json:"requestsCompleted"`
	RequestErrors     int64  `json:"requestErrors"`
}

// WorkerCounts are the load-worker pods of a job, from the worker Job's
// status: ready and total as AIPerf reports them, with the Job's counts.
type WorkerCounts struct {
	Ready int32 `json:"ready"`
	Total int32 `json:"total"`
	// Connected counts the load workers connected to the controller and
	// ready for work (a pod can be ready long before its worker is).
	Connected int32 `json:"connected,omitempty"`
	Active    int32 `json:"active,omitempty"`
	Succeeded int32 `json:"succeeded,omitempty"`
	Failed    int32 `json:"failed,omitempty"`
}

// AIPerfSweep runs its spec.sweep's variations, one child AIPerfJob each.
type AIPerfSweep struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AIPerfSweepSpec   `json:"spec"`
	Status AIPerfSweepStatus `json:"status,omitempty"`
}

// AIPerfSweepList is a list of AIPerfSweeps.
type AIPerfSweepList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AIPerfSweep `json:"items"`
}

// AIPerfSweepStatus is what is reported of a sweep.
type AIPerfSweepStatus struct {
	Lifecycle `json:",inline"`
	// JobID, ControllerJob, WorkersJob, Workers, APIURL: as an
	// AIPerfJob's (this implementation runs a sweep in one controller pod).
	JobID         string        `json:"jobId,omitempty"`
	ControllerJob string        `json:"controllerJob,omitempty"`
	WorkersJob    string        `json:"workersJob,omitempty"`
	Workers       *WorkerCounts `json:"workers,omitempty"`
	Progress      *RunProgress  `json:"progress,omitempty"`
	APIURL        string        `json:"apiUrl,omitempty"`
	// TotalVariations, CompletedRuns and FailedRuns count the children.
	TotalVariations int32 `json:"totalVariations,omitempty"`
	CompletedRuns   int32 `json:"completedRuns,omitempty"`
	FailedRuns      int32 `json:"failedRuns,omitempty"`
	// Children are the child AIPerfJobs, in variation order.
	Children    []SweepChild `json:"children,omitempty"`
	ResultsPath string       `json:"resultsPath,omitempty"`
	Error       string       `json:"error,omitempty"`
}

// SweepChild is one variation's AIPerfJob.
type SweepChild struct {
	Name  string `json:"name"`
	Index int32  `json:"index"`
	Label string `json:"label,omitempty"`
	Phase Phase  `json:"phase,omitempty"`
}
