package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareCommand(t *testing.T) {
	t.Parallel()
	seed := filepath.Join("..", "compare", "testdata", "seed")
	r := runMain(t, context.Background(), nil, "compare", seed, "--format", "markdown", "--baseline", "gpt-oss-120b")
	if r.code != 0 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"| moonshotai-kimi-k2.6 | ~5115 | 1270 | 6385 |",
		"| qwen3.6-27b-nvfp4 | 226 | 15.7 |",
		"Change against gpt-oss-120b",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, r.stdout)
		}
	}
	// AIPerf 0.13's own artifacts, with a peer view from its records, to a file.
	png := filepath.Join(t.TempDir(), "cmp.png")
	if r := runMain(t, context.Background(), nil, "compare", seed, "--chart", png); r.code != 0 || !strings.Contains(r.stdout, "Chart written to") {
		t.Errorf("--chart: exit %d\n%s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(png); err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Errorf("chart file: %v, %d bytes", err, len(b))
	}
	out := filepath.Join(t.TempDir(), "cmp.json")
	aiperfRun := filepath.Join("..", "results", "testdata", "aiperf013_run")
	r = runMain(t, context.Background(), nil, "compare", aiperfRun, seed, "--format", "json", "--metric-view", "vllm", "-o", out)
	if r.code != 0 {
		t.Fatalf("compare json: exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"capacity_ranking"`, `"tool": "vLLM bench serve"`, `"label": "mock-model"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("compare JSON lacks %s:\n%s", want, b)
		}
	}
	if !strings.Contains(r.stderr, "no per-request records") {
		t.Errorf("stderr should list the seed entries without records: %q", r.stderr)
	}
	for _, bad := range [][]string{
		{"compare", seed, "--format", "html"},
		{"compare", seed, "--baseline", "9"},
		{"compare", seed, "--metric-view", "genai-perf"},
	} {
		if r := runMain(t, context.Background(), nil, bad...); r.code != 2 {
			t.Errorf("%q: exit %d; want 2 (%s)", bad, r.code, r.stderr)
		}
	}
	if r := runMain(t, context.Background(), nil, "compare", t.TempDir()); r.code != 1 || !strings.Contains(r.stderr, "no benchmark results") {
		t.Errorf("compare of an empty dir: exit %d, %q", r.code, r.stderr)
	}
}
