package kube

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

func jobSetObjects(t *testing.T) []runtime.Object {
	t.Helper()
	objs, err := Objects(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if objs, err = AsJobSet(objs); err != nil {
		t.Fatal(err)
	}
	return objs
}

// replicatedJob returns the JobSet's replicated job name, its template
// labels and its Job spec (as client-go's type).
func replicatedJob(t *testing.T, js *unstructured.Unstructured, name string) (map[string]string, batchv1.JobSpec) {
	t.Helper()
	rjobs, _, _ := unstructured.NestedSlice(js.Object, "spec", "replicatedJobs")
	for _, r := range rjobs {
		m := r.(map[string]any)
		if m["name"] != name {
			continue
		}
		if m["replicas"] != int64(1) {
			t.Errorf("replicated job %s: replicas %v; want 1", name, m["replicas"])
		}
		labels, _, _ := unstructured.NestedStringMap(m, "template", "metadata", "labels")
		specMap, _, _ := unstructured.NestedMap(m, "template", "spec")
		var spec batchv1.JobSpec
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(specMap, &spec); err != nil {
			t.Fatalf("replicated job %s's spec does not convert back to a JobSpec: %v", name, err)
		}
		return labels, spec
	}
	t.Fatalf("no replicated job %s in %v", name, rjobs)
	return nil, batchv1.JobSpec{}
}

// TestAsJobSetKeepsTheJobsSpecs: the JobSet holds the two Jobs' specs and
// labels unchanged, succeeds with the controller and never restarts; the
// rest of the objects (Service, ConfigMap, ...) stay.
func TestAsJobSetKeepsTheJobsSpecs(t *testing.T) {
	objs := jobSetObjects(t)
	plain, _ := Objects(testOptions())
	var js *unstructured.Unstructured
	var kinds []string
	for _, obj := range objs {
		kinds = append(kinds, obj.GetObjectKind().GroupVersionKind().Kind)
		if u, ok := obj.(*unstructured.Unstructured); ok {
			js = u
		}
	}
	if len(objs) != len(plain)-1 || js == nil || js.GetName() != "bench1" || js.GetNamespace() != "perf" || js.GetAPIVersion() != JobSetGroupVersion {
		t.Fatalf("objects %v; want the Jobs replaced by JobSet perf/bench1", kinds)
	}
	for _, p := range plain {
		j, ok := p.(*batchv1.Job)
		if !ok {
			continue
		}
		rname := "workers"
		if j.Labels[LabelRole] == "controller" {
			rname = "controller"
		}
		labels, spec := replicatedJob(t, js, rname)
		if labels[LabelRole] != j.Labels[LabelRole] || labels[LabelJob] != "bench1" {
			t.Errorf("%s: template labels %v", rname, labels)
		}
		if spec.Template.Spec.Containers[0].Args[0] != j.Spec.Template.Spec.Containers[0].Args[0] ||
			len(spec.Template.Spec.Containers[0].Args) != len(j.Spec.Template.Spec.Containers[0].Args) ||
			spec.Template.Labels[LabelRole] != j.Spec.Template.Labels[LabelRole] {
			t.Errorf("%s: the pod template changed in the JobSet", rname)
		}
	}
	if op, _, _ := unstructured.NestedString(js.Object, "spec", "successPolicy", "operator"); op != "All" {
		t.Errorf("successPolicy operator %q", op)
	}
	if targets, _, _ := unstructured.NestedStringSlice(js.Object, "spec", "successPolicy", "targetReplicatedJobs"); len(targets) != 1 || targets[0] != "controller" {
		t.Errorf("successPolicy targets %v; want [controller]", targets)
	}
	if n, _, _ := unstructured.NestedInt64(js.Object, "spec", "failurePolicy", "maxRestarts"); n != 0 {
		t.Errorf("maxRestarts %d", n)
	}
	if _, err := YAML(objs); err != nil {
		t.Errorf("YAML: %v", err)
	}
}

// jobSetChildren creates the Jobs the JobSet controller would (none runs
// here): NAME-controller-0 and NAME-workers-0, owned by the JobSet, with
// the replicated jobs' labels and specs.
func jobSetChildren(t *testing.T, cs kubernetes.Interface, js *unstructured.Unstructured) {
	t.Helper()
	for _, rname := range []string{"controller", "workers"} {
		labels, spec := replicatedJob(t, js, rname)
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: js.GetName() + "-" + rname + "-0", Namespace: js.GetNamespace(), Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: JobSetGroupVersion, Kind: KindJobSet, Name: js.GetName(), UID: js.GetUID()}}}, Spec: spec}
		if rname == "controller" {
			j.Status.Active = 1
		}
		if _, err := cs.BatchV1().Jobs(j.Namespace).Create(context.Background(), j, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func fakeDynamic() dynamic.Interface {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{JobSetResource: "JobSetList"})
}

// TestJobSetCreateListCancelDelete: with the JobSet CRD served, the
// JobSet is created with the dynamic client; list, cancel (the worker
// Job scaled to no pods, as the JobSet controller would resume a
// suspended one) and delete (the JobSet and its Jobs) work on the Jobs it
// owns.
func TestJobSetCreateListCancelDelete(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	if ok, err := JobSetInstalled(cs); ok || err != nil {
		t.Fatalf("JobSetInstalled on a cluster without it: %v %v", ok, err)
	}
	cs.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{{GroupVersion: JobSetGroupVersion,
		APIResources: []metav1.APIResource{{Name: "jobsets", Kind: KindJobSet, Namespaced: true}}}}
	if ok, err := JobSetInstalled(cs); !ok || err != nil {
		t.Fatalf("JobSetInstalled with the CRD served: %v %v", ok, err)
	}
	dyn := fakeDynamic()
	objs := jobSetObjects(t)
	if err := Create(ctx, cs, nil, objs); err == nil {
		t.Error("creating a JobSet without a dynamic client: no error")
	}
	cs = fake.NewClientset()
	if err := Create(ctx, cs, dyn, objs); err != nil {
		t.Fatal(err)
	}
	js, err := dyn.Resource(JobSetResource).Namespace("perf").Get(ctx, "bench1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if jobs, _ := cs.BatchV1().Jobs("perf").List(ctx, metav1.ListOptions{}); len(jobs.Items) != 0 {
		t.Fatalf("%d Jobs created besides the JobSet", len(jobs.Items))
	}
	jobSetChildren(t, cs, js)
	st, err := List(ctx, cs, "perf")
	if err != nil || len(st) != 1 || st[0].Name != "bench1" || st[0].Phase != "Running" {
		t.Fatalf("list: %+v %v", st, err)
	}
	if err := Cancel(ctx, cs, "perf", "bench1"); err != nil {
		t.Fatal(err)
	}
	w, _ := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-workers-0", metav1.GetOptions{})
	if w.Spec.Parallelism == nil || *w.Spec.Parallelism != 0 || w.Spec.Suspend != nil && *w.Spec.Suspend {
		t.Errorf("cancel: parallelism %v suspend %v; want 0 pods, not suspended", w.Spec.Parallelism, w.Spec.Suspend)
	}
	if st, _ := List(ctx, cs, "perf"); st[0].Phase != "Cancelled" {
		t.Errorf("after cancel: %+v", st)
	}
	n, err := Delete(ctx, cs, dyn, "perf", "bench1")
	if err != nil || n != 6 { // the JobSet, its 2 Jobs (no garbage collector here), Service, ConfigMap, ServiceAccount
		t.Errorf("delete: %d objects, %v", n, err)
	}
	if l, _ := dyn.Resource(JobSetResource).Namespace("perf").List(ctx, metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("the JobSet is still there")
	}
}
