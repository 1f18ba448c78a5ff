package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// preflightCluster is a fake cluster whose access reviews deny what deny
// names ("verb resource[/sub]"), with a quota and one node.
func preflightCluster(t *testing.T, deny map[string]bool, jobSet bool, objs ...runtime.Object) *fake.Clientset {
	t.Helper()
	cs := fake.NewClientset(objs...)
	fd := cs.Discovery().(*fakediscovery.FakeDiscovery)
	fd.FakedServerVersion = &version.Info{GitVersion: "v1.31.2"}
	if jobSet {
		fd.Resources = []*metav1.APIResourceList{{GroupVersion: JobSetGroupVersion, APIResources: []metav1.APIResource{{Name: "jobsets", Kind: "JobSet", Namespaced: true}}}}
	}
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		ra := r.Spec.ResourceAttributes
		key := ra.Verb + " " + ra.Resource
		if ra.Subresource != "" {
			key += "/" + ra.Subresource
		}
		r.Status.Allowed = !deny[key]
		if deny[key] {
			r.Status.Reason = "no RBAC policy matched"
		}
		return true, r, nil
	})
	return cs
}

func TestPreflightReportsEveryCheck(t *testing.T) {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	defer endpoint.Close()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: corev1.NodeStatus{
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi")}}}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "perf"}, Status: corev1.ResourceQuotaStatus{
		Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10"), corev1.ResourceRequestsCPU: resource.MustParse("10")},
		Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2"), corev1.ResourceRequestsCPU: resource.MustParse("4")}}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "perf"}}
	reg := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "regcred", Namespace: "perf"}, Type: corev1.SecretTypeDockerConfigJson}
	opaque := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hf-token", Namespace: "perf"}, Type: corev1.SecretTypeOpaque}
	ctx := context.Background()

	// A cluster where everything fits.
	cs := preflightCluster(t, nil, true, node, quota, ns, reg, opaque)
	checks := Preflight(ctx, cs, PreflightOptions{Namespace: "perf", Workers: 3, WorkerCPU: "2", WorkerMemory: "4Gi",
		ImagePullSecrets: []string{"regcred"}, Secrets: []string{"hf-token"}, EndpointURL: endpoint.URL})
	got := map[string]Check{}
	for _, c := range checks {
		got[c.Name] = c
		if c.Status == CheckFail {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	for name, want := range map[string]string{
		"API server": "v1.31.2", "namespace": "perf exists", "JobSet CRD": "direct mode creates a JobSet",
		"RBAC": "all 18 permissions", "image pull secret regcred": "exists", "secret hf-token": "exists",
		"quota q": "room for 4 pods", "nodes": "1 ready nodes, 8 CPU", "endpoint": "answers (HTTP 404)",
	} {
		if !strings.Contains(got[name].Detail, want) {
			t.Errorf("%s: %+v; want a detail with %q", name, got[name], want)
		}
	}

	// One where it does not: no namespace, denied permissions, a missing
	// and a wrong-type pull secret, a full quota, a node too small, no
	// endpoint.
	cs = preflightCluster(t, map[string]bool{"create namespaces": true, "get pods/proxy": true}, false, node, quota, opaque)
	checks = Preflight(ctx, cs, PreflightOptions{Namespace: "perf", Workers: 9, WorkerCPU: "1",
		ImagePullSecrets: []string{"missing", "hf-token"}, EndpointURL: "http://127.0.0.1:1"})
	got = map[string]Check{}
	for _, c := range checks {
		got[c.Name] = c
	}
	for name, want := range map[string]string{
		"namespace":                  CheckWarn,
		"JobSet CRD":                 CheckPass,
		"RBAC create namespaces":     CheckFail,
		"RBAC get pods/proxy":        CheckFail,
		"image pull secret missing":  CheckFail,
		"image pull secret hf-token": CheckFail,
		"quota q":                    CheckFail,
		"nodes":                      CheckFail,
		"endpoint":                   CheckWarn,
	} {
		if got[name].Status != want {
			t.Errorf("%s: %+v; want %s", name, got[name], want)
		}
	}
	if _, ok := got["RBAC"]; ok {
		t.Error("an all-granted RBAC line despite denied permissions")
	}
	if d := got["quota q"].Detail; !strings.Contains(d, "pods: need 10, 8 left of 10") || !strings.Contains(d, "requests.cpu: need 9, 6 left of 10") {
		t.Errorf("quota detail %q", d)
	}
	// A node selector no node matches leaves no node to schedule on.
	cs = preflightCluster(t, nil, false, node, ns)
	for _, c := range Preflight(ctx, cs, PreflightOptions{Namespace: "perf", Workers: 1, NodeSelector: map[string]string{"pool": "gpu"}}) {
		if c.Name == "nodes" && (c.Status != CheckFail || !strings.Contains(c.Detail, "0 matching the node selector")) {
			t.Errorf("nodes with a selector nothing matches: %+v", c)
		}
	}
	if d := got["JobSet CRD"].Detail; !strings.Contains(d, "two Jobs") && !strings.Contains(d, "Indexed worker Job") {
		t.Errorf("JobSet detail %q", d)
	}
}
