package operator

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/internal/kube/api/v1alpha1"
)

// chartDir is the operator's Helm chart.
var chartDir = filepath.Join("..", "..", "..", "deploy", "helm", "aiperf-operator")

var update = flag.Bool("update", false, "rewrite deploy/aiperf-operator.yaml and the Helm chart's CRDs")

// TestDeployManifestIsCurrent: deploy/aiperf-operator.yaml, the plain-YAML
// install (kubectl apply -f), is what `aiperf kube install --dry-run`
// prints with the defaults (go test -run TestDeployManifestIsCurrent
// ./internal/kube/operator/ -update rewrites it).
func TestDeployManifestIsCurrent(t *testing.T) {
	objs, err := InstallObjects(InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := YAML(objs)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("# The AIPerfJob/AIPerfSweep CRDs and the operator: kubectl apply -f deploy/aiperf-operator.yaml\n"+
		"# Generated: aiperf kube install --dry-run (go test -run TestDeployManifestIsCurrent ./internal/kube/operator/ -update)\n"), y...)
	golden(t, filepath.Join("..", "..", "..", "deploy", "aiperf-operator.yaml"), want, "is not what kube install --dry-run prints")
}

// golden compares the file at path with want (-update writes it).
func golden(t *testing.T, path string, want []byte, differs string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s %s; rerun with -update", path, differs)
	}
}

// TestHelmChartCRDsAreCurrent: the chart's crds/ (which helm installs
// before the templates, and never upgrades) are the CRDs kube install
// applies (-update rewrites them).
func TestHelmChartCRDsAreCurrent(t *testing.T) {
	objs, err := InstallObjects(InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	y, err := YAML(objs[:len(v1alpha1.CRDs())])
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("# Generated: the CRDs of aiperf kube install --dry-run (go test -run TestHelmChartCRDsAreCurrent ./internal/kube/operator/ -update)\n"), y...)
	golden(t, filepath.Join(chartDir, "crds", "aiperf-crds.yaml"), want, "are not kube install's CRDs")
}
