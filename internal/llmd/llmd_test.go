package llmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestFromAIPerfRun converts a summary AIPerf 0.13 wrote (10 requests at
// concurrency 2) and checks the mapping.
func TestFromAIPerfRun(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "results", "testdata", "aiperf013_run")
	r, err := FromRunDir(dir, Options{ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	st := r.Scenario.Load.Standardized
	if r.Version != "0.2" || r.Run.UID == "" || r.Run.Description != "mock-model [aiperf013_run]" ||
		st.Tool != "aiperf" || st.ToolVersion != "0.13.0" || st.Source != "random" || *st.Concurrency != 2 ||
		st.InputSeqLen.Distribution != "gaussian" || st.InputSeqLen.Value != 128 || *st.InputSeqLen.StdDev != 32 {
		t.Errorf("run/load = %+v / %+v", r.Run, st)
	}
	agg := r.Results.RequestPerformance.Aggregate
	if agg.Requests.Total != 10 || *agg.Requests.Failures != 0 || agg.Requests.InputLength.Units != "count" {
		t.Errorf("requests = %+v", agg.Requests)
	}
	ttft := agg.Latency.TimeToFirstToken
	if ttft == nil || ttft.Units != "s" || ttft.Mean <= 0 || ttft.Mean > 1 || ttft.P99 == nil {
		t.Errorf("ttft = %+v; want seconds", ttft)
	}
	if agg.Latency.NormalizedTimePerOutputToken == nil || agg.Latency.NormalizedTimePerOutputToken.Units != "s/token" {
		t.Errorf("ntpot from the records = %+v", agg.Latency.NormalizedTimePerOutputToken)
	}
	tp := agg.Throughput
	if tp.OutputTokenRate == nil || tp.RequestRate.Units != "queries/s" || tp.InputTokenRate == nil {
		t.Errorf("throughput = %+v", tp)
	}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := yaml.Unmarshal(b, &back); err != nil || back["version"] != "0.2" {
		t.Fatalf("YAML does not read back: %v\n%s", err, b)
	}
	validate(t, b)
}

// validate checks the YAML against llm-d-benchmark's own pydantic model
// when LLMD_BENCHMARK_DIR names a checkout of github.com/llm-d/llm-d-benchmark
// and LLMD_PYTHON a Python with pydantic 2 and PyYAML (AIPerf's venv has
// both). It is skipped otherwise: the default test run needs neither.
func validate(t *testing.T, report []byte) {
	t.Helper()
	repo, py := os.Getenv("LLMD_BENCHMARK_DIR"), os.Getenv("LLMD_PYTHON")
	if repo == "" || py == "" {
		t.Log("LLMD_BENCHMARK_DIR / LLMD_PYTHON not set: not validated against llm-d's schema")
		return
	}
	f := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(f, report, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `import sys, yaml
sys.path.insert(0, sys.argv[1])
from llmdbenchmark.analysis.benchmark_report.schema_v0_2 import BenchmarkReportV02
from llmdbenchmark.analysis.benchmark_report.schema_v0_2_1 import BenchmarkReportV021
d = yaml.safe_load(open(sys.argv[2]))
BenchmarkReportV02.model_validate(d)
d["version"] = "0.2.1"
BenchmarkReportV021.model_validate(d)
print("valid")`
	out, err := exec.Command(py, "-c", script, repo, f).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "valid") {
		t.Errorf("llm-d's schema rejects the report: %v\n%s\n%s", err, out, report)
	}
}
