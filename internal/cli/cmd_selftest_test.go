package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestSelftestCommand: `aiperf selftest` runs the self-test and exits 0
// when it passes; a stray argument is a usage error.
func TestSelftestCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"selftest", "--requests", "8"}, Env{Stdout: &out, Stderr: &errOut}); code != 0 ||
		!strings.Contains(out.String(), "selftest passed") || !strings.Contains(out.String(), "TTFT floor") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if code := Main(context.Background(), []string{"selftest", "extra"}, Env{Stdout: &out, Stderr: &errOut}); code != 2 {
		t.Errorf("a stray argument: exit %d", code)
	}
}
