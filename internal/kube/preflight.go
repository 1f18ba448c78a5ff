package kube

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Check outcomes.
const (
	CheckPass = "pass"
	CheckWarn = "warn"
	CheckFail = "fail"
)

// Check is one preflight check's outcome.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// PreflightOptions say what the benchmark will need.
type PreflightOptions struct {
	Namespace string
	// Workers, WorkerCPU and WorkerMemory project the resources the
	// benchmark requests (for the quota and node checks).
	Workers                 int
	WorkerCPU, WorkerMemory string
	// ImagePullSecrets and Secrets must exist in the namespace.
	ImagePullSecrets, Secrets []string
	// EndpointURL is probed with an HTTP GET from this machine ("" = no
	// probe).
	EndpointURL string
	// NodeSelector limits the node check to the nodes with these labels
	// (where the pods would be scheduled).
	NodeSelector map[string]string
	// HTTPClient probes EndpointURL (nil: a client with a 5 s timeout).
	HTTPClient *http.Client
}

// permission is one access the CLI's direct mode needs.
type permission struct {
	verb, group, resource, subresource string
	clusterScoped                      bool
}

func (p permission) String() string {
	r := p.resource
	if p.subresource != "" {
		r += "/" + p.subresource
	}
	if p.group != "" {
		r += "." + p.group
	}
	return p.verb + " " + r
}

// directModePermissions are what kube profile/list/results/cancel/
// delete/debug do in the benchmark's namespace.
func directModePermissions(jobSet bool) []permission {
	ps := []permission{
		{verb: "create", resource: "serviceaccounts"}, {verb: "create", resource: "configmaps"},
		{verb: "create", resource: "services"}, {verb: "create", group: "batch", resource: "jobs"},
		{verb: "list", group: "batch", resource: "jobs"}, {verb: "update", group: "batch", resource: "jobs"},
		{verb: "delete", group: "batch", resource: "jobs"}, {verb: "delete", resource: "services"},
		{verb: "delete", resource: "configmaps"}, {verb: "delete", resource: "serviceaccounts"},
		{verb: "list", resource: "pods"}, {verb: "get", resource: "pods", subresource: "log"},
		{verb: "get", resource: "pods", subresource: "proxy"}, {verb: "create", resource: "pods", subresource: "proxy"},
		{verb: "list", resource: "events"},
	}
	if jobSet {
		ps = append(ps, permission{verb: "create", group: JobSetGroup, resource: "jobsets"},
			permission{verb: "list", group: JobSetGroup, resource: "jobsets"}, permission{verb: "delete", group: JobSetGroup, resource: "jobsets"})
	}
	return ps
}

// Preflight checks that the cluster can run a benchmark in direct mode:
// the API server answers, the namespace exists (or may be created), this
// user may do what the commands do (SelfSubjectAccessReview), whether the
// JobSet CRD is installed, the pull secrets and secrets exist, the
// namespace's quotas and the nodes leave room for the projected requests,
// and the endpoint answers. Every check is reported; none stops the rest.
func Preflight(ctx context.Context, cs kubernetes.Interface, o PreflightOptions) []Check {
	var out []Check
	add := func(name, status, format string, args ...any) {
		out = append(out, Check{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		add("API server", CheckFail, "not reachable: %v", err)
		return out
	}
	add("API server", CheckPass, "Kubernetes %s", v.GitVersion)

	nsExists := true
	if _, err := cs.CoreV1().Namespaces().Get(ctx, o.Namespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		nsExists = false
		add("namespace", CheckWarn, "%s does not exist; kube profile creates it (--create-namespace, the default)", o.Namespace)
	} else if err != nil && !apierrors.IsForbidden(err) {
		add("namespace", CheckFail, "%s: %v", o.Namespace, err)
	} else {
		add("namespace", CheckPass, "%s exists", o.Namespace)
	}

	jobSet, err := JobSetInstalled(cs)
	switch {
	case err != nil:
		add("JobSet CRD", CheckWarn, "cannot tell (%v); direct mode creates two Jobs", err)
	case jobSet:
		add("JobSet CRD", CheckPass, "%s is installed: direct mode creates a JobSet", JobSetGroupVersion)
	default:
		add("JobSet CRD", CheckPass, "not installed: direct mode creates a controller Job and an Indexed worker Job")
	}

	perms := directModePermissions(jobSet)
	if !nsExists {
		perms = append([]permission{{verb: "create", resource: "namespaces", clusterScoped: true}}, perms...)
	}
	var denied []string
	for _, p := range perms {
		ok, reason, err := allowed(ctx, cs, o.Namespace, p)
		switch {
		case err != nil:
			denied = append(denied, p.String())
			add("RBAC "+p.String(), CheckFail, "access review failed: %v", err)
		case !ok:
			denied = append(denied, p.String())
			add("RBAC "+p.String(), CheckFail, "denied in %s%s", o.Namespace, suffix(": ", reason))
		}
	}
	if len(denied) == 0 {
		add("RBAC", CheckPass, "all %d permissions direct mode needs are granted in %s", len(perms), o.Namespace)
	}

	for _, s := range o.ImagePullSecrets {
		sec, err := cs.CoreV1().Secrets(o.Namespace).Get(ctx, s, metav1.GetOptions{})
		switch {
		case err != nil:
			add("image pull secret "+s, CheckFail, "%v", err)
		case sec.Type != corev1.SecretTypeDockerConfigJson && sec.Type != corev1.SecretTypeDockercfg:
			add("image pull secret "+s, CheckFail, "type %s; want %s", sec.Type, corev1.SecretTypeDockerConfigJson)
		default:
			add("image pull secret "+s, CheckPass, "exists (%s)", sec.Type)
		}
	}
	for _, s := range o.Secrets {
		if _, err := cs.CoreV1().Secrets(o.Namespace).Get(ctx, s, metav1.GetOptions{}); err != nil {
			add("secret "+s, CheckFail, "%v", err)
		} else {
			add("secret "+s, CheckPass, "exists")
		}
	}

	out = append(out, quotaChecks(ctx, cs, o)...)
	out = append(out, nodeCheck(ctx, cs, o))
	if o.EndpointURL != "" {
		out = append(out, endpointCheck(ctx, o))
	}
	return out
}

func suffix(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

func allowed(ctx context.Context, cs kubernetes.Interface, namespace string, p permission) (bool, string, error) {
	ra := &authorizationv1.ResourceAttributes{Verb: p.verb, Group: p.group, Resource: p.resource, Subresource: p.subresource}
	if !p.clusterScoped {
		ra.Namespace = namespace
	}
	r, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
		&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra}}, metav1.CreateOptions{})
	if err != nil {
		return false, "", err
	}
	return r.Status.Allowed, r.Status.Reason, nil
}

// projected is what the benchmark's pods request: the workers' requests
// times their number (the controller requests nothing), and the pods.
func projected(o PreflightOptions) (pods int64, cpu, mem resource.Quantity) {
	pods = int64(o.Workers) + 1
	for i := 0; i < o.Workers; i++ {
		if q, err := resource.ParseQuantity(o.WorkerCPU); err == nil && o.WorkerCPU != "" {
			cpu.Add(q)
		}
		if q, err := resource.ParseQuantity(o.WorkerMemory); err == nil && o.WorkerMemory != "" {
			mem.Add(q)
		}
	}
	return pods, cpu, mem
}

func quotaChecks(ctx context.Context, cs kubernetes.Interface, o PreflightOptions) []Check {
	qs, err := cs.CoreV1().ResourceQuotas(o.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return []Check{{Name: "quota", Status: CheckWarn, Detail: fmt.Sprintf("cannot list the resource quotas of %s: %v", o.Namespace, err)}}
	}
	if len(qs.Items) == 0 {
		return []Check{{Name: "quota", Status: CheckPass, Detail: "no resource quota in " + o.Namespace}}
	}
	pods, cpu, mem := projected(o)
	need := map[corev1.ResourceName]resource.Quantity{
		corev1.ResourcePods:        *resource.NewQuantity(pods, resource.DecimalSI),
		corev1.ResourceRequestsCPU: cpu, corev1.ResourceRequestsMemory: mem,
		corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem,
	}
	var out []Check
	for _, q := range qs.Items {
		var short []string
		for name, want := range need {
			hard, ok := q.Status.Hard[name]
			if !ok {
				hard, ok = q.Spec.Hard[name]
			}
			if !ok || want.IsZero() {
				continue
			}
			left := hard.DeepCopy()
			if used, ok := q.Status.Used[name]; ok {
				left.Sub(used)
			}
			if left.Cmp(want) < 0 {
				short = append(short, fmt.Sprintf("%s: need %s, %s left of %s", name, want.String(), left.String(), hard.String()))
			}
		}
		if len(short) > 0 {
			out = append(out, Check{Name: "quota " + q.Name, Status: CheckFail, Detail: fmt.Sprint(short)})
		} else {
			out = append(out, Check{Name: "quota " + q.Name, Status: CheckPass,
				Detail: fmt.Sprintf("room for %d pods (%d workers + the controller)", pods, o.Workers)})
		}
	}
	return out
}

// nodeCheck compares the workers' total requests with the ready nodes'
// allocatable resources (listing nodes needs cluster-wide access; without
// it the check is a warning).
func nodeCheck(ctx context.Context, cs kubernetes.Interface, o PreflightOptions) Check {
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return Check{Name: "nodes", Status: CheckWarn, Detail: fmt.Sprintf("cannot list nodes: %v", err)}
	}
	var ready, selected int
	var cpu, mem resource.Quantity
	for _, n := range nodes.Items {
		if !labelsMatch(n.Labels, o.NodeSelector) {
			continue
		}
		selected++
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue && !n.Spec.Unschedulable {
				ready++
				cpu.Add(n.Status.Allocatable[corev1.ResourceCPU])
				mem.Add(n.Status.Allocatable[corev1.ResourceMemory])
			}
		}
	}
	if ready == 0 {
		return Check{Name: "nodes", Status: CheckFail, Detail: fmt.Sprintf("no ready, schedulable node (%d nodes, %d matching the node selector)", len(nodes.Items), selected)}
	}
	_, wantCPU, wantMem := projected(o)
	if wantCPU.Cmp(cpu) > 0 || wantMem.Cmp(mem) > 0 {
		return Check{Name: "nodes", Status: CheckFail, Detail: fmt.Sprintf("%d workers request %s CPU and %s memory; the %d ready nodes have %s and %s allocatable",
			o.Workers, wantCPU.String(), wantMem.String(), ready, cpu.String(), mem.String())}
	}
	return Check{Name: "nodes", Status: CheckPass, Detail: fmt.Sprintf("%d ready nodes, %s CPU and %s memory allocatable", ready, cpu.String(), mem.String())}
}

// endpointCheck GETs the endpoint from this machine: any HTTP answer
// means it is up. A failure is only a warning, since a cluster-internal
// URL (a Service's DNS name) is not reachable from outside the cluster.
func endpointCheck(ctx context.Context, o PreflightOptions) Check {
	c := o.HTTPClient
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.EndpointURL, nil)
	if err != nil {
		return Check{Name: "endpoint", Status: CheckFail, Detail: fmt.Sprintf("%s: %v", o.EndpointURL, err)}
	}
	resp, err := c.Do(req)
	if err != nil {
		var detail string
		if errors.Is(err, context.DeadlineExceeded) {
			detail = "timed out"
		} else {
			detail = err.Error()
		}
		return Check{Name: "endpoint", Status: CheckWarn, Detail: fmt.Sprintf("%s not reachable from here (%s); a cluster-internal URL may still work from the pods", o.EndpointURL, detail)}
	}
	resp.Body.Close()
	return Check{Name: "endpoint", Status: CheckPass, Detail: fmt.Sprintf("%s answers (HTTP %d) from here", o.EndpointURL, resp.StatusCode)}
}

func labelsMatch(labels, selector map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}
