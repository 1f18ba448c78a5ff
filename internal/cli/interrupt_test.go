package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/cli/clitest"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// startInProcessMock starts a mock server inside the test process, where
// the test can watch how many requests it is serving.
func startInProcessMock(t *testing.T, ttft, itl time.Duration) *mockserver.Running {
	t.Helper()
	cfg := mockserver.DefaultConfig()
	cfg.TTFT, cfg.ITL = ttft, itl
	srv, err := mockserver.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// lockedBuffer collects a child's stderr while the test reads it.
type lockedBuffer = clitest.LockedBuffer

// waitFor polls cond until it holds, failing the test if the child exits
// or a generous hang guard passes first. It asserts nothing about timing.
func waitFor(t *testing.T, what string, exited <-chan struct{}, log *lockedBuffer, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	guard := time.After(2 * time.Minute)
	for !cond() {
		select {
		case <-tick.C:
		case <-exited:
			t.Fatalf("aiperf exited before %s:\n%s", what, log.String())
		case <-guard:
			t.Fatalf("hang guard: never saw %s:\n%s", what, log.String())
		}
	}
}

// TestTwoInterruptsStopAtOnceAndKeepArtifacts runs the real binary against
// two mock servers, one fast and one whose streams take minutes, sends a
// first and then a second signal, and checks that the run stops without
// waiting for the grace period, exits 130, and leaves every artifact
// complete and valid, the cancelled requests included.
func TestTwoInterruptsStopAtOnceAndKeepArtifacts(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			fast := startInProcessMock(t, time.Millisecond, time.Millisecond)
			slow := startInProcessMock(t, time.Millisecond, time.Minute)
			dir := t.TempDir()
			// The grace period is longer than the hang guard: only the
			// second signal can end this run in time.
			cmd := aiperfCmd(t, "profile", "-m", "mock-model", "-u", fast.URL()+","+slow.URL(),
				"--streaming", "--concurrency", "4", "--benchmark-duration", "600",
				"--benchmark-grace-period", "600", "--osl", "8", "--export-level", "raw",
				"--output-artifact-dir", dir, "--ui", "none", "-v")
			var stdout bytes.Buffer
			var stderr lockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			var waitErr error
			go func() { waitErr = cmd.Wait(); close(exited) }()
			defer func() {
				select {
				case <-exited:
				default:
					cmd.Process.Kill()
					<-exited
				}
			}()

			// Requests are sent round-robin, so once every slot holds a
			// slow stream, fast requests have completed before them.
			waitFor(t, "four slow streams in flight", exited, &stderr, func() bool { return slow.Server().Active() >= 4 })
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the first-interrupt message", exited, &stderr, func() bool {
				return strings.Contains(stderr.String(), "again") && strings.Contains(stderr.String(), "stop at once")
			})
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(2 * time.Minute): // hang guard, not a timing assertion
				t.Fatalf("the run did not stop after a second %v:\n%s", sig, stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(waitErr, &exit) || exit.ExitCode() != 130 {
				t.Errorf("exit = %v; want code 130\n%s", waitErr, stderr.String())
			}

			validateArtifacts(t, dir)
			doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
			var cancelled bool
			json.Unmarshal(doc["was_cancelled"], &cancelled)
			if !cancelled {
				t.Error("was_cancelled is not true")
			}
			lines := jsonlLines(t, filepath.Join(dir, "profile_export.jsonl"))
			var ok, aborted int
			for _, l := range lines {
				var meta struct {
					WasCancelled bool `json:"was_cancelled"`
				}
				json.Unmarshal(l["metadata"], &meta)
				var e struct{ Code int }
				json.Unmarshal(l["error"], &e)
				switch {
				case meta.WasCancelled && e.Code == 499:
					aborted++
				case l["error"] == nil:
					ok++
				}
			}
			if ok < 2 || aborted < 4 {
				t.Errorf("profile_export.jsonl: %d successful and %d cancelled records; want >= 2 and >= 4", ok, aborted)
			}
			if n := len(jsonlLines(t, filepath.Join(dir, "profile_export_raw.jsonl"))); n != len(lines) {
				t.Errorf("raw export has %d lines, records export %d", n, len(lines))
			}
			logText, err := os.ReadFile(filepath.Join(dir, "logs", "aiperf.log"))
			if err != nil || !strings.Contains(string(logText), "second interrupt") {
				t.Errorf("the log does not record the second interrupt (err %v)", err)
			}
			if !strings.Contains(stdout.String(), "Request Latency") {
				t.Errorf("no result table on stdout:\n%s", stdout.String())
			}
		})
	}
}

// validateArtifacts checks every file under dir: the expected ones exist,
// JSON parses, every JSONL line parses, CSV parses, nothing is empty and
// no temporary file is left behind.
func validateArtifacts(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"profile_export_aiperf.json", "profile_export_aiperf.csv",
		"profile_export.jsonl", "inputs.json", "logs/aiperf.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.Contains(d.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(b) == 0 && !strings.HasSuffix(path, ".jsonl") {
			t.Errorf("%s is empty", path)
		}
		switch filepath.Ext(path) {
		case ".json":
			if !json.Valid(b) {
				t.Errorf("%s is not valid JSON", path)
			}
		case ".jsonl":
			if len(b) > 0 && b[len(b)-1] != '\n' {
				t.Errorf("%s does not end with a complete line", path)
			}
			jsonlLines(t, path)
		case ".csv":
			r := csv.NewReader(bytes.NewReader(b))
			r.FieldsPerRecord = -1
			if rows, err := r.ReadAll(); err != nil || len(rows) < 2 {
				t.Errorf("%s: %d CSV rows, error %v", path, len(rows), err)
			}
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestUnwritableArtifactDirFailsBeforeSending points the artifact
// directory at a regular file: the run must stop before its first request
// with exit code 1 and an error naming the path.
func TestUnwritableArtifactDirFailsBeforeSending(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	srv := startInProcessMock(t, time.Millisecond, time.Millisecond)
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		out, err := aiperfCmd(t, "profile", "-m", "mock-model", "-u", srv.URL(), "--request-count", "2",
			"--output-artifact-dir", dir, "--ui", "none").CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("%s: exit = %v; want code 1\n%s", dir, err, out)
		}
		if !strings.Contains(string(out), `artifact directory "`+dir+`"`) {
			t.Errorf("%s: the error does not name the directory:\n%s", dir, out)
		}
	}
	if n := srv.Server().Active(); n != 0 {
		t.Errorf("%d requests in flight", n)
	}
}

// TestFullDiskMidRunIsReported makes the per-request JSONL land on
// /dev/full, where every write fails with ENOSPC: the run must report it,
// exit non-zero, and still write the other artifacts.
func TestFullDiskMidRunIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	srv := startInProcessMock(t, time.Millisecond, time.Millisecond)
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, "profile_export.jsonl")); err != nil {
		t.Fatal(err)
	}
	out, err := aiperfCmd(t, "profile", "-m", "mock-model", "-u", srv.URL(), "--request-count", "20",
		"--concurrency", "2", "--output-artifact-dir", dir, "--ui", "none").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit = %v; want code 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "profile_export.jsonl") || !strings.Contains(string(out), "no space left on device") {
		t.Errorf("the failure is not reported clearly:\n%s", out)
	}
	doc := readSummary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	if n := metric(t, doc, "request_count").Avg; n != 20 {
		t.Errorf("request_count = %v; want 20", n)
	}
	for _, f := range []string{"profile_export_aiperf.csv", "inputs.json", "logs/aiperf.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("artifact missing: %v", err)
		}
	}
}
