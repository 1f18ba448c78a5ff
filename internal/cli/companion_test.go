package cli

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestKubeRunsTheCompanion: `aiperf kube ARGS` runs `aiperf-kube ARGS`
// (here a script on PATH standing in for it) with the arguments as typed,
// its output and its exit code; without one it says how to build it.
func TestKubeRunsTheCompanion(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	r := runMain(t, context.Background(), nil, "kube", "init", "--list")
	if r.code != 1 || !strings.Contains(r.stderr, "aiperf-kube was not found") || !strings.Contains(r.stderr, "go build -o DIR ./cmd/...") {
		t.Errorf("without aiperf-kube: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	script := "#!/bin/sh\necho \"companion: $*\"\necho oops >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, KubeBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r = runMain(t, context.Background(), nil, "kube", "profile", "--name", "x y", "--", "-m", "m")
	if r.code != 3 || r.stdout != "companion: profile --name x y -- -m m\n" || r.stderr != "oops\n" {
		t.Errorf("with aiperf-kube: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, context.Background(), nil, "help", "kube")
	if r.code != 0 || !strings.Contains(r.stdout, "aiperf kube ARGS runs `aiperf-kube ARGS`") {
		t.Errorf("help kube: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
