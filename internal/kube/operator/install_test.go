package operator

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite deploy/aiperf-operator.yaml")

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
	path := filepath.Join("..", "..", "..", "deploy", "aiperf-operator.yaml")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what kube install --dry-run prints; rerun with -update", path)
	}
}
