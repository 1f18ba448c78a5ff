package operator

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// jobYAML is an AIPerfJob as AIPerf's `kube init` writes one, with this
// implementation's totalWorkers.
const jobYAML = `apiVersion: aiperf.nvidia.com/v1alpha1
kind: AIPerfJob
metadata:
  name: chat1
  namespace: perf
spec:
  random_seed: 42
  benchmark:
    models: [llama]
    endpoint:
      urls: [http://vllm.perf.svc:8000]
      streaming: true
    phases:
      profiling:
        type: concurrency
        concurrency: 64
        requests: 1000
  image: registry/aiperf:v1
  totalWorkers: 4
  timeoutSeconds: 3600.5
`

func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newJob(t testing.TB, edit func(*v1alpha1.AIPerfJob)) *v1alpha1.AIPerfJob {
	t.Helper()
	j := &v1alpha1.AIPerfJob{}
	if err := yaml.UnmarshalStrict([]byte(jobYAML), j); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(j)
	}
	return j
}

// harness drives one scenario against a client: settle waits until the
// job called name (re-read) satisfies ok, reconciling as the setup
// requires; with ok nil, until the job is gone.
type harness struct {
	t      *testing.T
	ctx    context.Context
	c      client.Client
	settle func(name, what string, ok func(*v1alpha1.AIPerfJob) bool) *v1alpha1.AIPerfJob
	// events is the reconciler's recorder (the fake harness's).
	events events.EventRecorder
	// sweepSchema: the API server validates against the CRDs (it rejects
	// an AIPerfSweep without spec.sweep before the operator sees it).
	sweepSchema bool
	// settleSweep is settle for an AIPerfSweep.
	settleSweep func(name, what string, ok func(*v1alpha1.AIPerfSweep) bool) *v1alpha1.AIPerfSweep
	// runs plays the controller pods' API (there is no pod here).
	runs *scriptedRuns
}

// scriptedRuns is the RunObserver of the scenarios: each job's controller
// pod says what the test set, or does not answer.
type scriptedRuns struct {
	mu      sync.Mutex
	reports map[string]RunReport
}

func (s *scriptedRuns) set(name string, rep *RunReport) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reports == nil {
		s.reports = map[string]RunReport{}
	}
	if rep == nil {
		delete(s.reports, name)
		return
	}
	s.reports[name] = *rep
}

func (s *scriptedRuns) Observe(_ context.Context, job *v1alpha1.AIPerfJob) (RunReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rep, ok := s.reports[job.Name]
	if !ok {
		return RunReport{}, errorString("controller pod " + job.Name + " not answering")
	}
	return rep, nil
}

func (h *harness) job(name string) *batchv1.Job {
	h.t.Helper()
	j := &batchv1.Job{}
	if err := h.c.Get(h.ctx, client.ObjectKey{Namespace: "perf", Name: name}, j); err != nil {
		h.t.Fatalf("job %s: %v", name, err)
	}
	return j
}

// setJobStatus plays the Job controller's part (there is no
// kube-controller-manager or kubelet here).
func (h *harness) setJobStatus(name string, edit func(*batchv1.JobStatus)) {
	h.t.Helper()
	j := h.job(name)
	edit(&j.Status)
	if err := h.c.Status().Update(h.ctx, j); err != nil {
		h.t.Fatalf("job %s status: %v", name, err)
	}
}

func condition(j *v1alpha1.AIPerfJob, typ string) *metav1.Condition {
	return meta.FindStatusCondition(j.Status.Conditions, typ)
}

func hasCondition(j *v1alpha1.AIPerfJob, typ string, status metav1.ConditionStatus, reason string) bool {
	c := condition(j, typ)
	return c != nil && c.Status == status && (reason == "" || c.Reason == reason)
}

func phase(p v1alpha1.Phase) func(*v1alpha1.AIPerfJob) bool {
	return func(j *v1alpha1.AIPerfJob) bool { return j.Status.Phase == p }
}

func finishedJob(typ batchv1.JobConditionType, reason string) func(*batchv1.JobStatus) {
	return func(s *batchv1.JobStatus) {
		now := metav1.Now()
		s.StartTime = &now
		if typ == batchv1.JobComplete {
			s.CompletionTime = &now
			s.Succeeded = 1
			// The API server requires SuccessCriteriaMet before Complete.
			s.Conditions = append(s.Conditions, batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue,
				Reason: "CompletionsReached", LastTransitionTime: now, LastProbeTime: now})
		} else {
			s.Failed = 1
			s.Conditions = append(s.Conditions, batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue,
				Reason: reason, LastTransitionTime: now, LastProbeTime: now})
		}
		s.Active, s.Ready = 0, ptr(int32(0))
		s.Conditions = append(s.Conditions, batchv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason,
			Message: "controller pod " + strings.ToLower(string(typ)), LastTransitionTime: now, LastProbeTime: now})
	}
}

// runLifecycle: an AIPerfJob becomes direct mode's objects, owned by it;
// its phase and conditions follow the Jobs to Completed; deleting it
// deletes them.
func runLifecycle(h *harness) {
	t := h.t
	job := newJob(t, nil)
	if err := h.c.Create(h.ctx, job); err != nil {
		t.Fatal(err)
	}
	got := h.settle("chat1", "objects created", func(j *v1alpha1.AIPerfJob) bool {
		return hasCondition(j, v1alpha1.ConditionResourcesCreated, metav1.ConditionTrue, "Created")
	})
	if got.Status.Phase != v1alpha1.PhasePending || !hasCondition(got, v1alpha1.ConditionConfigValid, metav1.ConditionTrue, "Validated") ||
		got.Status.StartTime == nil || got.Status.JobID != string(got.UID) || got.Status.Workers == nil ||
		*got.Status.Workers != (v1alpha1.WorkerCounts{Ready: 0, Total: 4}) || got.Status.ObservedGeneration != got.Generation {
		t.Fatalf("status after create: %+v", got.Status)
	}
	if !slices.Contains(got.Finalizers, Finalizer) {
		t.Fatalf("finalizers %v", got.Finalizers)
	}
	// The same objects direct mode builds from the same options.
	cfg, err := got.Spec.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	want, err := kube.Objects(kube.Options{Name: "chat1", Namespace: "perf", Image: "registry/aiperf:v1", Workers: 4,
		ConfigFile: cfg, ActiveDeadlineSeconds: ptr(int64(3601))})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 5 {
		t.Fatalf("want %d objects", len(want))
	}
	for _, w := range want {
		wo := w.(client.Object)
		have := w.DeepCopyObject().(client.Object)
		if err := h.c.Get(h.ctx, client.ObjectKeyFromObject(wo), have); err != nil {
			t.Fatalf("%T %s: %v", wo, wo.GetName(), err)
		}
		if !metav1.IsControlledBy(have, got) {
			t.Errorf("%T %s is not controlled by the AIPerfJob: %v", have, have.GetName(), have.GetOwnerReferences())
		}
		if !equalSpec(t, w, have) {
			t.Errorf("%T %s differs from direct mode's", have, have.GetName())
		}
	}
	cm := &corev1.ConfigMap{}
	if err := h.c.Get(h.ctx, client.ObjectKey{Namespace: "perf", Name: "chat1"}, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["benchmark.yaml"] != string(cfg) || !strings.Contains(cm.Data["benchmark.yaml"], "random_seed: 42") ||
		strings.Contains(cm.Data["benchmark.yaml"], "image:") {
		t.Errorf("config file in the ConfigMap:\n%s", cm.Data["benchmark.yaml"])
	}
	ctl := h.job("chat1-controller")
	if args := strings.Join(ctl.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "profile --config "+kube.ConfigPath) ||
		!strings.Contains(args, "--workers 4 --worker-listen :7070") {
		t.Errorf("controller args %s", args)
	}
	if d := ctl.Spec.ActiveDeadlineSeconds; d == nil || *d != 3601 {
		t.Errorf("activeDeadlineSeconds %v (timeoutSeconds 3600.5)", d)
	}

	h.setJobStatus("chat1-controller", func(s *batchv1.JobStatus) { s.Active, s.Ready = 1, ptr(int32(1)) })
	h.setJobStatus("chat1-workers", func(s *batchv1.JobStatus) { s.Active, s.Ready = 4, ptr(int32(2)) })
	got = h.settle("chat1", "initializing", func(j *v1alpha1.AIPerfJob) bool {
		return j.Status.Phase == v1alpha1.PhaseInitializing && j.Status.Workers.Ready == 2
	})
	if !hasCondition(got, v1alpha1.ConditionWorkersReady, metav1.ConditionFalse, "WorkersStarting") || got.Status.Workers.Ready != 2 {
		t.Fatalf("initializing: %+v", got.Status)
	}
	validAt := condition(got, v1alpha1.ConditionConfigValid).LastTransitionTime
	// Every worker pod ready, the controller answering but its workers
	// not yet connected: still Initializing.
	h.setJobStatus("chat1-workers", func(s *batchv1.JobStatus) { s.Ready = ptr(int32(4)) })
	h.runs.set("chat1", &RunReport{Status: RunRunning})
	got = h.settle("chat1", "pods ready, workers not connected", func(j *v1alpha1.AIPerfJob) bool {
		return hasCondition(j, v1alpha1.ConditionWorkersReady, metav1.ConditionTrue, "AllWorkersReady")
	})
	if got.Status.Phase != v1alpha1.PhaseInitializing || got.Status.Workers.Connected != 0 {
		t.Fatalf("Running claimed from pod readiness: %+v", got.Status)
	}
	// The first phase began: every worker connected.
	h.runs.set("chat1", &RunReport{Status: RunRunning, Started: true,
		Progress: &v1alpha1.RunProgress{Phase: "profiling", RequestsSent: 12, RequestsCompleted: 10}})
	got = h.settle("chat1", "running", phase(v1alpha1.PhaseRunning))
	if !hasCondition(got, v1alpha1.ConditionWorkersReady, metav1.ConditionTrue, "AllWorkersReady") ||
		!hasCondition(got, v1alpha1.ConditionBenchmarkRunning, metav1.ConditionTrue, "WorkersConnected") || got.Status.Workers.Active != 4 ||
		got.Status.Workers.Connected != 4 || got.Status.Progress == nil || got.Status.Progress.RequestsCompleted != 10 {
		t.Fatalf("running: %+v", got.Status)
	}
	// The controller's API stops answering (kube results --shutdown)
	// and the workers' pods go before the controller Job says Complete:
	// the phase does not step back.
	h.runs.set("chat1", nil)
	h.setJobStatus("chat1-workers", func(s *batchv1.JobStatus) { s.Ready = ptr(int32(0)) })
	got = h.settle("chat1", "still running", func(j *v1alpha1.AIPerfJob) bool { return j.Status.Workers.Ready == 0 })
	if got.Status.Phase != v1alpha1.PhaseRunning || got.Status.Workers.Connected != 4 {
		t.Fatalf("the phase stepped back: %+v", got.Status)
	}
	h.setJobStatus("chat1-workers", func(s *batchv1.JobStatus) {
		s.Active, s.Ready, s.Succeeded, s.CompletedIndexes = 0, ptr(int32(0)), 4, "0-3"
	})
	h.setJobStatus("chat1-controller", finishedJob(batchv1.JobComplete, "CompletionsReached"))
	got = h.settle("chat1", "completed", phase(v1alpha1.PhaseCompleted))
	if !hasCondition(got, v1alpha1.ConditionComplete, metav1.ConditionTrue, "Succeeded") || condition(got, v1alpha1.ConditionFailed) != nil ||
		!hasCondition(got, v1alpha1.ConditionBenchmarkRunning, metav1.ConditionFalse, "Finished") || got.Status.CompletionTime == nil {
		t.Fatalf("completed: %+v", got.Status)
	}
	if at := condition(got, v1alpha1.ConditionConfigValid).LastTransitionTime; !at.Equal(&validAt) {
		t.Errorf("ConfigValid moved from %v to %v without changing", validAt, at)
	}

	if err := h.c.Delete(h.ctx, got); err != nil {
		t.Fatal(err)
	}
	h.settle("chat1", "deleted", nil)
	for _, w := range want {
		wo := w.(client.Object)
		have := w.DeepCopyObject().(client.Object)
		err := h.c.Get(h.ctx, client.ObjectKeyFromObject(wo), have)
		if err == nil && have.GetDeletionTimestamp().IsZero() {
			t.Errorf("%T %s still there after the AIPerfJob was deleted", have, wo.GetName())
		} else if err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	}
}

// runCancel: spec.cancel suspends the load workers; phase Cancelled with
// neither Complete nor Failed; a later end of the controller keeps it.
func runCancel(h *harness) {
	t := h.t
	job := newJob(t, func(j *v1alpha1.AIPerfJob) { j.Name = "chat2" })
	if err := h.c.Create(h.ctx, job); err != nil {
		t.Fatal(err)
	}
	got := h.settle("chat2", "objects created", func(j *v1alpha1.AIPerfJob) bool {
		return hasCondition(j, v1alpha1.ConditionResourcesCreated, metav1.ConditionTrue, "")
	})
	h.setJobStatus("chat2-controller", func(s *batchv1.JobStatus) { s.Active, s.Ready = 1, ptr(int32(1)) })
	// The operator writes the resource too: retry on a conflict.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := h.c.Get(h.ctx, client.ObjectKeyFromObject(got), got); err != nil {
			return err
		}
		got.Spec.Cancel = true
		return h.c.Update(h.ctx, got)
	}); err != nil {
		t.Fatal(err)
	}
	got = h.settle("chat2", "cancelled", phase(v1alpha1.PhaseCancelled))
	if w := h.job("chat2-workers"); w.Spec.Suspend == nil || !*w.Spec.Suspend {
		t.Fatal("the worker Job is not suspended")
	}
	if condition(got, v1alpha1.ConditionComplete) != nil || condition(got, v1alpha1.ConditionFailed) != nil ||
		!hasCondition(got, v1alpha1.ConditionBenchmarkRunning, metav1.ConditionFalse, "Cancelled") || got.Status.CompletionTime == nil {
		t.Fatalf("cancelled: %+v", got.Status)
	}
	h.setJobStatus("chat2-controller", finishedJob(batchv1.JobFailed, "BackoffLimitExceeded"))
	got = h.settle("chat2", "still cancelled", func(j *v1alpha1.AIPerfJob) bool {
		return j.Status.Phase == v1alpha1.PhaseCancelled && j.Status.Workers != nil
	})
	if condition(got, v1alpha1.ConditionFailed) != nil {
		t.Fatalf("a cancelled job turned Failed: %+v", got.Status)
	}
	if err := h.c.Delete(h.ctx, got); err != nil {
		t.Fatal(err)
	}
	h.settle("chat2", "deleted", nil)
}

// runFailures: a failed controller Job fails the AIPerfJob with its
// reason; an invalid spec fails it before any object exists.
func runFailures(h *harness) {
	t := h.t
	job := newJob(t, func(j *v1alpha1.AIPerfJob) { j.Name = "chat3" })
	if err := h.c.Create(h.ctx, job); err != nil {
		t.Fatal(err)
	}
	h.settle("chat3", "objects created", func(j *v1alpha1.AIPerfJob) bool {
		return hasCondition(j, v1alpha1.ConditionResourcesCreated, metav1.ConditionTrue, "")
	})
	h.setJobStatus("chat3-controller", finishedJob(batchv1.JobFailed, "DeadlineExceeded"))
	got := h.settle("chat3", "failed", phase(v1alpha1.PhaseFailed))
	if !hasCondition(got, v1alpha1.ConditionFailed, metav1.ConditionTrue, "DeadlineExceeded") || condition(got, v1alpha1.ConditionComplete) != nil ||
		!strings.Contains(got.Status.Error, "controller pod failed") {
		t.Fatalf("failed: %+v", got.Status)
	}

	bad := newJob(t, func(j *v1alpha1.AIPerfJob) {
		j.Name = "chat4"
		j.Spec.Benchmark.Raw = []byte(`{"models":["llama"],"phases":{"profiling":{"type":"concurrency","concurrency":-3}}}`)
	})
	if err := h.c.Create(h.ctx, bad); err != nil {
		t.Fatal(err)
	}
	got = h.settle("chat4", "invalid", phase(v1alpha1.PhaseFailed))
	if !hasCondition(got, v1alpha1.ConditionConfigValid, metav1.ConditionFalse, "InvalidConfig") ||
		!hasCondition(got, v1alpha1.ConditionFailed, metav1.ConditionTrue, "InvalidConfig") || !strings.Contains(got.Status.Error, "concurrency") {
		t.Fatalf("invalid: %+v", got.Status)
	}
	if err := h.c.Get(h.ctx, client.ObjectKey{Namespace: "perf", Name: "chat4-controller"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Fatalf("an invalid job got a controller Job: %v", err)
	}
}

// fakeValidate stands in for the CLI's validator (which runs this build's
// profile parser; tested in internal/cli): a negative concurrency is an error.
func fakeValidate(_ context.Context, o kube.Options) error {
	if strings.Contains(string(o.ConfigFile), "concurrency: -3") {
		return errorString("benchmark.phases.profiling.concurrency: must be at least 1, got -3")
	}
	return nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// equalSpec compares the parts of two objects that the reconciler sets
// (labels, data and spec), ignoring what the API server fills in.
func equalSpec(t *testing.T, want, have runtime.Object) bool {
	t.Helper()
	switch w := want.(type) {
	case *batchv1.Job:
		h := have.(*batchv1.Job)
		return slices.Equal(w.Spec.Template.Spec.Containers[0].Args, h.Spec.Template.Spec.Containers[0].Args) &&
			w.Spec.Template.Spec.Containers[0].Image == h.Spec.Template.Spec.Containers[0].Image &&
			(w.Spec.BackoffLimit == nil /* the API server defaults it */ || ptrEq(w.Spec.BackoffLimit, h.Spec.BackoffLimit)) &&
			ptrEq(w.Spec.BackoffLimitPerIndex, h.Spec.BackoffLimitPerIndex) && (w.Spec.Completions == nil || ptrEq(w.Spec.Completions, h.Spec.Completions)) /* the API server defaults it to 1 */ &&
			ptrEq(w.Spec.ActiveDeadlineSeconds, h.Spec.ActiveDeadlineSeconds) && subset(w.Labels, h.Labels)
	case *corev1.ConfigMap:
		h := have.(*corev1.ConfigMap)
		return mapsEqual(w.Data, h.Data) && subset(w.Labels, h.Labels)
	case *corev1.Service:
		h := have.(*corev1.Service)
		return h.Spec.ClusterIP == corev1.ClusterIPNone && mapsEqual(w.Spec.Selector, h.Spec.Selector) && len(h.Spec.Ports) == len(w.Spec.Ports)
	case *corev1.ServiceAccount:
		h := have.(*corev1.ServiceAccount)
		return ptrEq(w.AutomountServiceAccountToken, h.AutomountServiceAccountToken) && subset(w.Labels, h.Labels)
	}
	t.Fatalf("unexpected %T", want)
	return false
}

func ptrEq[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func mapsEqual(a, b map[string]string) bool { return len(a) == len(b) && subset(a, b) }

// subset: every key of a is in b with the same value (the API server adds
// labels of its own to a Job).
func subset(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// runSweep: an AIPerfSweep becomes the same objects, run by one controller
// pod over every variation (the config file keeps the sweep block, the
// workers rejoin each run), owned by the sweep; its status follows as a
// job's; one without a sweep block fails; delete cleans up.
func runSweep(h *harness) {
	t := h.t
	job := newJob(t, nil)
	sw := &v1alpha1.AIPerfSweep{ObjectMeta: metav1.ObjectMeta{Name: "conc", Namespace: "perf"}, Spec: *job.Spec.DeepCopy()}
	sw.Spec.Sweep = &runtime.RawExtension{Raw: []byte(`{"type":"grid","parameters":{"benchmark.phases.profiling.concurrency":[8,16,32]}}`)}
	if err := h.c.Create(h.ctx, sw); err != nil {
		t.Fatal(err)
	}
	got := h.settleSweep("conc", "objects created", func(s *v1alpha1.AIPerfSweep) bool {
		return hasCond(s.Status.Conditions, v1alpha1.ConditionResourcesCreated, metav1.ConditionTrue)
	})
	if got.Status.Phase != v1alpha1.PhasePending || got.Status.Workers == nil || got.Status.Workers.Total != 4 || got.Status.ControllerJob != "conc-controller" {
		t.Fatalf("sweep status: %+v", got.Status)
	}
	ctl, w := h.job("conc-controller"), h.job("conc-workers")
	if !metav1.IsControlledBy(ctl, got) || !metav1.IsControlledBy(w, got) {
		t.Fatal("the sweep's Jobs are not controlled by it")
	}
	if args := strings.Join(w.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--next-run-timeout") {
		t.Errorf("worker args %s: the workers do not rejoin each run", args)
	}
	cm := &corev1.ConfigMap{}
	if err := h.c.Get(h.ctx, client.ObjectKey{Namespace: "perf", Name: "conc"}, cm); err != nil || !strings.Contains(cm.Data["benchmark.yaml"], "sweep:") {
		t.Fatalf("the sweep's config file lost its sweep block: %v\n%s", err, cm.Data["benchmark.yaml"])
	}
	h.setJobStatus("conc-controller", finishedJob(batchv1.JobComplete, "CompletionsReached"))
	got = h.settleSweep("conc", "completed", func(s *v1alpha1.AIPerfSweep) bool { return s.Status.Phase == v1alpha1.PhaseCompleted })
	if !hasCond(got.Status.Conditions, v1alpha1.ConditionComplete, metav1.ConditionTrue) || got.Status.CompletionTime == nil {
		t.Fatalf("completed sweep: %+v", got.Status)
	}
	if err := h.c.Delete(h.ctx, got); err != nil {
		t.Fatal(err)
	}
	h.settleSweep("conc", "deleted", nil)
	if err := h.c.Get(h.ctx, client.ObjectKey{Namespace: "perf", Name: "conc-controller"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("the sweep's controller Job after delete: %v", err)
	}

	bad := &v1alpha1.AIPerfSweep{ObjectMeta: metav1.ObjectMeta{Name: "nosweep", Namespace: "perf"}, Spec: *job.Spec.DeepCopy()}
	if h.sweepSchema {
		return // the CRD itself requires spec.sweep
	}
	if err := h.c.Create(h.ctx, bad); err != nil {
		t.Fatal(err)
	}
	got = h.settleSweep("nosweep", "invalid", func(s *v1alpha1.AIPerfSweep) bool { return s.Status.Phase == v1alpha1.PhaseFailed })
	if !strings.Contains(got.Status.Error, "spec.sweep is required") {
		t.Fatalf("sweep without a sweep block: %+v", got.Status)
	}
}

func hasCond(cs []metav1.Condition, typ string, status metav1.ConditionStatus) bool {
	c := meta.FindStatusCondition(cs, typ)
	return c != nil && c.Status == status
}
