package kubecli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestKubeValidateAIPerfJob(t *testing.T) {
	r := runMain(t, context.Background(), nil, "kube", "validate", "testdata/kube/aiperfjob.yaml")
	if r.code != 0 || !strings.Contains(r.stdout, "AIPerfJob chat-latency valid") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "kube", "validate", "testdata/kube/bad-aiperfjob.yaml")
	if r.code != 2 || !strings.Contains(r.stderr, "(4 problems)") {
		t.Errorf("bad manifest: exit %d, stderr %s; want every problem reported", r.code, r.stderr)
	}
	for _, want := range []string{"apiVersion", "metadata.name", "spec.benchmark is missing", "spec.cancel"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// A problem in the benchmark body is the config file loader's, with its line.
	dir := t.TempDir()
	b, _ := os.ReadFile("testdata/kube/aiperfjob.yaml")
	bad := filepath.Join(dir, "job.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(b), "concurrency: 16", "concurrency: -16", 1)), 0o644)
	r = runMain(t, context.Background(), nil, "kube", "validate", bad)
	if r.code == 0 || !strings.Contains(r.stderr, "concurrency") {
		t.Errorf("negative concurrency: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestKubeValidateAcceptsAIPerfsOwnJobs: every benchmark template AIPerf
// 0.13 ships, wrapped into an AIPerfJob by AIPerf's own
// init_template.wrap_as_aiperf_job (what `aiperf kube init` writes),
// validates here. Needs the reference install: AIPERF_REFERENCE_PYTHON
// (default /work/aip/bin/python); skipped without it.
func TestKubeValidateAcceptsAIPerfsOwnJobs(t *testing.T) {
	py := os.Getenv("AIPERF_REFERENCE_PYTHON")
	if py == "" {
		py = "/work/aip/bin/python"
	}
	if _, err := os.Stat(py); err != nil {
		t.Skip("no AIPerf reference install (set AIPERF_REFERENCE_PYTHON)")
	}
	dir := t.TempDir()
	script := `
import glob, os, sys, aiperf.config.templates as tpl
from aiperf.kubernetes.init_template import wrap_as_aiperf_job
for f in sorted(glob.glob(os.path.join(os.path.dirname(tpl.__file__), "*.yaml"))):
    n = os.path.basename(f)[:-5].replace("_", "-")
    open(os.path.join(sys.argv[1], n + ".yaml"), "w").write(wrap_as_aiperf_job(open(f).read(), job_name=n))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Skipf("the reference install cannot wrap its templates: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) < 20 {
		t.Fatalf("%d AIPerfJob examples; AIPerf 0.13 ships 27 templates", len(files))
	}
	for _, f := range files {
		r := runMain(t, context.Background(), nil, "kube", "validate", f)
		if r.code != 0 || !strings.Contains(r.stdout, "valid") {
			t.Errorf("%s: exit %d\n%s", filepath.Base(f), r.code, r.stderr)
		}
	}
}
