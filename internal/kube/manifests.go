// Package kube turns one benchmark into Kubernetes objects: a
// controller Job that runs `aiperf profile --workers N --worker-listen`,
// a headless Service the workers reach it by, and an Indexed Job of N
// load-worker pods running `aiperf cluster-worker`. The controller keeps
// the schedule and writes the artifacts; the workers only send (see
// internal/cluster). The objects are client-go's own types, so what is
// generated is exactly what the API server would be given.
package kube

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Defaults of Options.
const (
	DefaultNamespace = "aiperf"
	DefaultImage     = "ghcr.io/aiperf-go/aiperf:latest"
	DefaultPort      = 7070
	// ResultsDir is where the controller pod writes the artifacts.
	ResultsDir = "/results"
	// WorkerCommand is the load worker's subcommand (benchmark.WorkerCommand).
	WorkerCommand = "cluster-worker"
)

// Labels on every object.
const (
	LabelName = "app.kubernetes.io/name"
	LabelJob  = "aiperf.nvidia.com/job"
	LabelRole = "aiperf.nvidia.com/role"
)

// Options describe one benchmark on a cluster.
type Options struct {
	// Name names the objects (a DNS label); Namespace holds them.
	Name, Namespace string
	// Image is the aiperf image; both pods run its static binary.
	Image string
	// Workers is the number of load-worker pods.
	Workers int
	// Port is the controller's protocol port.
	Port int
	// ProfileArgs are `aiperf profile`'s arguments (without --workers,
	// --worker-listen and the artifact directory, which the controller
	// pod's command sets).
	ProfileArgs []string
	// CreateNamespace adds the Namespace object.
	CreateNamespace bool
	// WorkerCPU and WorkerMemory are each worker's resource requests
	// ("" for none).
	WorkerCPU, WorkerMemory string
	// APIPort is the controller's HTTP API port (the results, progress
	// and shutdown endpoints `kube results`, `attach` and `shutdown` use).
	APIPort int
	// ResultsLinger is how long the controller keeps serving the results
	// after the run (until `kube shutdown`); 0 = DefaultResultsLinger, a
	// negative value = exit at once (the results are then lost with the
	// pod's emptyDir).
	ResultsLinger time.Duration
	// Experiment: the profile arguments run a sweep or repeated runs (the
	// controller runs one run after another, each with its workers), so
	// the workers rejoin each next run (cluster-worker --next-run-timeout).
	Experiment bool
	// ConfigFile, when set, is an AIPerf config file (an AIPerfJob's
	// spec less its deployment keys): it goes into the ConfigMap, is
	// mounted in the controller pod and run with --config ConfigPath;
	// ProfileArgs may then be empty.
	ConfigFile []byte
	// ImagePullPolicy of both containers ("" for the cluster's default).
	ImagePullPolicy corev1.PullPolicy
	// ActiveDeadlineSeconds bounds both Jobs; TTLSecondsAfterFinished
	// removes them that long after they finish (nil: neither).
	ActiveDeadlineSeconds   *int64
	TTLSecondsAfterFinished *int32
	// PodTemplate is added to both pods (an AIPerfJob's spec.podTemplate).
	PodTemplate *PodTemplate
	// APIKeySecret and HeaderSecrets name the Secret keys the controller
	// pod reads the API key and -H values from (secret.go);
	// CredentialsSecret, when set (TakeCredentials), is created with the
	// benchmark's objects.
	APIKeySecret      *SecretRef
	HeaderSecrets     []HeaderSecret
	CredentialsSecret *corev1.Secret
}

// ConfigPath is where the controller pod reads Options.ConfigFile.
const ConfigPath = "/etc/aiperf/benchmark.yaml"

// workerArgs is the worker container's command line; an experiment's
// workers stay for its next runs.
func (o *Options) workerArgs() []string {
	args := []string{WorkerCommand, "--controller", o.ControllerAddress(), "--name", "$(POD_NAME)"}
	if o.Experiment {
		args = append(args, "--next-run-timeout", ExperimentNextRunTimeout.String())
	}
	return args
}

// ExperimentNextRunTimeout is how long an experiment's worker waits for
// the controller's next run (its cooldown and set-up) before it ends.
const ExperimentNextRunTimeout = 10 * time.Minute

// DefaultResultsLinger is Options.ResultsLinger's default.
const DefaultResultsLinger = time.Hour

func (o *Options) defaults() {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.Port == 0 {
		o.Port = DefaultPort
	}
	if o.APIPort == 0 {
		o.APIPort = DefaultAPIPort
	}
	if o.ResultsLinger == 0 {
		o.ResultsLinger = DefaultResultsLinger
	}
}

func (o *Options) lingerSeconds() int64 {
	if o.ResultsLinger < 0 {
		return 0
	}
	return int64(o.ResultsLinger.Round(time.Second) / time.Second)
}

// Validate reports every problem with o at once.
func (o *Options) Validate() error {
	o.defaults()
	var errs []error
	for _, m := range validation.IsDNS1035Label(o.Name) {
		errs = append(errs, fmt.Errorf("--name %q: %s", o.Name, m))
	}
	for _, m := range validation.IsDNS1123Label(o.Namespace) {
		errs = append(errs, fmt.Errorf("--namespace %q: %s", o.Namespace, m))
	}
	if o.Workers < 1 {
		errs = append(errs, fmt.Errorf("--workers: must be at least 1, got %d", o.Workers))
	}
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port: must be 1..65535, got %d", o.Port))
	}
	if o.APIPort < 1 || o.APIPort > 65535 || o.APIPort == o.Port {
		errs = append(errs, fmt.Errorf("--api-port: must be 1..65535 and not --port, got %d", o.APIPort))
	}
	for _, q := range []struct{ flag, v string }{{"--worker-cpu", o.WorkerCPU}, {"--worker-memory", o.WorkerMemory}} {
		if q.v != "" {
			if _, err := resource.ParseQuantity(q.v); err != nil {
				errs = append(errs, fmt.Errorf("%s %q: %w", q.flag, q.v, err))
			}
		}
	}
	if f := plaintextCredential(o.ProfileArgs); f != "" {
		errs = append(errs, fmt.Errorf("profile argument %s: the key would be stored in plaintext in the pods' arguments; "+
			"keep it in a Secret: --api-key-secret NAME[/KEY] (an AIPerfJob's spec.apiKeySecret)", f))
	}
	refs := derefs(o.APIKeySecret)
	for _, h := range o.HeaderSecrets {
		refs = append(refs, h.SecretRef)
		if h.Header == "" || strings.ContainsAny(h.Header, ": \t") {
			errs = append(errs, fmt.Errorf("header secret %s: header name %q", h.SecretRef, h.Header))
		}
	}
	for _, r := range refs {
		if err := r.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, a := range o.ProfileArgs {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "--") && slices.Contains(controllerFlags, name) {
			errs = append(errs, fmt.Errorf("profile argument %s: set by the controller pod itself; leave it out", a))
		}
	}
	if len(o.ProfileArgs) == 0 && len(o.ConfigFile) == 0 {
		errs = append(errs, errors.New("no profile arguments: give them after --, e.g. -- -m MODEL -u URL --concurrency 64"))
	}
	return errors.Join(errs...)
}

// controllerFlags are the profile flags the controller pod's command sets.
var controllerFlags = []string{"workers", "worker-listen", "output-artifact-dir", "artifact-dir", "api-port", "api-host"}

// ControllerAddress is where the workers reach the controller: the
// headless Service's DNS name in the namespace, and the port.
func (o *Options) ControllerAddress() string {
	return fmt.Sprintf("%s.%s.svc:%d", o.controllerName(), o.Namespace, o.Port)
}

func (o *Options) controllerName() string { return o.Name + "-controller" }
func (o *Options) workersName() string    { return o.Name + "-workers" }

// ControllerJobName and WorkersJobName name the benchmark's two Jobs.
func (o *Options) ControllerJobName() string { return o.controllerName() }
func (o *Options) WorkersJobName() string    { return o.workersName() }

func (o *Options) labels(role string) map[string]string {
	return map[string]string{LabelName: "aiperf", LabelJob: o.Name, LabelRole: role}
}

func (o *Options) meta(name, role string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: o.labels(role)}
}

// ControllerArgs is the controller container's command line.
func (o *Options) ControllerArgs() []string {
	args := []string{"profile"}
	if len(o.ConfigFile) > 0 {
		args = append(args, "--config", ConfigPath)
	}
	args = append(args, o.ProfileArgs...)
	args = append(args, o.credentialArgs()...)
	return append(args, "--workers", strconv.Itoa(o.Workers), "--worker-listen", ":"+strconv.Itoa(o.Port),
		"--output-artifact-dir", ResultsDir, "--ui-type", "none", "--api-port", strconv.Itoa(o.APIPort), "--api-host", "0.0.0.0")
}

// Objects returns the benchmark's objects in the order to create them.
func Objects(o Options) ([]runtime.Object, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var objs []runtime.Object
	if o.CreateNamespace {
		objs = append(objs, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: map[string]string{LabelName: "aiperf"}},
		})
	}
	noToken := false
	objs = append(objs, &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: o.meta(o.Name, "benchmark"),
		// The pods talk to the model server and to each other, never to
		// the API server.
		AutomountServiceAccountToken: &noToken,
	})
	objs = append(objs, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: o.meta(o.Name, "benchmark"),
		Data: map[string]string{
			// The controller's command line, one argument a line, for
			// `kube show` and for the record.
			"profile.args": strings.Join(o.ControllerArgs(), "\n") + "\n",
			"workers":      strconv.Itoa(o.Workers),
			"controller":   o.ControllerAddress(),
		},
	})
	if len(o.ConfigFile) > 0 {
		cm := objs[len(objs)-1].(*corev1.ConfigMap)
		cm.Data[path.Base(ConfigPath)] = string(o.ConfigFile)
	}
	if o.CredentialsSecret != nil {
		objs = append(objs, o.CredentialsSecret)
	}
	objs = append(objs, &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: o.meta(o.controllerName(), "controller"),
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  o.labels("controller"),
			// Workers may resolve the name before the controller is ready.
			PublishNotReadyAddresses: true,
			Ports: []corev1.ServicePort{{
				Name: "cluster", Port: int32(o.Port), TargetPort: intstr.FromInt32(int32(o.Port)), Protocol: corev1.ProtocolTCP,
			}},
		},
	})
	ctl, workers := o.controllerJob(), o.workersJob()
	if o.PodTemplate != nil {
		o.PodTemplate.apply(&ctl.Spec.Template)
		o.PodTemplate.apply(&workers.Spec.Template)
	}
	objs = append(objs, ctl, workers)
	return objs, nil
}

// jobSpec adds the deadline and TTL options to a Job's spec.
func (o *Options) jobSpec(s batchv1.JobSpec) batchv1.JobSpec {
	s.ActiveDeadlineSeconds = o.ActiveDeadlineSeconds
	s.TTLSecondsAfterFinished = o.TTLSecondsAfterFinished
	return s
}

func (o *Options) pod(role string, c corev1.Container) corev1.PodTemplateSpec {
	c.ImagePullPolicy = o.ImagePullPolicy
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: o.labels(role)},
		Spec: corev1.PodSpec{
			ServiceAccountName: o.Name,
			RestartPolicy:      corev1.RestartPolicyNever,
			Containers:         []corev1.Container{c},
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
		},
	}
}

func containerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

func (o *Options) controllerJob() *batchv1.Job {
	pod := o.pod("controller", corev1.Container{
		Name: "controller", Image: o.Image, Command: []string{"/aiperf"}, Args: o.ControllerArgs(),
		Ports: []corev1.ContainerPort{
			{Name: "cluster", ContainerPort: int32(o.Port), Protocol: corev1.ProtocolTCP},
			{Name: APIPortName, ContainerPort: int32(o.APIPort), Protocol: corev1.ProtocolTCP},
		},
		// After the run the API keeps serving the results (kube results)
		// until kube shutdown or this many seconds.
		Env: append([]corev1.EnvVar{{Name: "AIPERF_API_SERVER_LINGER_SECONDS", Value: strconv.FormatInt(o.lingerSeconds(), 10)}},
			o.credentialEnv()...),
		VolumeMounts:    []corev1.VolumeMount{{Name: "results", MountPath: ResultsDir}},
		SecurityContext: containerSecurity(),
	})
	pod.Spec.Volumes = []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	if len(o.ConfigFile) > 0 {
		c := &pod.Spec.Containers[0]
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: path.Dir(ConfigPath), ReadOnly: true})
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.Name},
				Items: []corev1.KeyToPath{{Key: path.Base(ConfigPath), Path: path.Base(ConfigPath)}}}}})
	}
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: o.meta(o.controllerName(), "controller"),
		Spec:       o.jobSpec(batchv1.JobSpec{BackoffLimit: ptr(int32(0)), Template: pod}),
	}
}

func (o *Options) workersJob() *batchv1.Job {
	c := corev1.Container{
		Name: "worker", Image: o.Image, Command: []string{"/aiperf"},
		Args: o.workerArgs(),
		Env: []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"},
		}}},
		SecurityContext: containerSecurity(),
	}
	if o.WorkerCPU != "" || o.WorkerMemory != "" {
		c.Resources.Requests = corev1.ResourceList{}
		if o.WorkerCPU != "" {
			c.Resources.Requests[corev1.ResourceCPU] = resource.MustParse(o.WorkerCPU)
		}
		if o.WorkerMemory != "" {
			c.Resources.Requests[corev1.ResourceMemory] = resource.MustParse(o.WorkerMemory)
		}
	}
	n := int32(o.Workers)
	indexed := batchv1.IndexedCompletion
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: o.meta(o.workersName(), "worker"),
		Spec: o.jobSpec(batchv1.JobSpec{
			Completions: &n, Parallelism: &n, CompletionMode: &indexed,
			// A lost worker costs its requests in flight (recorded as
			// WorkerLostError); it is not restarted into a running phase,
			// and it does not fail the Job, which would stop the other
			// workers' pods too (a Job-wide backoffLimit of 0 did).
			BackoffLimitPerIndex: ptr(int32(0)), MaxFailedIndexes: &n,
			Template: o.pod("worker", c),
		}),
	}
}

// YAML renders objs as one multi-document YAML stream.
func YAML(objs []runtime.Object) ([]byte, error) {
	var b strings.Builder
	for i, obj := range objs {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(y)
	}
	return []byte(b.String()), nil
}

func ptr[T any](v T) *T { return &v }

// derefs is p's value as a list (none when nil).
func derefs[T any](p *T) []T {
	if p == nil {
		return nil
	}
	return []T{*p}
}
