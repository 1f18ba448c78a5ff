package kube

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// JobSet (sigs.k8s.io/jobset), the CRD AIPerf's operator and direct mode
// run a benchmark as, when it is installed. Its Go module is not
// available here, so the JobSet is an unstructured object built from the
// same Job specs as the two-Job layout.
const (
	JobSetGroup        = "jobset.x-k8s.io"
	JobSetVersion      = "v1alpha2"
	JobSetGroupVersion = JobSetGroup + "/" + JobSetVersion
	KindJobSet         = "JobSet"
)

// JobSetResource is the jobsets resource.
var JobSetResource = schema.GroupVersionResource{Group: JobSetGroup, Version: JobSetVersion, Resource: "jobsets"}

// JobSetInstalled reports whether the API server serves jobsets in
// jobset.x-k8s.io/v1alpha2 (discovery).
func JobSetInstalled(cs kubernetes.Interface) (bool, error) {
	rl, err := cs.Discovery().ServerResourcesForGroupVersion(JobSetGroupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	for _, r := range rl.APIResources {
		if r.Name == "jobsets" {
			return true, nil
		}
	}
	return false, nil
}

// AsJobSet replaces the controller Job and the worker Job of objs (from
// Objects) with one JobSet named after the benchmark, whose replicated
// jobs "controller" and "workers" (one replica each) have the same specs
// and pod labels: the JobSet controller creates Jobs NAME-controller-0
// and NAME-workers-0, the headless Service still selects the controller
// pod, and the pods' command lines are unchanged. The JobSet succeeds
// when the controller's Job does (the workers end with it) and is never
// restarted (a lost worker's requests are errors, not retried).
func AsJobSet(objs []runtime.Object) ([]runtime.Object, error) {
	var out []runtime.Object
	var ctl, workers *batchv1.Job
	for _, obj := range objs {
		j, ok := obj.(*batchv1.Job)
		switch {
		case !ok:
			out = append(out, obj)
		case j.Labels[LabelRole] == "controller":
			ctl = j
		default:
			workers = j
		}
	}
	if ctl == nil || workers == nil {
		return nil, fmt.Errorf("no controller and worker Jobs to put in a JobSet")
	}
	name := ctl.Labels[LabelJob]
	rjob := func(rname string, j *batchv1.Job) (map[string]any, error) {
		spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&j.Spec)
		if err != nil {
			return nil, err
		}
		labels := map[string]any{}
		for k, v := range j.Labels {
			labels[k] = v
		}
		return map[string]any{"name": rname, "replicas": int64(1),
			"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}}, nil
	}
	c, err := rjob("controller", ctl)
	if err != nil {
		return nil, err
	}
	w, err := rjob("workers", workers)
	if err != nil {
		return nil, err
	}
	labels := map[string]any{}
	for k, v := range ctl.Labels {
		labels[k] = v
	}
	labels[LabelRole] = "benchmark"
	js := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": JobSetGroupVersion, "kind": KindJobSet,
		"metadata": map[string]any{"name": name, "namespace": ctl.Namespace, "labels": labels},
		"spec": map[string]any{
			"successPolicy":  map[string]any{"operator": "All", "targetReplicatedJobs": []any{"controller"}},
			"failurePolicy":  map[string]any{"maxRestarts": int64(0)},
			"replicatedJobs": []any{c, w},
		},
	}}
	return append(out, js), nil
}

// ownedByJobSet reports whether a JobSet created j.
func ownedByJobSet(j *batchv1.Job) bool {
	for _, r := range j.OwnerReferences {
		if r.Kind == KindJobSet {
			return true
		}
	}
	return false
}

// deleteJobSets deletes the benchmark's JobSets (their Jobs and pods go
// with them by owner reference; Delete removes any Job left too).
func deleteJobSets(ctx context.Context, dyn dynamic.Interface, namespace, name string, del metav1.DeleteOptions) (int, error) {
	if dyn == nil {
		return 0, nil
	}
	l, err := dyn.Resource(JobSetResource).Namespace(namespace).List(ctx, selector(name))
	if apierrors.IsNotFound(err) {
		return 0, nil // the CRD is not installed
	}
	if err != nil {
		return 0, fmt.Errorf("listing jobsets in %s: %w", namespace, err)
	}
	n := 0
	for _, js := range l.Items {
		if err := dyn.Resource(JobSetResource).Namespace(namespace).Delete(ctx, js.GetName(), del); err != nil && !apierrors.IsNotFound(err) {
			return n, fmt.Errorf("deleting JobSet %s/%s: %w", namespace, js.GetName(), err)
		}
		n++
	}
	return n, nil
}
