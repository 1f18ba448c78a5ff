package operator

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestHelmChartEqualsInstall renders deploy/helm/aiperf-operator with a
// real helm (AIPERF_TEST_HELM=$(scripts/helm.sh), built from the Go
// module proxy) and requires the very objects `aiperf kube install
// --dry-run` prints for the same settings: same kinds, names and every
// field. Without AIPERF_TEST_HELM there is no helm to run.
func TestHelmChartEqualsInstall(t *testing.T) {
	helm := os.Getenv("AIPERF_TEST_HELM")
	if helm == "" {
		t.Skip("AIPERF_TEST_HELM is not set (AIPERF_TEST_HELM=$(scripts/helm.sh))")
	}
	for _, c := range []InstallOptions{
		{Name: "aiperf-operator", Namespace: "aiperf-system", Image: "ghcr.io/aiperf-go/aiperf:latest"},
		{Name: "perf-op", Namespace: "perf", Image: "registry.example/aiperf:v1", WatchNamespace: "bench"},
	} {
		t.Run(c.Name, func(t *testing.T) {
			objs, err := InstallObjects(c)
			if err != nil {
				t.Fatal(err)
			}
			want, err := YAML(objs)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"template", c.Name, chartDir, "--namespace", c.Namespace, "--include-crds",
				"--set", "createNamespace=true", "--set-string", "image=" + c.Image}
			if c.WatchNamespace != "" {
				args = append(args, "--set-string", "watchNamespace="+c.WatchNamespace)
			}
			cmd := exec.Command(helm, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			g, w := objectSet(t, got), objectSet(t, want)
			for k, wo := range w {
				if !reflect.DeepEqual(g[k], wo) {
					gy, _ := yaml.Marshal(g[k])
					wy, _ := yaml.Marshal(wo)
					t.Errorf("%s: the chart renders\n%s\nkube install --dry-run prints\n%s", k, gy, wy)
				}
			}
			for k := range g {
				if _, ok := w[k]; !ok {
					t.Errorf("%s: in the chart, not in kube install", k)
				}
			}
		})
	}
}

// objectSet reads a multi-document YAML stream into objects keyed by
// kind/namespace/name, less what the API server fills in (the empty
// status, spec and creationTimestamp a Go object prints).
func objectSet(t *testing.T, stream []byte) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, doc := range bytes.Split(stream, []byte("\n---")) {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		if len(m) == 0 {
			continue
		}
		delete(m, "status")
		if sp, ok := m["spec"].(map[string]any); ok && len(sp) == 0 {
			delete(m, "spec") // a Namespace's zero spec
		}
		md, _ := m["metadata"].(map[string]any)
		delete(md, "creationTimestamp")
		if tpl, ok := dig(m, "spec", "template", "metadata").(map[string]any); ok {
			delete(tpl, "creationTimestamp")
		}
		// Round-trip through JSON so numbers compare alike from both sides.
		b, _ := json.Marshal(m)
		var norm map[string]any
		if err := json.Unmarshal(b, &norm); err != nil {
			t.Fatal(err)
		}
		key := strings.Join([]string{m["kind"].(string), str(md["namespace"]), str(md["name"])}, "/")
		if _, dup := out[key]; dup {
			t.Fatalf("%s twice", key)
		}
		out[key] = norm
	}
	return out
}

func dig(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
