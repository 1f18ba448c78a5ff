//go:build linux

package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRunDiskFullMidRun: the artifact directory is on a 256 KiB tmpfs
// that fills while the records stream. The JSONL still parses line by
// line, the run exits non-zero naming ENOSPC, and the console announces no
// file that was not written. Needs root (skipped otherwise).
func TestRunDiskFullMidRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Output.ArtifactDir = filepath.Join(dir, "run")
	cfg.Load.RequestCount = ptr(600)
	cfg.Load.Concurrency = ptr(8)
	cfg.Input.NumDatasetEntries = ptr(10) // inputs.json fits; the records do not
	// The server metrics files are written after the disk is full, so
	// their "Export:" lines must not be printed either.
	zero := 0.0
	cfg.Telemetry.ServerMetrics.Disabled, cfg.Telemetry.ServerMetrics.FlushSeconds = false, &zero
	out, err := run(t, context.Background(), cfg)
	if err == nil || exitCode(err) == 0 || !errors.Is(err, syscall.ENOSPC) && !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Run = %v (exit %d); want a failure naming ENOSPC\n%s", err, exitCode(err), out)
	}
	data, rerr := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))
	if rerr != nil {
		t.Fatalf("%v\nRun: %v\n%s", rerr, err, out)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		if !json.Valid([]byte(l)) {
			t.Fatalf("line %d of profile_export.jsonl is not valid JSON (%d bytes)", n+1, len(l))
		}
		n++
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("profile_export.jsonl ends in half a line")
	}
	if !strings.Contains(out, "Request Latency") {
		t.Errorf("the result tables were not printed:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		label, path, ok := strings.Cut(line, "Export: ")
		if !ok || strings.TrimSpace(label) == "" {
			continue
		}
		if st, serr := os.Stat(strings.TrimSpace(path)); serr != nil || st.Size() == 0 {
			t.Errorf("console announces %q, which was not written (%v)", line, serr)
		}
	}
	for _, f := range []string{"server_metrics_export.json", "server_metrics_export.csv"} {
		_, serr := os.Stat(filepath.Join(cfg.Output.ArtifactDir, f))
		if strings.Contains(out, f) && serr != nil {
			t.Errorf("console names %s, which was not written (%v)", f, serr)
		}
	}
	t.Logf("%d complete records kept; exit %d: %v", n, exitCode(err), err)
}
