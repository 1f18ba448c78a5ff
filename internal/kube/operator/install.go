package operator

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// Defaults of InstallOptions.
const (
	DefaultOperatorNamespace = "aiperf-system"
	DefaultOperatorName      = "aiperf-operator"
	// ProbePort serves /healthz and /readyz; MetricsPort Prometheus metrics.
	ProbePort   = 8081
	MetricsPort = 8080
)

// InstallOptions describe the operator's installation.
type InstallOptions struct {
	// Namespace holds the operator's Deployment; Name names its objects.
	Namespace, Name string
	// Image is the aiperf image (the operator is `aiperf kube operator`;
	// it is also the default image of the benchmarks' pods).
	Image string
	// WatchNamespace restricts the operator to one namespace ("" = all;
	// the RBAC is a ClusterRole either way).
	WatchNamespace string
	// WithoutCRDs leaves the CRDs out (installed separately).
	WithoutCRDs bool
}

func (o *InstallOptions) defaults() {
	if o.Namespace == "" {
		o.Namespace = DefaultOperatorNamespace
	}
	if o.Name == "" {
		o.Name = DefaultOperatorName
	}
	if o.Image == "" {
		o.Image = kube.DefaultImage
	}
}

// Validate reports every problem with o at once.
func (o *InstallOptions) Validate() error {
	o.defaults()
	var errs []error
	for _, m := range validation.IsDNS1123Label(o.Namespace) {
		errs = append(errs, fmt.Errorf("--namespace %q: %s", o.Namespace, m))
	}
	for _, m := range validation.IsDNS1123Label(o.Name) {
		errs = append(errs, fmt.Errorf("--name %q: %s", o.Name, m))
	}
	if o.WatchNamespace != "" {
		for _, m := range validation.IsDNS1123Label(o.WatchNamespace) {
			errs = append(errs, fmt.Errorf("--watch-namespace %q: %s", o.WatchNamespace, m))
		}
	}
	return errors.Join(errs...)
}

// OperatorArgs is the operator container's command line.
func (o *InstallOptions) OperatorArgs() []string {
	args := []string{"kube", "operator", "--image", o.Image, "--leader-elect",
		"--metrics-bind-address", fmt.Sprintf(":%d", MetricsPort), "--health-probe-bind-address", fmt.Sprintf(":%d", ProbePort)}
	if o.WatchNamespace != "" {
		args = append(args, "--watch-namespace", o.WatchNamespace)
	}
	return args
}

// Rules are what the operator may do: its own resources, and what
// direct mode creates (the objects of each benchmark), plus reading pods
// and their proxy (the controller pod's results API), writing events and
// holding its leader-election Lease.
func Rules() []rbacv1.PolicyRule {
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{v1alpha1.Group}, Resources: []string{v1alpha1.PluralAIPerfJob, v1alpha1.PluralAIPerfSweep}, Verbs: all},
		{APIGroups: []string{v1alpha1.Group}, Resources: []string{v1alpha1.PluralAIPerfJob + "/status", v1alpha1.PluralAIPerfSweep + "/status",
			v1alpha1.PluralAIPerfJob + "/finalizers", v1alpha1.PluralAIPerfSweep + "/finalizers"}, Verbs: []string{"get", "update", "patch"}},
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"services", "configmaps", "serviceaccounts"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods/proxy"}, Verbs: []string{"get", "create"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: all},
	}
}

// InstallObjects returns the operator's installation in the order to
// apply it: the CRDs, the Namespace, ServiceAccount, ClusterRole and its
// binding, the Deployment (one replica of `aiperf kube operator`) and a
// Service for its metrics.
func InstallObjects(o InstallOptions) ([]client.Object, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	labels := map[string]string{kube.LabelName: "aiperf", "app.kubernetes.io/component": "operator", "app.kubernetes.io/instance": o.Name}
	meta := metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels}
	var objs []client.Object
	if !o.WithoutCRDs {
		for _, c := range v1alpha1.CRDs() {
			objs = append(objs, c)
		}
	}
	replicas := int32(1)
	objs = append(objs,
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: map[string]string{kube.LabelName: "aiperf"}}},
		&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta},
		&rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: labels}, Rules: Rules()},
		&rbacv1.ClusterRoleBinding{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, Labels: labels},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: o.Name},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: o.Name, Namespace: o.Namespace}}},
		&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				// One operator at a time: the old one goes before the new starts.
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						ServiceAccountName: o.Name,
						SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)),
							SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
						Containers: []corev1.Container{{
							Name: "operator", Image: o.Image, Command: []string{"/aiperf"}, Args: o.OperatorArgs(),
							Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: MetricsPort}, {Name: "probes", ContainerPort: ProbePort}},
							// A loaded node answers slowly: a probe that times out
							// after the kubelet's 1 s default restarted a healthy
							// operator mid-run. Restart only after two minutes
							// without an answer.
							LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/healthz", Port: intstr.FromString("probes")}},
								TimeoutSeconds: 10, PeriodSeconds: 20, FailureThreshold: 6},
							ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/readyz", Port: intstr.FromString("probes")}},
								TimeoutSeconds: 10, PeriodSeconds: 10, FailureThreshold: 3},
							Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
								corev1.ResourceCPU: mustQuantity("100m"), corev1.ResourceMemory: mustQuantity("128Mi")}},
							SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr(false), ReadOnlyRootFilesystem: ptr(true),
								Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
						}},
					},
				},
			}},
		&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: meta,
			Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromString("metrics")}}}},
	)
	return objs, nil
}

// YAML renders objs as one multi-document YAML stream.
func YAML(objs []client.Object) ([]byte, error) {
	rs := make([]runtime.Object, len(objs))
	for i, o := range objs {
		rs[i] = o
	}
	return kube.YAML(rs)
}

// Apply creates each object, or updates it to match when it exists (the
// Namespace is only created); it returns what it did, one line each.
func Apply(ctx context.Context, c client.Client, objs []client.Object) ([]string, error) {
	var done []string
	for _, obj := range objs {
		kind := obj.GetObjectKind().GroupVersionKind().Kind
		what := kind + " " + obj.GetName()
		if obj.GetNamespace() != "" {
			what = kind + " " + obj.GetNamespace() + "/" + obj.GetName()
		}
		existing := obj.DeepCopyObject().(client.Object)
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), existing)
		switch {
		case apierrors.IsNotFound(err):
			if err := c.Create(ctx, obj); err != nil {
				return done, fmt.Errorf("creating %s: %w", what, err)
			}
			done = append(done, what+" created")
		case err != nil:
			return done, fmt.Errorf("reading %s: %w", what, err)
		case kind == "Namespace":
			done = append(done, what+" unchanged")
		default:
			obj.SetResourceVersion(existing.GetResourceVersion())
			if err := c.Update(ctx, obj); err != nil {
				return done, fmt.Errorf("updating %s: %w", what, err)
			}
			done = append(done, what+" configured")
		}
	}
	return done, nil
}

// Established reports whether both CRDs are served (Established=True).
func Established(ctx context.Context, c client.Client) (bool, error) {
	for _, want := range v1alpha1.CRDs() {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(want), crd); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		ok := false
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				ok = true
			}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
