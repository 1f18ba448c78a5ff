package v1alpha1

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// aiperfJob is an AIPerfJob as AIPerf 0.13's `kube init` writes one
// (envelope shape: spec.benchmark plus sibling envelope keys), with
// deployment keys in both spellings.
const aiperfJob = `apiVersion: aiperf.nvidia.com/v1alpha1
kind: AIPerfJob
metadata:
  name: my-benchmark
  namespace: perf
spec:
  random_seed: 18446744073709551557
  variables:
    isl: 512
  benchmark:
    models: [llama]
    endpoint:
      urls: [http://vllm.perf.svc:8000]
      streaming: true
    phases:
      profiling:
        type: concurrency
        concurrency: 64
        requests: 1000
  multi_run:
    num_runs: 1
  image: registry/aiperf:v1
  ttl_seconds_after_finished: 600
  totalWorkers: 4
  cancel: false
  podTemplate:
    nodeSelector:
      pool: load
`

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeJob(t *testing.T, y string) *AIPerfJob {
	t.Helper()
	obj, gvk, err := serializer.NewCodecFactory(scheme(t)).UniversalDeserializer().Decode([]byte(y), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gvk.Kind != KindAIPerfJob || gvk.GroupVersion() != GroupVersion {
		t.Fatalf("decoded %v", gvk)
	}
	return obj.(*AIPerfJob)
}

func TestAnAIPerfJobDecodesWithEveryKeyKept(t *testing.T) {
	j := decodeJob(t, aiperfJob)
	if j.Name != "my-benchmark" || j.Namespace != "perf" || j.Spec.Image != "registry/aiperf:v1" || j.Spec.Workers() != 4 ||
		j.Spec.TTLSecondsAfterFinished == nil || *j.Spec.TTLSecondsAfterFinished != 600 || j.Spec.Cancel {
		t.Fatalf("typed fields: %+v", j.Spec)
	}
	if got, want := j.Spec.ExtraKeys(), []string{"multi_run", "podTemplate", "random_seed", "variables"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("extra keys %v, want %v", got, want)
	}
	// Writing it back gives the same resource (snake_case typed keys come
	// back camelCase; cancel: false is the default, left out).
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	json.Unmarshal(b, &got)
	wantJSON, _ := yaml.YAMLToJSON([]byte(strings.NewReplacer("ttl_seconds_after_finished", "ttlSecondsAfterFinished", "  cancel: false\n", "").Replace(aiperfJob)))
	json.Unmarshal(wantJSON, &want)
	delete(got["metadata"].(map[string]any), "creationTimestamp")
	delete(got, "status")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %v\nwant %v", got, want)
	}
}

func TestConfigFileIsTheEnvelopeWithoutDeploymentKeys(t *testing.T) {
	j := decodeJob(t, aiperfJob)
	b, err := j.Spec.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"image", "ttl_seconds_after_finished", "ttlSecondsAfterFinished", "totalWorkers", "cancel", "podTemplate"} {
		if _, ok := m[k]; ok {
			t.Errorf("config file keeps deployment key %s:\n%s", k, b)
		}
	}
	for _, k := range []string{"benchmark", "variables", "multi_run", "random_seed"} {
		if _, ok := m[k]; !ok {
			t.Errorf("config file lost %s:\n%s", k, b)
		}
	}
	if m["schemaVersion"] != "2.0" {
		t.Errorf("schemaVersion %v", m["schemaVersion"])
	}
	// The 64-bit seed keeps every digit (no trip through float64).
	if !strings.Contains(string(b), "random_seed: 18446744073709551557") {
		t.Errorf("seed changed:\n%s", b)
	}
	j.Spec.Benchmark = runtime.RawExtension{}
	if _, err := j.Spec.ConfigFile(); err == nil || !strings.Contains(err.Error(), "spec.benchmark") {
		t.Errorf("missing benchmark: %v", err)
	}
	// Profile arguments alone: no config file.
	j.Spec.Benchmark.Raw, j.Spec.ProfileArgs = []byte("{}"), []string{"-m", "llama"}
	if b, err := j.Spec.ConfigFile(); b != nil || err != nil {
		t.Errorf("args only: %q %v", b, err)
	}
}

func TestBadTypedValuesNameTheKey(t *testing.T) {
	var s WorkloadSpec
	err := json.Unmarshal([]byte(`{"benchmark":{},"cancel":"yes","totalWorkers":"four"}`), &s)
	if err == nil || !strings.Contains(err.Error(), "spec.cancel") || !strings.Contains(err.Error(), "spec.totalWorkers") {
		t.Fatalf("got %v", err)
	}
}

func TestDeepCopyIsDeep(t *testing.T) {
	j := decodeJob(t, aiperfJob)
	now := metav1.Now()
	j.Status = AIPerfJobStatus{Lifecycle: Lifecycle{Phase: PhaseRunning, StartTime: &now,
		Conditions: []metav1.Condition{{Type: ConditionWorkersReady, Status: metav1.ConditionFalse, Reason: "Starting"}}},
		Workers: &WorkerCounts{Ready: 1, Total: 4}}
	j.Spec.ChildMetadata = &ChildMetadata{Labels: map[string]string{"a": "b"}}
	c := j.DeepCopy()
	if !reflect.DeepEqual(c, j) {
		t.Fatal("copy differs")
	}
	c.Spec.Benchmark.Raw[0] = 'X'
	c.Spec.Extra["variables"].Raw[0] = 'X'
	*c.Spec.TotalWorkers = 9
	c.Spec.ChildMetadata.Labels["a"] = "c"
	c.Status.Conditions[0].Reason = "Changed"
	c.Status.Workers.Ready = 4
	c.Status.StartTime.Time = c.Status.StartTime.Add(1)
	if j.Spec.Benchmark.Raw[0] == 'X' || j.Spec.Extra["variables"].Raw[0] == 'X' || *j.Spec.TotalWorkers != 4 ||
		j.Spec.ChildMetadata.Labels["a"] != "b" || j.Status.Conditions[0].Reason != "Starting" || j.Status.Workers.Ready != 1 ||
		!j.Status.StartTime.Equal(&now) {
		t.Fatal("the copy shares memory with the original")
	}
	l := &AIPerfSweepList{Items: []AIPerfSweep{{Spec: j.Spec, Status: AIPerfSweepStatus{Children: []SweepChild{{Name: "x"}}}}}}
	lc := l.DeepCopyObject().(*AIPerfSweepList)
	lc.Items[0].Status.Children[0].Name = "y"
	if l.Items[0].Status.Children[0].Name != "x" {
		t.Fatal("sweep list copy shares children")
	}
}

// TestCRDSchemasAreStructural checks each CRD as the API server does
// before serving it: the schema is structural (every node typed, unknown
// fields only where declared) and the names follow the group.
func TestCRDSchemasAreStructural(t *testing.T) {
	for _, c := range CRDs() {
		if c.Name != c.Spec.Names.Plural+"."+c.Spec.Group {
			t.Errorf("%s: name is not plural.group", c.Name)
		}
		v := c.Spec.Versions[0]
		var internal apiextensions.JSONSchemaProps
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
			t.Fatal(err)
		}
		s, err := structuralschema.NewStructural(&internal)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if errs := structuralschema.ValidateStructural(field.NewPath("openAPIV3Schema"), s); len(errs) > 0 {
			t.Errorf("%s is not structural: %v", c.Name, errs.ToAggregate())
		}
		if v.Subresources == nil || v.Subresources.Status == nil {
			t.Errorf("%s: no status subresource", c.Name)
		}
	}
}
