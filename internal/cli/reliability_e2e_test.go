package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunErrorPrintedOnce: the error that ends a run is printed once
// ("Error: ..."), not also as a raw log line before it; the log file
// still has it.
func TestRunErrorPrintedOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "zeros.jsonl")
	if err := os.WriteFile(bad, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "--mock-server", "--tokenizer", "builtin",
		"--input-file", bad, "--ui", "none", "--output-artifact-dir", filepath.Join(dir, "run"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("a file of NUL bytes was accepted")
	}
	const msg = "contains a NUL byte"
	if n := strings.Count(stdout.String()+stderr.String(), msg); n != 1 {
		t.Errorf("the error appears %d times on the console; want once:\n%s%s", n, stdout.String(), stderr.String())
	}
	logText, err := os.ReadFile(filepath.Join(dir, "run", "logs", "aiperf.log"))
	if err != nil || !strings.Contains(string(logText), msg) || strings.Contains(string(logText), "file_only") {
		t.Errorf("log file (%v) lacks the error or shows the marker:\n%s", err, logText)
	}
}
