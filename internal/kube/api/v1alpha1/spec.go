package v1alpha1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// specFields maps each spelling of a typed WorkloadSpec key to the field
// it fills. AIPerf accepts snake_case and camelCase alike; this type writes
// camelCase.
var specFields = map[string]func(s *WorkloadSpec) any{
	"benchmark":                  func(s *WorkloadSpec) any { return &s.Benchmark },
	"sweep":                      func(s *WorkloadSpec) any { return &s.Sweep },
	"cancel":                     func(s *WorkloadSpec) any { return &s.Cancel },
	"image":                      func(s *WorkloadSpec) any { return &s.Image },
	"imagePullPolicy":            func(s *WorkloadSpec) any { return &s.ImagePullPolicy },
	"image_pull_policy":          func(s *WorkloadSpec) any { return &s.ImagePullPolicy },
	"totalWorkers":               func(s *WorkloadSpec) any { return &s.TotalWorkers },
	"total_workers":              func(s *WorkloadSpec) any { return &s.TotalWorkers },
	"timeoutSeconds":             func(s *WorkloadSpec) any { return &s.TimeoutSeconds },
	"timeout_seconds":            func(s *WorkloadSpec) any { return &s.TimeoutSeconds },
	"ttlSecondsAfterFinished":    func(s *WorkloadSpec) any { return &s.TTLSecondsAfterFinished },
	"ttl_seconds_after_finished": func(s *WorkloadSpec) any { return &s.TTLSecondsAfterFinished },
	"childMetadata":              func(s *WorkloadSpec) any { return &s.ChildMetadata },
	"profileArgs":                func(s *WorkloadSpec) any { return &s.ProfileArgs },
	"child_metadata":             func(s *WorkloadSpec) any { return &s.ChildMetadata },
	"apiKeySecret":               func(s *WorkloadSpec) any { return &s.APIKeySecret },
	"api_key_secret":             func(s *WorkloadSpec) any { return &s.APIKeySecret },
	"headerSecrets":              func(s *WorkloadSpec) any { return &s.HeaderSecrets },
	"header_secrets":             func(s *WorkloadSpec) any { return &s.HeaderSecrets },
}

// DeploymentKeys are the spec keys that place a benchmark on the cluster
// rather than describe it (AIPerf's DeploymentConfig and workload keys, in
// both spellings, and this implementation's totalWorkers/workersMax). The
// config file a controller pod runs is the spec without them.
var DeploymentKeys = []string{
	"image", "imagePullPolicy", "image_pull_policy", "imagePullSecrets", "image_pull_secrets",
	"totalWorkers", "total_workers", "workersMax", "workers_max", "ttlSecondsAfterFinished", "ttl_seconds_after_finished", "ttl_seconds",
	"nodeSelector", "node_selector", "tolerations", "queueName", "queue_name", "priorityClass", "priority_class",
	"annotations", "labels", "env", "envVars", "env_vars", "envFromSecrets", "env_from_secrets",
	"secretMounts", "secret_mounts", "serviceAccount", "service_account", "podTemplate", "pod_template",
	"scheduling", "resources", "cancel", "timeoutSeconds", "timeout_seconds",
	"resourceMode", "resource_mode", "connectionsPerWorker", "connections_per_worker",
	"resultsTtlDays", "results_ttl_days", "keepFailedPods", "keep_failed_pods",
	"skipEndpointCheck", "skip_endpoint_check", "failurePolicy", "failure_policy",
	"childMetadata", "child_metadata", "profileArgs",
	"apiKeySecret", "api_key_secret", "headerSecrets", "header_secrets",
}

// UnmarshalJSON fills the typed fields from either spelling and keeps
// every other key in Extra.
func (s *WorkloadSpec) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*s = WorkloadSpec{}
	var errs []error
	for k, v := range raw {
		field, ok := specFields[k]
		if !ok {
			if s.Extra == nil {
				s.Extra = map[string]runtime.RawExtension{}
			}
			s.Extra[k] = runtime.RawExtension{Raw: slices.Clone(v)}
			continue
		}
		if err := json.Unmarshal(v, field(s)); err != nil {
			errs = append(errs, fmt.Errorf("spec.%s: %w", k, err))
		}
	}
	return errors.Join(errs...)
}

// MarshalJSON writes the typed fields (camelCase) and Extra as one object.
func (s WorkloadSpec) MarshalJSON() ([]byte, error) {
	type plain WorkloadSpec // the same fields without these methods
	b, err := json.Marshal(plain(s))
	if err != nil {
		return nil, err
	}
	if len(s.Extra) == 0 {
		return b, nil
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	for k, v := range s.Extra {
		if _, typed := out[k]; typed || len(v.Raw) == 0 {
			continue
		}
		out[k] = v.Raw
	}
	return json.Marshal(out)
}

// Workers is the number of load-worker pods (TotalWorkers, default 1).
func (s *WorkloadSpec) Workers() int {
	if s.TotalWorkers == nil || *s.TotalWorkers < 1 {
		return 1
	}
	return int(*s.TotalWorkers)
}

// ConfigFile is the AIPerf config file (YAML) the spec describes: the
// benchmark body and its envelope siblings, less the deployment keys, with
// schemaVersion 2.0 unless set. `aiperf profile --config` runs it. With
// ProfileArgs and an empty benchmark ({}) there is none (nil, nil): the
// arguments are the whole benchmark.
func (s *WorkloadSpec) ConfigFile() ([]byte, error) {
	body := string(bytes.TrimSpace(s.Benchmark.Raw))
	if body == "{}" && len(s.ProfileArgs) > 0 {
		return nil, nil
	}
	if body == "" || body == "null" {
		return nil, errors.New("spec.benchmark is missing (the benchmark config body)")
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	// Raw values, so numbers keep their digits (a 64-bit seed is not a float).
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range DeploymentKeys {
		delete(m, k)
	}
	if _, ok := m["schemaVersion"]; !ok {
		m["schemaVersion"] = json.RawMessage(`"2.0"`)
	}
	if b, err = json.Marshal(m); err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(b)
}

// ExtraKeys lists Extra's keys, sorted.
func (s *WorkloadSpec) ExtraKeys() []string {
	keys := make([]string, 0, len(s.Extra))
	for k := range s.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
