package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/aiperf-go/aiperf/internal/kube"
	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
	"github.com/aiperf-go/aiperf/internal/kube/operator"
)

// TestKubeInstallDryRunPrintsTheOperator: `kube install --dry-run` prints
// the CRDs, RBAC and the operator's Deployment; every document decodes
// into its API type, and the Deployment runs this build's `kube operator`.
func TestKubeInstallDryRunPrintsTheOperator(t *testing.T) {
	r := runMain(t, context.Background(), nil, "kube", "install", "--dry-run", "--image", "reg/aiperf:v1", "--watch-namespace", "perf")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s, err := operator.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var dep *appsv1.Deployment
	for _, doc := range bytes.Split([]byte(r.stdout), []byte("\n---\n")) {
		obj, gvk, err := serializer.NewCodecFactory(s).UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("a manifest does not decode: %v\n%s", err, doc)
		}
		kinds = append(kinds, gvk.Kind)
		if d, ok := obj.(*appsv1.Deployment); ok {
			dep = d
		}
	}
	want := []string{"CustomResourceDefinition", "CustomResourceDefinition", "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if c.Image != "reg/aiperf:v1" || !slices.Equal(c.Args[:2], []string{"kube", "operator"}) || !slices.Contains(c.Args, "perf") {
		t.Fatalf("operator container %v %v", c.Image, c.Args)
	}
	// The operator's command line is one this build accepts.
	if r := runMain(t, context.Background(), nil, append(c.Args, "--help")...); r.code != 0 {
		t.Fatalf("the operator's args do not parse: %s", r.stderr)
	}
}

// TestKubeProfileOperatorWritesAnAIPerfJob: `kube profile --operator
// --dry-run` prints the AIPerfJob it would submit, from profile arguments
// or from a config file / `kube init` manifest, checked by this build's
// profile parser first.
func TestKubeProfileOperatorWritesAnAIPerfJob(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "bench.yaml")
	if r := runMain(t, context.Background(), nil, "kube", "init", "--model", "llama", "--url", "http://vllm.perf.svc:8000", "-o", manifest); r.code != 0 {
		t.Fatalf("kube init: %s", r.stderr)
	}
	decode := func(y string) *v1alpha1.AIPerfJob {
		t.Helper()
		s, _ := operator.Scheme()
		obj, _, err := serializer.NewCodecFactory(s).UniversalDeserializer().Decode([]byte(y), nil, nil)
		if err != nil {
			t.Fatalf("%v\n%s", err, y)
		}
		return obj.(*v1alpha1.AIPerfJob)
	}

	r := runMain(t, context.Background(), nil, "kube", "profile", "--operator", "--dry-run", "--name", "chat1", "-n", "perf", "--workers", "3",
		"--image", "reg/aiperf:v1", "--", "-m", "llama", "-u", "http://vllm:8000", "--concurrency", "30")
	if r.code != 0 {
		t.Fatalf("args: exit %d\n%s", r.code, r.stderr)
	}
	j := decode(r.stdout)
	if j.Name != "chat1" || j.Namespace != "perf" || j.Spec.Workers() != 3 || j.Spec.Image != "reg/aiperf:v1" ||
		string(j.Spec.Benchmark.Raw) != "{}" || !slices.Equal(j.Spec.ProfileArgs, []string{"-m", "llama", "-u", "http://vllm:8000", "--concurrency", "30"}) {
		t.Fatalf("from args: %+v", j.Spec)
	}

	r = runMain(t, context.Background(), nil, "kube", "profile", "--operator", "--dry-run", "--config", manifest, "-n", "perf", "--workers", "2")
	if r.code != 0 {
		t.Fatalf("config: exit %d\n%s", r.code, r.stderr)
	}
	j = decode(r.stdout)
	cfg, err := j.Spec.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if j.Name != "my-benchmark" || j.Spec.Workers() != 2 || len(j.Spec.ProfileArgs) != 0 || !strings.Contains(string(cfg), "url: http://vllm.perf.svc:8000") {
		t.Fatalf("from the kube init manifest: name %s spec %+v\n%s", j.Name, j.Spec, cfg)
	}
	// What the operator would run parses, as the operator checks it.
	o := kube.Options{Name: j.Name, Namespace: j.Namespace, Workers: j.Spec.Workers(), ConfigFile: cfg}
	if err := validateControllerCommand(context.Background(), o); err != nil {
		t.Fatal(err)
	}

	body, _ := os.ReadFile(manifest)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, bytes.Replace(body, []byte("concurrency: 8"), []byte("concurrency: -8"), 1), 0o600)
	r = runMain(t, context.Background(), nil, "kube", "profile", "--operator", "--dry-run", "--config", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "--concurrency") {
		t.Fatalf("bad config: exit %d\n%s", r.code, r.stderr)
	}
	o.ConfigFile = bytes.Replace(cfg, []byte("concurrency: 8"), []byte("concurrency: -8"), 1)
	if err := validateControllerCommand(context.Background(), o); err == nil || !strings.Contains(err.Error(), "concurrency") {
		t.Fatalf("the operator's check let a bad config through: %v", err)
	}
}
