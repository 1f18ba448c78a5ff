package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Create creates objs (from Objects, or AsJobSet's) in order; an object
// that already exists is an error naming it, except the Namespace, which
// may. A JobSet is created with dyn.
func Create(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, objs []runtime.Object) error {
	opts := metav1.CreateOptions{}
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *corev1.Namespace:
			_, err = cs.CoreV1().Namespaces().Create(ctx, o, opts)
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
		case *corev1.ServiceAccount:
			_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, opts)
		case *corev1.ConfigMap:
			_, err = cs.CoreV1().ConfigMaps(o.Namespace).Create(ctx, o, opts)
		case *corev1.Secret:
			_, err = cs.CoreV1().Secrets(o.Namespace).Create(ctx, o, opts)
		case *corev1.Service:
			_, err = cs.CoreV1().Services(o.Namespace).Create(ctx, o, opts)
		case *batchv1.Job:
			_, err = cs.BatchV1().Jobs(o.Namespace).Create(ctx, o, opts)
		case *unstructured.Unstructured:
			if o.GetKind() != KindJobSet || dyn == nil {
				err = fmt.Errorf("unsupported object %s (or no dynamic client)", o.GetKind())
				break
			}
			_, err = dyn.Resource(JobSetResource).Namespace(o.GetNamespace()).Create(ctx, o, opts)
		default:
			err = fmt.Errorf("unsupported object %T", obj)
		}
		if err != nil {
			return fmt.Errorf("creating %s: %w", describe(obj), err)
		}
	}
	return nil
}

func describe(obj runtime.Object) string {
	if m, ok := obj.(metav1.Object); ok {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		if m.GetNamespace() == "" {
			return kind + " " + m.GetName()
		}
		return kind + " " + m.GetNamespace() + "/" + m.GetName()
	}
	return fmt.Sprintf("%T", obj)
}

// selector selects the objects of the benchmark called name.
func selector(name string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: LabelJob + "=" + name}
}

// Delete removes every object of the benchmark called name in namespace
// (its JobSet, with dyn; its pods go with their Jobs); the Namespace
// stays. It returns how many
// objects it deleted.
func Delete(ctx context.Context, cs kubernetes.Interface, dyn dynamic.Interface, namespace, name string) (int, error) {
	sel := selector(name)
	bg := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{PropagationPolicy: &bg}
	var errs []error
	n, err := deleteJobSets(ctx, dyn, namespace, name, del)
	if err != nil {
		errs = append(errs, err)
	}
	note := func(kind, obj string, err error) {
		switch {
		case err == nil:
			n++
		case !apierrors.IsNotFound(err):
			errs = append(errs, fmt.Errorf("deleting %s %s/%s: %w", kind, namespace, obj, err))
		}
	}
	jobs, err := cs.BatchV1().Jobs(namespace).List(ctx, sel)
	if err != nil {
		return 0, fmt.Errorf("listing jobs in %s: %w", namespace, err)
	}
	for _, j := range jobs.Items {
		note("Job", j.Name, cs.BatchV1().Jobs(namespace).Delete(ctx, j.Name, del))
	}
	svcs, err := cs.CoreV1().Services(namespace).List(ctx, sel)
	if err != nil {
		return n, err
	}
	for _, s := range svcs.Items {
		note("Service", s.Name, cs.CoreV1().Services(namespace).Delete(ctx, s.Name, del))
	}
	cms, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, sel)
	if err != nil {
		return n, err
	}
	for _, c := range cms.Items {
		note("ConfigMap", c.Name, cs.CoreV1().ConfigMaps(namespace).Delete(ctx, c.Name, del))
	}
	sas, err := cs.CoreV1().ServiceAccounts(namespace).List(ctx, sel)
	if err != nil {
		return n, err
	}
	for _, s := range sas.Items {
		note("ServiceAccount", s.Name, cs.CoreV1().ServiceAccounts(namespace).Delete(ctx, s.Name, del))
	}
	secrets, err := cs.CoreV1().Secrets(namespace).List(ctx, sel)
	if err != nil {
		return n, err
	}
	for _, s := range secrets.Items {
		note("Secret", s.Name, cs.CoreV1().Secrets(namespace).Delete(ctx, s.Name, del))
	}
	return n, errors.Join(errs...)
}

// Cancel stops a running benchmark's load workers; the controller
// records their requests in flight as WorkerLostError and, with every
// worker gone, ends the run with partial artifacts, which it keeps
// serving (`kube results`). The worker Job is suspended; one a JobSet
// owns is scaled to no pods instead (the JobSet controller resumes a
// suspended child Job of a running JobSet, and does not manage its
// parallelism). The objects stay for `results` and `delete`.
func Cancel(ctx context.Context, cs kubernetes.Interface, namespace, name string) error {
	_, j, err := benchmarkJobs(ctx, cs, namespace, name)
	if err == nil && j == nil {
		err = errors.New("no worker Job")
	}
	if err != nil {
		return fmt.Errorf("benchmark %s/%s: %w", namespace, name, err)
	}
	if ownedByJobSet(j) {
		j.Spec.Parallelism = ptr(int32(0))
	} else {
		j.Spec.Suspend = ptr(true)
	}
	if _, err := cs.BatchV1().Jobs(namespace).Update(ctx, j, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("stopping the workers %s/%s: %w", namespace, j.Name, err)
	}
	return nil
}

// benchmarkJobs finds the benchmark's controller and worker Jobs by their
// labels (the two-Job layout names them NAME-controller and
// NAME-workers, a JobSet NAME-controller-0 and NAME-workers-0); either
// is nil when missing.
func benchmarkJobs(ctx context.Context, cs kubernetes.Interface, namespace, name string) (ctl, workers *batchv1.Job, err error) {
	jobs, err := cs.BatchV1().Jobs(namespace).List(ctx, selector(name))
	if err != nil {
		return nil, nil, fmt.Errorf("listing the jobs of %s/%s: %w", namespace, name, err)
	}
	for i := range jobs.Items {
		switch j := &jobs.Items[i]; j.Labels[LabelRole] {
		case "controller":
			ctl = j
		case "worker":
			workers = j
		}
	}
	return ctl, workers, nil
}

// cancelled reports whether Cancel stopped the worker Job j.
func cancelled(j *batchv1.Job) bool {
	return j.Spec.Suspend != nil && *j.Spec.Suspend || ownedByJobSet(j) && j.Spec.Parallelism != nil && *j.Spec.Parallelism == 0
}

// Status is a benchmark's state as its Jobs report it.
type Status struct {
	Name, Namespace string
	// Phase is Pending, Running, Succeeded, Failed or Cancelled.
	Phase string
	// Workers: how many worker pods are active, succeeded and failed.
	WorkersActive, WorkersSucceeded, WorkersFailed int32
	// Serving: the run is over and its controller pod still serves the
	// results (until `kube shutdown`); Phase then says how the run ended.
	Serving bool
}

// servingPhase asks a running controller's API whether its run is over
// (the Job stays active while the controller serves the results).
// Without a REST client (client-go's fake) or an answer, st is kept.
func servingPhase(ctx context.Context, cs kubernetes.Interface, st *Status) {
	if restClient(cs) == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := NewControllerAPI(ctx, cs, st.Namespace, st.Name)
	if err != nil {
		return
	}
	r, err := c.Result(ctx)
	if err != nil {
		return
	}
	switch r.Status {
	case "running":
		return
	case "complete":
		st.Phase = "Succeeded"
	case "cancelled":
		st.Phase = "Cancelled"
	default:
		st.Phase = "Failed"
	}
	st.Serving = true
}

// List reports every benchmark in namespace (by its controller Job).
func List(ctx context.Context, cs kubernetes.Interface, namespace string) ([]Status, error) {
	jobs, err := cs.BatchV1().Jobs(namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelRole + "=controller"})
	if err != nil {
		return nil, fmt.Errorf("listing benchmarks in %s: %w", namespace, err)
	}
	var out []Status
	for _, c := range jobs.Items {
		name := c.Labels[LabelJob]
		st := Status{Name: name, Namespace: c.Namespace, Phase: jobPhase(&c)}
		if _, w, err := benchmarkJobs(ctx, cs, c.Namespace, name); err == nil && w != nil {
			st.WorkersActive, st.WorkersSucceeded, st.WorkersFailed = w.Status.Active, w.Status.Succeeded, w.Status.Failed
			if cancelled(w) && st.Phase == "Running" {
				st.Phase = "Cancelled"
			}
		}
		if st.Phase == "Running" || st.Phase == "Cancelled" {
			servingPhase(ctx, cs, &st)
		}
		out = append(out, st)
	}
	return out, nil
}

func jobPhase(j *batchv1.Job) string {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return "Succeeded"
		case batchv1.JobFailed:
			return "Failed"
		}
	}
	if j.Status.Active > 0 {
		return "Running"
	}
	return "Pending"
}

// Show is what `kube show` prints of one benchmark: its state and the
// controller's command line from its ConfigMap.
type Show struct {
	Status
	Controller  string
	ProfileArgs []string
}

// Describe reads one benchmark's ConfigMap and Jobs.
func Describe(ctx context.Context, cs kubernetes.Interface, namespace, name string) (Show, error) {
	cm, err := cs.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return Show{}, fmt.Errorf("benchmark %s/%s: %w", namespace, name, err)
	}
	sh := Show{Controller: cm.Data["controller"], ProfileArgs: strings.Fields(cm.Data["profile.args"])}
	sts, err := List(ctx, cs, namespace)
	if err != nil {
		return sh, err
	}
	sh.Status = Status{Name: name, Namespace: namespace, Phase: "Unknown"}
	for _, st := range sts {
		if st.Name == name {
			sh.Status = st
		}
	}
	return sh, nil
}

// Logs writes the logs of the benchmark's pods of role ("controller" or
// "worker") to w, each pod's under a "==> pod <==" line; follow streams
// them until the pods end (one pod at a time).
func Logs(ctx context.Context, cs kubernetes.Interface, namespace, name, role string, follow bool, w io.Writer) error {
	pods, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelJob + "=" + name + "," + LabelRole + "=" + role})
	if err != nil {
		return fmt.Errorf("listing %s pods of %s/%s: %w", role, namespace, name, err)
	}
	if len(pods.Items) == 0 {
		return fmt.Errorf("benchmark %s/%s has no %s pod (yet)", namespace, name, role)
	}
	for _, p := range pods.Items {
		fmt.Fprintf(w, "==> %s <==\n", p.Name)
		rc, err := cs.CoreV1().Pods(namespace).GetLogs(p.Name, &corev1.PodLogOptions{Follow: follow}).Stream(ctx)
		if err != nil {
			return fmt.Errorf("logs of %s/%s: %w", namespace, p.Name, err)
		}
		_, err = io.Copy(w, rc)
		rc.Close()
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

// TailLogs writes the last lines of pod's log to w.
func TailLogs(ctx context.Context, cs kubernetes.Interface, namespace, pod string, lines int64, w io.Writer) error {
	rc, err := cs.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{TailLines: &lines}).Stream(ctx)
	if err != nil {
		return fmt.Errorf("logs of %s/%s: %w", namespace, pod, err)
	}
	defer rc.Close()
	_, err = io.Copy(w, rc)
	return err
}
