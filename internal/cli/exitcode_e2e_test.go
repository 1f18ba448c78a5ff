package cli

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestExitCodesEndToEnd runs the real program for every exit code that
// `aiperf profile --help` documents and checks the code, what it says and
// which artifacts it leaves.
func TestExitCodesEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	t.Parallel()
	failing := startMockServer(t, "--fast", "--error-rate", "100", "--random-seed", "1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now

	tests := []struct {
		name      string
		args      []string
		code      int
		say       string // in stderr
		artifacts bool   // profile_export_aiperf.json written
	}{
		{"success", []string{"--mock-server", "--request-count", "3"}, config.ExitOK, "", true},
		{"every request fails", []string{"-u", refused, "--request-count", "3"}, config.ExitFailure, "all 3 requests failed", true},
		{"every request cancelled", []string{"--mock-server", "--request-count", "2", "--request-cancellation-rate", "100"},
			config.ExitFailure, "all 2 requests failed", true},
		{"failed-request threshold", []string{"-u", failing, "--concurrency", "2", "--request-count", "500", "--failed-request-threshold", "0.2"},
			config.ExitFailedRequestThreshold, "above --failed-request-threshold 0.2", true},
		{"invalid flags", []string{"--mock-server", "--request-cancellation-rate", "0", "--failed-request-threshold", "2"},
			config.ExitUsage, "--failed-request-threshold", false},
		{"endpoint never ready", []string{"-u", refused, "--wait-for-model-timeout", "0.3", "--wait-for-model-interval", "0.05", "--wait-for-model-mode", "models"},
			config.ExitFailure, "endpoint not ready: the models probe of " + refused + "/v1/models", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"profile", "-m", "mock-model", "--ui-type", "none", "--output-artifact-dir", dir}, tt.args...)
			cmd := aiperfCmd(t, args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Errorf("exit code %d; want %d\n%s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.say) {
				t.Errorf("stderr lacks %q:\n%s", tt.say, stderr.String())
			}
			_, statErr := os.Stat(filepath.Join(dir, "profile_export_aiperf.json"))
			if wrote := statErr == nil; wrote != tt.artifacts {
				t.Errorf("summary JSON written: %v; want %v", wrote, tt.artifacts)
			}
		})
	}
}
