package kube

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Credentials never sit in plaintext in a resource: the API key and the
// request headers reach the controller pod as environment variables read
// from a Secret (secretKeyRef), and its arguments name them as $(VAR),
// which the kubelet expands when it starts the container. The Job, its
// pods, the ConfigMap and an AIPerfJob hold only the Secret's name.
const (
	// APIKeyEnv carries the API key into the controller container.
	APIKeyEnv = "AIPERF_API_KEY"
	// headerEnv + index carries one -H value.
	headerEnv = "AIPERF_HEADER_"
	// DefaultSecretKey is the key of --api-key-secret NAME without /KEY.
	DefaultSecretKey = "api-key"
)

// SecretRef is one key of a Secret in the benchmark's namespace.
type SecretRef struct{ Name, Key string }

func (r SecretRef) String() string { return r.Name + "/" + r.Key }

// ParseSecretRef reads NAME[/KEY] (KEY defaults to DefaultSecretKey).
func ParseSecretRef(s string) (SecretRef, error) {
	name, key, ok := strings.Cut(s, "/")
	if !ok {
		key = DefaultSecretKey
	}
	r := SecretRef{Name: name, Key: key}
	return r, r.validate()
}

func (r SecretRef) validate() error {
	var problems []string
	problems = append(problems, validation.IsDNS1123Subdomain(r.Name)...)
	problems = append(problems, validation.IsConfigMapKey(r.Key)...)
	if len(problems) > 0 {
		return fmt.Errorf("secret %q: %s", r.String(), strings.Join(problems, "; "))
	}
	return nil
}

// HeaderSecret is a request header whose value is one key of a Secret.
type HeaderSecret struct {
	Header string
	SecretRef
}

// CredentialsSecretName names the Secret TakeCredentials makes.
func (o *Options) CredentialsSecretName() string { return o.Name + "-credentials" }

// TakeCredentials moves the credentials out of o.ProfileArgs (the
// --api-key value and the value of every -H/--header Name:Value, which
// may carry tokens) into a Secret named CredentialsSecretName, and points
// o.APIKeySecret and o.HeaderSecrets at its keys (the header names stay
// in the arguments). It returns the Secret (nil when the
// arguments held none), which Objects then creates with the benchmark.
// An --api-key beside an --api-key-secret is an error.
func (o *Options) TakeCredentials() (*corev1.Secret, error) {
	o.defaults()
	data := map[string][]byte{}
	var args []string
	var apiKey *string
	var headers []string
	a := o.ProfileArgs
	for i := 0; i < len(a); i++ {
		flag, value, inline := strings.Cut(a[i], "=")
		var into *[]string
		switch {
		case flag == "--api-key":
		case flag == "--header" || flag == "-H":
			into = &headers
		case strings.HasPrefix(a[i], "-H") && !strings.HasPrefix(a[i], "--"):
			flag, value, inline, into = "-H", a[i][2:], true, &headers
		default:
			args = append(args, a[i])
			continue
		}
		if !inline {
			if i+1 >= len(a) {
				return nil, fmt.Errorf("profile argument %s: no value", flag)
			}
			i++
			value = a[i]
		}
		if into == nil {
			apiKey = &value
		} else {
			*into = append(*into, value)
		}
	}
	if apiKey == nil && len(headers) == 0 {
		return nil, nil
	}
	name := o.CredentialsSecretName()
	if apiKey != nil {
		if o.APIKeySecret != nil {
			return nil, fmt.Errorf("--api-key and --api-key-secret %s: give the key one way", o.APIKeySecret)
		}
		data[DefaultSecretKey] = []byte(*apiKey)
		o.APIKeySecret = &SecretRef{Name: name, Key: DefaultSecretKey}
	}
	for _, h := range headers {
		header, value, ok := strings.Cut(h, ":")
		header = strings.TrimSpace(header)
		if !ok || header == "" || strings.HasPrefix(header, "{") {
			return nil, fmt.Errorf("-H %s: give each header as Name:Value (its value goes into the Secret %s)", redactHeader(h), name)
		}
		key := "header-" + strconv.Itoa(len(o.HeaderSecrets))
		data[key] = []byte(strings.TrimSpace(value))
		o.HeaderSecrets = append(o.HeaderSecrets, HeaderSecret{Header: header, SecretRef: SecretRef{Name: name, Key: key}})
	}
	o.ProfileArgs = args
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: o.meta(name, "benchmark"),
		Type:       corev1.SecretTypeOpaque,
		Data:       data,
	}
	o.CredentialsSecret = s
	return s, nil
}

// credentialEnv and credentialArgs are the controller container's
// environment from the Secrets and the arguments that name it.
func (o *Options) credentialEnv() []corev1.EnvVar {
	var env []corev1.EnvVar
	ref := func(name string, r SecretRef) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: r.Name}, Key: r.Key}}}
	}
	if o.APIKeySecret != nil {
		env = append(env, ref(APIKeyEnv, *o.APIKeySecret))
	}
	for i, h := range o.HeaderSecrets {
		env = append(env, ref(headerEnv+strconv.Itoa(i), h.SecretRef))
	}
	return env
}

func (o *Options) credentialArgs() []string {
	var args []string
	if o.APIKeySecret != nil {
		args = append(args, "--api-key", "$("+APIKeyEnv+")")
	}
	for i, h := range o.HeaderSecrets {
		args = append(args, "--header", h.Header+": $("+headerEnv+strconv.Itoa(i)+")")
	}
	return args
}

// plaintextCredential names a profile argument that would put a
// credential in plaintext into the pods' arguments ("" when none).
func plaintextCredential(args []string) string {
	for _, a := range args {
		if flag, _, _ := strings.Cut(a, "="); flag == "--api-key" {
			return flag
		}
	}
	return ""
}

// redactHeader is a -H value fit for an error message: its name only.
func redactHeader(h string) string {
	if name, _, ok := strings.Cut(h, ":"); ok && !strings.HasPrefix(strings.TrimSpace(name), "{") {
		return strings.TrimSpace(name) + ": ..."
	}
	return "(a JSON object)"
}
