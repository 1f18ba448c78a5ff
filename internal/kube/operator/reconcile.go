// Package operator is the AIPerfJob operator: a
// controller-runtime reconciler that turns an AIPerfJob into the objects
// direct mode creates (internal/kube's builders: ServiceAccount,
// ConfigMap with the benchmark's config file, headless Service, controller
// Job, Indexed Job of load workers), owned by the AIPerfJob, honours
// spec.cancel, and reports status (phase, conditions, times, worker counts,
// where the results are). controller-runtime lives here only, so packages
// that do not run the operator do not link it.
package operator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// Finalizer holds an AIPerfJob until its objects are deleted (a cluster's
// garbage collector would also follow the owner references; the finalizer
// makes deletion complete without one, and before the resource is gone).
const Finalizer = v1alpha1.Group + "/finalizer"

// Reconciler reconciles AIPerfJobs.
type Reconciler struct {
	Client client.Client
	Scheme *runtime.Scheme
	// Image is used when spec.image is empty.
	Image string
	// Validate, when set, checks a job's controller command line (config
	// file and arguments) as the controller pod's `aiperf profile` would
	// parse it (nothing runs); a problem is reported as ConfigValid=False
	// and the job fails without objects.
	Validate func(ctx context.Context, o kube.Options) error
	// Runs, when set, asks a running controller pod how its run stands
	// (results.go): the phase follows the run itself, and the results
	// location is reported once its artifacts are served.
	Runs RunObserver
	// Events, when set, records each phase change as a Kubernetes Event
	// on the resource (kubectl describe shows them).
	Events events.EventRecorder
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// SetupWithManager registers the reconcilers: AIPerfJobs, AIPerfSweeps
// and the Jobs they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	// The benchmark's pods too: a pod that cannot start changes no Job,
	// and the pod informer then runs from the start rather than being
	// created (and synced, which a loaded API server makes slow) inside
	// the first reconcile that lists pods.
	byLabel := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		name := o.GetLabels()[kube.LabelJob]
		if name == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	})
	if err := ctrl.NewControllerManagedBy(mgr).
		Named("aiperfjob").
		For(&v1alpha1.AIPerfJob{}).
		Owns(&batchv1.Job{}).
		Watches(&corev1.Pod{}, byLabel).
		Complete(r); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("aiperfsweep").
		For(&v1alpha1.AIPerfSweep{}).
		Owns(&batchv1.Job{}).
		Watches(&corev1.Pod{}, byLabel).
		Complete(SweepReconciler{r})
}

// SweepReconciler reconciles AIPerfSweeps with the same logic: a sweep
// is run by one controller pod (every variation, its workers rejoining
// each run), as `kube sweep` does in direct mode.
type SweepReconciler struct{ *Reconciler }

// Reconcile brings one AIPerfSweep's objects and status up to date.
func (r SweepReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	s := &v1alpha1.AIPerfSweep{}
	if err := r.Client.Get(ctx, req.NamespacedName, s); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return r.reconcile(ctx, req, newSweepWorkload(s))
}

func (r *Reconciler) now() metav1.Time {
	if r.Now != nil {
		return metav1.NewTime(r.Now())
	}
	return metav1.Now()
}

// Reconcile brings one AIPerfJob's objects and status up to date.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	job := &v1alpha1.AIPerfJob{}
	if err := r.Client.Get(ctx, req.NamespacedName, job); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	return r.reconcile(ctx, req, jobWorkload{job})
}

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request, w workload) (ctrl.Result, error) {
	obj := w.object()
	if !obj.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, r.finalize(ctx, w)
	}
	if controllerutil.AddFinalizer(obj, Finalizer) {
		if err := r.Client.Update(ctx, obj); err != nil {
			return ctrl.Result{}, err
		}
		w.view().ObjectMeta = *obj.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	}
	job := w.view()
	opts, err := r.options(ctx, job, w.sweep())
	if err != nil {
		return ctrl.Result{}, r.fail(ctx, w, err)
	}
	now := r.now()
	if !job.Status.Phase.Terminal() {
		created, err := r.ensure(ctx, obj, job, opts)
		if err != nil {
			return ctrl.Result{}, err
		}
		cond := metav1.Condition{Type: v1alpha1.ConditionResourcesCreated, Status: metav1.ConditionTrue, Reason: "Created",
			Message:            fmt.Sprintf("%d objects: controller Job %s, worker Job %s", created, opts.ControllerJobName(), opts.WorkersJobName()),
			ObservedGeneration: job.Generation, LastTransitionTime: now}
		meta.SetStatusCondition(&job.Status.Conditions, cond)
		if job.Status.StartTime == nil {
			job.Status.StartTime = &now
		}
		job.Status.JobID = string(job.UID)
		job.Status.ControllerJob, job.Status.WorkersJob = opts.ControllerJobName(), opts.WorkersJobName()
	}
	obs := observed{}
	if obs.controller, err = r.getJob(ctx, job.Namespace, opts.ControllerJobName()); err != nil {
		return ctrl.Result{}, err
	}
	if obs.workers, err = r.getJob(ctx, job.Namespace, opts.WorkersJobName()); err != nil {
		return ctrl.Result{}, err
	}
	if job.Spec.Cancel && !job.Status.Phase.Terminal() {
		if err := r.suspend(ctx, obs.workers); err != nil {
			return ctrl.Result{}, err
		}
		obs.cancelled = true
	}
	var requeue time.Duration
	if !job.Status.Phase.Terminal() {
		// A pod that cannot start changes no Job's status: look, and
		// look again until the run is over.
		requeue = pollInterval
		if obs.pod, err = r.podProblem(ctx, job); err != nil {
			return ctrl.Result{}, err
		}
		if obs.pod != nil && obs.pod.Fatal && !obs.cancelled {
			// Its pods would wait forever: stop them; the status says why.
			for _, j := range []*batchv1.Job{obs.controller, obs.workers} {
				if err := r.suspend(ctx, j); err != nil {
					return ctrl.Result{}, err
				}
			}
		}
	}
	// A cancelled run still writes (partial) artifacts: ask until served.
	asking := !job.Status.Phase.Terminal() || !meta.IsStatusConditionTrue(job.Status.Conditions, v1alpha1.ConditionResultsAvailable)
	if r.Runs != nil && obs.controller != nil && obs.controller.Status.Active > 0 && asking {
		rep, err := r.Runs.Observe(ctx, job)
		switch {
		case err != nil:
			// The pod may not serve yet: ask again.
			ctrl.LoggerFrom(ctx).V(1).Info("controller pod not answering", "job", req.NamespacedName, "error", err.Error())
			requeue = pollInterval
		case rep.Over():
			obs.run = &rep
			if rep.ResultsReady {
				job.Status.ResultsPath, job.Status.APIURL = rep.Path, rep.URL
			} else {
				requeue = pollInterval
			}
		default:
			obs.run = &rep
			requeue = pollInterval
		}
	}
	st := nextStatus(job, obs, now)
	return ctrl.Result{RequeueAfter: requeue}, r.writeStatus(ctx, w, st)
}

// pollInterval is how often an unfinished job is looked at again (its
// controller pod asked how the run stands, its pods for a start that
// failed): the status follows the run within about this long.
const pollInterval = 2 * time.Second

// podProblem looks at the job's pods for one that cannot start.
func (r *Reconciler) podProblem(ctx context.Context, job *v1alpha1.AIPerfJob) (*kube.StartProblem, error) {
	pods := &corev1.PodList{}
	if err := r.Client.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{kube.LabelJob: job.Name}); err != nil {
		return nil, fmt.Errorf("listing the pods of %s/%s: %w", job.Namespace, job.Name, err)
	}
	return kube.StartProblemOf(pods.Items), nil
}

// options maps a job's spec onto internal/kube's Options.
func (r *Reconciler) options(ctx context.Context, job *v1alpha1.AIPerfJob, sweep bool) (kube.Options, error) {
	s := &job.Spec
	if s.Sweep != nil && !sweep {
		return kube.Options{}, errors.New("spec.sweep is set: an AIPerfJob runs one benchmark; a sweep is an AIPerfSweep")
	}
	if s.Sweep == nil && sweep {
		return kube.Options{}, errors.New("spec.sweep is required: an AIPerfSweep runs the variations of its sweep block")
	}
	cfg, err := s.ConfigFile()
	if err != nil {
		return kube.Options{}, err
	}
	o := kube.Options{Name: job.Name, Namespace: job.Namespace, Image: s.Image, Workers: s.Workers(), ConfigFile: cfg, ProfileArgs: s.ProfileArgs,
		ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy), TTLSecondsAfterFinished: s.TTLSecondsAfterFinished,
		// A sweep's workers rejoin each of its runs.
		Experiment: sweep}
	if o.Image == "" {
		o.Image = r.Image
	}
	if k := s.APIKeySecret; k != nil {
		o.APIKeySecret = &kube.SecretRef{Name: k.Name, Key: k.Key}
	}
	for _, h := range s.HeaderSecrets {
		o.HeaderSecrets = append(o.HeaderSecrets, kube.HeaderSecret{Header: h.Header, SecretRef: kube.SecretRef{Name: h.Name, Key: h.Key}})
	}
	if o.PodTemplate, err = kube.PodTemplateFrom(s.Extra); err != nil {
		return o, err
	}
	if s.TimeoutSeconds != nil && *s.TimeoutSeconds > 0 {
		o.ActiveDeadlineSeconds = ptr(int64(math.Ceil(*s.TimeoutSeconds)))
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	if r.Validate != nil && !meta.IsStatusConditionTrue(job.Status.Conditions, v1alpha1.ConditionConfigValid) {
		if err := r.Validate(ctx, o); err != nil {
			return o, err
		}
	}
	return o, nil
}

// fail records an invalid spec: ConfigValid and Failed, phase Failed, no objects.
func (r *Reconciler) fail(ctx context.Context, w workload, cause error) error {
	job := w.view()
	if job.Status.Phase.Terminal() {
		return nil
	}
	now := r.now()
	st := *job.Status.DeepCopy()
	set := func(typ string, status metav1.ConditionStatus) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: typ, Status: status, Reason: "InvalidConfig",
			Message: cause.Error(), ObservedGeneration: job.Generation, LastTransitionTime: now})
	}
	set(v1alpha1.ConditionConfigValid, metav1.ConditionFalse)
	set(v1alpha1.ConditionFailed, metav1.ConditionTrue)
	st.Phase, st.Error, st.ObservedGeneration, st.CompletionTime = v1alpha1.PhaseFailed, cause.Error(), job.Generation, &now
	return r.writeStatus(ctx, w, st)
}

// ensure creates each missing object, owned by job; it returns how many
// objects the job has.
func (r *Reconciler) ensure(ctx context.Context, owner client.Object, job *v1alpha1.AIPerfJob, o kube.Options) (int, error) {
	objs, err := kube.Objects(o)
	if err != nil {
		return 0, err
	}
	meta.SetStatusCondition(&job.Status.Conditions, metav1.Condition{Type: v1alpha1.ConditionConfigValid, Status: metav1.ConditionTrue,
		Reason: "Validated", Message: "spec.benchmark parses as an aiperf profile config", ObservedGeneration: job.Generation, LastTransitionTime: r.now()})
	for _, obj := range objs {
		co, ok := obj.(client.Object)
		if !ok {
			return 0, fmt.Errorf("object %T is not a client.Object", obj)
		}
		if err := controllerutil.SetControllerReference(owner, co, r.Scheme); err != nil {
			return 0, err
		}
		existing := co.DeepCopyObject().(client.Object)
		err := r.Client.Get(ctx, client.ObjectKeyFromObject(co), existing)
		switch {
		case err == nil:
			if !metav1.IsControlledBy(existing, job) {
				return 0, fmt.Errorf("%T %s/%s exists and is not owned by %s", co, co.GetNamespace(), co.GetName(), job.Name)
			}
		case apierrors.IsNotFound(err):
			if err := r.Client.Create(ctx, co); err != nil && !apierrors.IsAlreadyExists(err) {
				return 0, fmt.Errorf("creating %T %s/%s: %w", co, co.GetNamespace(), co.GetName(), err)
			}
		default:
			return 0, err
		}
	}
	return len(objs), nil
}

func (r *Reconciler) getJob(ctx context.Context, ns, name string) (*batchv1.Job, error) {
	j := &batchv1.Job{}
	err := r.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, j)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return j, err
}

// suspend stops the load workers (kube.Cancel's effect): their pods go,
// the controller records their requests in flight as WorkerLostError and
// writes partial artifacts.
func (r *Reconciler) suspend(ctx context.Context, w *batchv1.Job) error {
	if w == nil || (w.Spec.Suspend != nil && *w.Spec.Suspend) {
		return nil
	}
	w.Spec.Suspend = ptr(true)
	if err := r.Client.Update(ctx, w); err != nil {
		return fmt.Errorf("suspending %s/%s: %w", w.Namespace, w.Name, err)
	}
	return nil
}

// writeStatus updates the status subresource when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, w workload, st v1alpha1.AIPerfJobStatus) error {
	latest := w.empty()
	if err := r.Client.Get(ctx, client.ObjectKeyFromObject(w.object()), latest.object()); err != nil {
		return client.IgnoreNotFound(err)
	}
	if sw, ok := latest.(sweepWorkload); ok {
		latest = newSweepWorkload(sw.s) // its view from what was read
	}
	if reflect.DeepEqual(latest.view().Status, st) {
		return nil
	}
	from := latest.view().Status.Phase
	latest.setStatus(st)
	if err := r.Client.Status().Update(ctx, latest.object()); err != nil {
		return err
	}
	if r.Events != nil && st.Phase != from {
		kind, note := corev1.EventTypeNormal, fmt.Sprintf("phase %s", st.Phase)
		if st.Phase == v1alpha1.PhaseFailed {
			kind, note = corev1.EventTypeWarning, "phase Failed: "+st.Error
		}
		r.Events.Eventf(latest.object(), nil, kind, string(st.Phase), "Reconcile", note)
	}
	return nil
}

// finalize deletes the job's objects (those it controls), then lets the
// resource go.
func (r *Reconciler) finalize(ctx context.Context, w workload) error {
	obj := w.object()
	if !controllerutil.ContainsFinalizer(obj, Finalizer) {
		return nil
	}
	if err := DeleteOwned(ctx, r.Client, obj); err != nil {
		return err
	}
	controllerutil.RemoveFinalizer(obj, Finalizer)
	return r.Client.Update(ctx, obj)
}

// DeleteOwned deletes the objects job (an AIPerfJob or AIPerfSweep)
// controls: its Jobs (with their pods), Service, ConfigMap and ServiceAccount.
func DeleteOwned(ctx context.Context, c client.Client, job client.Object) error {
	sel := client.MatchingLabels{kube.LabelJob: job.GetName()}
	bg := client.PropagationPolicy(metav1.DeletePropagationBackground)
	lists := []client.ObjectList{&batchv1.JobList{}, &corev1.ServiceList{}, &corev1.ConfigMapList{}, &corev1.ServiceAccountList{}}
	var errs []error
	for _, l := range lists {
		if err := c.List(ctx, l, client.InNamespace(job.GetNamespace()), sel); err != nil {
			errs = append(errs, err)
			continue
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, it := range items {
			o := it.(client.Object)
			if !metav1.IsControlledBy(o, job) {
				continue
			}
			if err := c.Delete(ctx, o, bg); client.IgnoreNotFound(err) != nil {
				errs = append(errs, fmt.Errorf("deleting %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err))
			}
		}
	}
	return errors.Join(errs...)
}

func ptr[T any](v T) *T { return &v }

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
