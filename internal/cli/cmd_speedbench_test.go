package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeRun writes a run directory as AIPerf lays it out: the summary with
// its input_config, and the server metrics export.
func writeRun(t *testing.T, root, name, model, dataset, key, serverMetrics string) {
	t.Helper()
	d := filepath.Join(root, name)
	os.MkdirAll(d, 0o755)
	prof := `{"output_token_throughput":{"unit":"tokens/sec","avg":123.456},"input_config":{"models":{"items":[{"name":"` + model + `"}]},"datasets":[{"` + key + `":"` + dataset + `"}]}}`
	os.WriteFile(filepath.Join(d, "profile_export_aiperf.json"), []byte(prof), 0o644)
	if serverMetrics != "" {
		os.WriteFile(filepath.Join(d, "server_metrics_export.json"), []byte(serverMetrics), 0o644)
	}
}

func TestSpeedBenchReport(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gauge := func(name string, v string) string {
		return `{"metrics":{"` + name + `":{"type":"gauge","series":[{"stats":{"avg":` + v + `}}]}}}`
	}
	writeRun(t, root, "a", "llama", "speed_bench_coding", "format", gauge("sglang:spec_accept_length", "2.5"))
	writeRun(t, root, "b", "llama", "speed_bench_math", "format",
		`{"metrics":{"vllm:spec_decode_num_accepted_tokens":{"series":[{"stats":{"total":300}}]},"vllm:spec_decode_num_drafts":{"series":[{"stats":{"total":100}}]}}}`)
	writeRun(t, root, "c", "qwen", "speed_bench_coding", "format", gauge("vllm:spec_decode_mean_accepted_length", "3.25"))
	writeRun(t, root, "d", "qwen", "sharegpt", "dataset", "")
	out := filepath.Join(t.TempDir(), "r.csv")
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"speed-bench-report", root, "-o", out}, Env{Stdout: &stdout, Stderr: &stderr})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	b, _ := os.ReadFile(out)
	want := "Model,coding,math,Overall\nllama,2.50,4.00,3.25\nqwen,3.25,,3.25\n"
	if string(b) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b, want)
	}
	if !strings.Contains(stdout.String(), "Acceptance Length Report") || !strings.Contains(stderr.String(), "cannot determine category") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	stdout.Reset()
	code = Main(context.Background(), []string{"speed-bench-report", "--paths", root, "--metric", "throughput", "--format", "table"}, Env{Stdout: &stdout, Stderr: &stderr})
	if code != 0 || !strings.Contains(stdout.String(), "123.46") {
		t.Errorf("throughput table: exit %d\n%s", code, stdout.String())
	}
	if code := Main(context.Background(), []string{"speed-bench-report", t.TempDir()}, Env{Stdout: &stdout, Stderr: &stderr}); code != 1 {
		t.Errorf("empty directory: exit %d; want 1", code)
	}
}
