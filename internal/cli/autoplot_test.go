package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const plotEnvelopeYAML = `schemaVersion: "2.0"
benchmark:
  model: mock-model
  endpoint: {url: "URL", streaming: true}
  tokenizer: {name: builtin}
  dataset: {prompts: {isl: 32, osl: 8}}
  profiling: {concurrency: 2, requests: 12}
  artifacts: {dir: "DIR"}
plot:
  visualization:
    single_run_defaults: [PLOT]
    single_run_plots:
      ttft_only: {type: scatter, x: request_number, y: time_to_first_token, title: "TTFT only"}
      slices_only: {type: timeslice, x: Timeslice, y: Time to First Token, stat: avg, source: timeslices}
`

// TestAutoPlotFromConfigFilePlotSection: a config file's plot: section
// turns --auto-plot on, draws exactly its presets, and is left beside the
// artifacts as .aiperf-plot-config.yaml so a later `aiperf plot` of the
// directory draws the same; a plot that cannot be drawn warns, and fails
// the command with --plot-required.
func TestAutoPlotFromConfigFilePlotSection(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	srv := startInProcessMock(t, 2*time.Millisecond, time.Millisecond)
	write := func(plot, dir string) string {
		y := strings.NewReplacer("URL", srv.URL(), "DIR", dir, "PLOT", plot).Replace(plotEnvelopeYAML)
		return writeYAML(t, y)
	}
	home := t.TempDir()
	run := func(args ...string) (string, int) {
		cmd := aiperfCmd(t, append([]string{"profile", "--ui", "none"}, args...)...)
		cmd.Env = append(cmd.Env, "HOME="+home)
		out, err := cmd.CombinedOutput()
		return string(out), processExit(err)
	}

	dir := filepath.Join(t.TempDir(), "run")
	if out, code := run("-f", write("ttft_only", dir)); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.png"))
	if len(pngs) != 1 || filepath.Base(pngs[0]) != "ttft_only.png" {
		t.Errorf("plots %v; want exactly the plot: section's ttft_only.png", pngs)
	}
	receipt, err := os.ReadFile(filepath.Join(dir, ".aiperf-plot-config.yaml"))
	if err != nil || !strings.Contains(string(receipt), "ttft_only") {
		t.Errorf("no plot configuration receipt: %v\n%s", err, receipt)
	}

	// Nothing to draw (no --slice-duration): a warning, exit 0 ...
	dir2 := filepath.Join(t.TempDir(), "run")
	out, code := run("-f", write("slices_only", dir2))
	if code != 0 || !strings.Contains(out, "auto-plot failed") {
		t.Errorf("a failed auto-plot: exit %d; want 0 and a warning:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir2, "profile_export_aiperf.json")); err != nil {
		t.Errorf("the run's artifacts are missing after a failed plot: %v", err)
	}
	// ... and the command's failure with --plot-required.
	if out, code := run("-f", write("slices_only", filepath.Join(t.TempDir(), "run")), "--plot-required"); code != 1 || !strings.Contains(out, "--plot-required") {
		t.Errorf("--plot-required: exit %d; want 1:\n%s", code, out)
	}
}

// TestPlotSectionCheckedBeforeTheRun: a bad plot: section is a usage error
// (exit 2) naming the preset, and nothing runs.
func TestPlotSectionCheckedBeforeTheRun(t *testing.T) {
	t.Parallel()
	y := strings.NewReplacer("URL", "localhost:1", "DIR", t.TempDir(), "PLOT", "ttft_only", "type: scatter", "type: violin").Replace(plotEnvelopeYAML)
	r := runMain(t, context.Background(), nil, "profile", "-f", writeYAML(t, y))
	if r.code != 2 || r.cfg != nil || !strings.Contains(r.stderr, "single_run_plots.ttft_only: type \"violin\"") {
		t.Errorf("exit %d, ran %v:\n%s", r.code, r.cfg != nil, r.stderr)
	}
}

// processExit is a finished command's exit status (0 without an error).
func processExit(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestPlotDashboardServesTheReport: `aiperf plot --dashboard` serves the
// report over HTTP until interrupted.
func TestPlotDashboardServesTheReport(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	cmd := aiperfCmd(t, "plot", filepath.Join("..", "report", "testdata", "go", "run"), "--output", t.TempDir(), "--dashboard", "--port", "0", "--format", "html")
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(os.Interrupt)
	sc := bufio.NewScanner(stdout)
	url := ""
	for url == "" && sc.Scan() {
		if after, ok := strings.CutPrefix(sc.Text(), "Serving the report at "); ok {
			url = strings.Fields(after)[0]
		}
	}
	if url == "" {
		t.Fatal("no serving line")
	}
	go io.Copy(io.Discard, stdout)
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("AIPerf report")) {
		t.Errorf("GET %s: %d, %d bytes", url, resp.StatusCode, len(body))
	}
}
