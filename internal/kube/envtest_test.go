package kube

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/aiperf-go/aiperf/internal/kube/kubetest"
)

// startControlPlane starts envtest's API server (kubetest) and returns
// a clientset of the admin.
func startControlPlane(t *testing.T) kubernetes.Interface {
	t.Helper()
	cs, _ := startControlPlaneConfig(t)
	return cs
}

// startControlPlaneConfig is startControlPlane, with the admin's config.
func startControlPlaneConfig(t *testing.T) (kubernetes.Interface, *rest.Config) {
	t.Helper()
	cfg := kubetest.StartControlPlane(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs, cfg
}

// TestDirectModeAgainstARealAPIServer: the objects `kube profile
// --no-operator` creates pass the real API server's validation and
// defaulting; list, cancel and delete work on them.
func TestDirectModeAgainstARealAPIServer(t *testing.T) {
	cs := startControlPlane(t)
	ctx := context.Background()
	o := testOptions()
	objs, err := Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := Create(ctx, cs, nil, objs); err != nil {
		t.Fatalf("the API server refused the generated objects: %v", err)
	}
	w, err := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-workers", metav1.GetOptions{})
	if err != nil || *w.Spec.Completions != 3 || w.Spec.Template.Spec.Containers[0].Args[2] != "bench1-controller.perf.svc:7070" {
		t.Fatalf("workers job: %v %+v", err, w)
	}
	svc, err := cs.CoreV1().Services("perf").Get(ctx, "bench1-controller", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP != "None" {
		t.Fatalf("service: %v %+v", err, svc)
	}
	st, err := List(ctx, cs, "perf")
	if err != nil || len(st) != 1 || st[0].Name != "bench1" {
		t.Fatalf("list: %+v %v", st, err)
	}
	if err := Cancel(ctx, cs, "perf", "bench1"); err != nil {
		t.Fatal(err)
	}
	if w, _ := cs.BatchV1().Jobs("perf").Get(ctx, "bench1-workers", metav1.GetOptions{}); w.Spec.Suspend == nil || !*w.Spec.Suspend {
		t.Errorf("cancel did not suspend the workers: %+v", w.Spec.Suspend)
	}
	n, err := Delete(ctx, cs, nil, "perf", "bench1")
	if err != nil || n != 5 {
		t.Fatalf("delete: %d, %v; want 5 objects", n, err)
	}
	jobs, _ := cs.BatchV1().Jobs("perf").List(ctx, selector("bench1"))
	cms, _ := cs.CoreV1().ConfigMaps("perf").List(ctx, selector("bench1"))
	if len(jobs.Items)+len(cms.Items) != 0 {
		t.Errorf("after delete: %d jobs, %d config maps left", len(jobs.Items), len(cms.Items))
	}
}

// minimalJobSetCRD is enough of JobSet's CRD for the API server to serve
// jobset.x-k8s.io/v1alpha2 jobsets (the schema keeps every field; the
// real CRD and its controller are not available here).
func minimalJobSetCRD() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "jobsets." + JobSetGroup},
		"spec": map[string]any{
			"group": JobSetGroup, "scope": "Namespaced",
			"names": map[string]any{"plural": "jobsets", "singular": "jobset", "kind": KindJobSet, "listKind": "JobSetList"},
			"versions": []any{map[string]any{"name": JobSetVersion, "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
}

// TestJobSetModeAgainstARealAPIServer: with a JobSet CRD installed, the
// API server serves it (preflight, with real access reviews, and kube
// profile discover it), accepts
// the benchmark's JobSet (its Job specs inside pass as unknown fields,
// so the specs are also created as Jobs, as the JobSet controller would,
// to have the API server validate them) and delete removes it.
func TestJobSetModeAgainstARealAPIServer(t *testing.T) {
	cs, cfg := startControlPlaneConfig(t)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crds).Create(ctx, minimalJobSetCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		ok, err := JobSetInstalled(cs)
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the JobSet CRD is not served after a minute: %v", err)
		}
		time.Sleep(200 * time.Millisecond) // the API server establishes the CRD asynchronously
	}
	got := map[string]Check{}
	for _, c := range Preflight(ctx, cs, PreflightOptions{Namespace: "default", Workers: 2}) {
		got[c.Name] = c
	}
	// The admin may do everything (real SelfSubjectAccessReviews); no
	// kubelet registers a node here.
	for name, want := range map[string]string{"API server": CheckPass, "namespace": CheckPass, "JobSet CRD": CheckPass, "RBAC": CheckPass, "quota": CheckPass, "nodes": CheckFail} {
		if got[name].Status != want {
			t.Errorf("preflight %s: %+v; want %s", name, got[name], want)
		}
	}
	objs := jobSetObjects(t)
	if err := Create(ctx, cs, dyn, objs); err != nil {
		t.Fatalf("the API server refused the JobSet: %v", err)
	}
	js, err := dyn.Resource(JobSetResource).Namespace("perf").Get(ctx, "bench1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	jobSetChildren(t, cs, js)
	if err := Cancel(ctx, cs, "perf", "bench1"); err != nil {
		t.Fatal(err)
	}
	n, err := Delete(ctx, cs, dyn, "perf", "bench1")
	if err != nil || n != 6 {
		t.Fatalf("delete: %d, %v; want 6 objects", n, err)
	}
	if l, _ := dyn.Resource(JobSetResource).Namespace("perf").List(ctx, metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("after delete: %d JobSets left", len(l.Items))
	}
}
