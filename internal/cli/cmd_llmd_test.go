package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLLMDReportCommand(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "results", "testdata", "aiperf013_run")
	root := t.TempDir()
	for _, run := range []string{"a", "b"} {
		dir := filepath.Join(root, "sweep", run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"profile_export_aiperf.json", "profile_export.jsonl"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := runMain(t, context.Background(), nil, "llmd-report", root)
	if r.code != 0 || strings.Count(r.stdout, "llm-d benchmark report: ") != 2 {
		t.Fatalf("llmd-report: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(root, "sweep", "b", "benchmark_report.yaml"))
	if err != nil || !strings.Contains(string(b), "version: \"0.2\"") || !strings.Contains(string(b), "tool: aiperf") {
		t.Errorf("report: %v\n%s", err, b)
	}
	r = runMain(t, context.Background(), nil, "llmd-report", filepath.Join(root, "sweep", "a"), "-o", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "time_to_first_token:") {
		t.Errorf("-o -: exit %d\n%s", r.code, r.stdout)
	}
	if r := runMain(t, context.Background(), nil, "llmd-report", root, "-o", "x.yaml"); r.code != 2 {
		t.Errorf("-o with two runs: exit %d; want 2", r.code)
	}
	if r := runMain(t, context.Background(), nil, "llmd-report", t.TempDir()); r.code != 1 {
		t.Errorf("no run: exit %d; want 1", r.code)
	}
}
