package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSynthesizeAndValidateCommands(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	r := runMain(t, context.Background(), nil, "synthesize", "agentic-code", "--num-sessions", "3", "--seed", "4", "--output", out, "--max-osl", "500")
	if r.code != 0 {
		t.Fatalf("synthesize: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "default_3s_seed4_*"))
	if len(runs) != 1 {
		t.Fatalf("run directories %v", runs)
	}
	for _, f := range []string{"dataset.jsonl", "manifest.json", "quality.json", "cache_structure.json", "comparison.txt", "report.html", "cache_explorer.html", "simulation.html"} {
		if _, err := os.Stat(filepath.Join(runs[0], f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.HasPrefix(r.stdout, "Generating 3 sessions (seed=4)...\n") || !strings.Contains(r.stdout, "Validation:      Mooncake trace (") || !strings.Contains(r.stdout, "Target vs Synthesized Dataset") {
		t.Errorf("output:\n%s", r.stdout)
	}
	// The manifest reproduces the run.
	again := t.TempDir()
	if r := runMain(t, context.Background(), nil, "synthesize", "agentic-code", "--num-sessions", "3", "--seed", "4", "--output", again, "--config", filepath.Join(runs[0], "manifest.json")); r.code != 0 {
		t.Fatalf("synthesize --config manifest.json: exit %d\n%s", r.code, r.stderr)
	}
	runs2, _ := filepath.Glob(filepath.Join(again, "manifest_3s_seed4_*", "dataset.jsonl"))
	a, _ := os.ReadFile(filepath.Join(runs[0], "dataset.jsonl"))
	if len(runs2) != 1 {
		t.Fatalf("second run: %v", runs2)
	}
	if b, _ := os.ReadFile(runs2[0]); string(a) != string(b) {
		t.Errorf("the manifest did not reproduce the dataset")
	}

	r = runMain(t, context.Background(), nil, "validate", "mooncake-trace", "--input", filepath.Join(runs[0], "dataset.jsonl"))
	if r.code != 0 || !strings.Contains(r.stdout, "Validation passed: ") {
		t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"input_length\": 5}\n\n{\"input_length\": 5, \"output_length\": -1}\n{\"text_input\": \"hi\", \"hash_ids\": [1]}\n"), 0o644)
	r = runMain(t, context.Background(), nil, "validate", "mooncake-trace", "--input", bad)
	if r.code != 1 || !strings.Contains(r.stderr, bad+":3: output_length:") || !strings.Contains(r.stderr, bad+":4: hash_ids:") {
		t.Errorf("validate bad: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"validate", "mooncake-trace"}, 2, "--input is required"},
		{[]string{"validate", "mooncake-trace", "--input", out}, 1, "is not a file"},
		{[]string{"synthesize", "agentic-code", "--config", "nope", "--output", out}, 2, `config "nope" not found`},
		{[]string{"synthesize", "agentic-code", "--num-sessions", "0", "--output", out}, 2, "--num-sessions must be at least 1"},
		{[]string{"synthesize", "other"}, 2, ""},
	} {
		r := runMain(t, context.Background(), nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stdout, "Generating") {
			t.Errorf("%q: exit %d; want %d with %q\n%s", c.args, r.code, c.code, c.want, r.stderr)
		}
	}
}
