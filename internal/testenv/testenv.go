// Package testenv finds the system programs that some tests drive (tmux,
// headless Chromium, ffmpeg). A fresh machine may lack any of them, and
// README's test command must still pass there: a missing program skips the
// test with a message naming it. .ci/run installs the programs and sets the
// test's variable to "1", which turns the skip into a failure, so CI never
// passes by skipping what it promised to run.
package testenv

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/environ"
)

// Tool returns the path of the first of names found on PATH. When none is
// found the test is skipped, or fails when the variable env is "1".
func Tool(t testing.TB, env string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tool := strings.Join(names, " or ")
	if environ.Getenv(env) == "1" {
		t.Fatalf("%s is required (%s=1) but not on PATH", tool, env)
	}
	t.Skipf("%s not installed (set %s=1 to make this a failure; .ci/run installs it)", tool, env)
	return ""
}

// FFmpeg is the variable .ci/run sets once ffmpeg is installed; the video
// (WebM, MP4) and mp3 tests need it.
const FFmpeg = "AIPERF_REQUIRE_FFMPEG"
