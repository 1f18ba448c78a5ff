// Package clitest holds what the end-to-end tests of internal/cli and
// internal/kubecli share: the test binary re-executed as `aiperf` (Main,
// Cmd), the summary reader, a free loopback port and a buffer that a
// child process and the test write at once. Only tests import it.
package clitest

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/benchmark"
	"github.com/aiperf-go/aiperf/internal/environ"
)

// AsMainEnv set to "1" makes the test binary run `aiperf` instead of its
// tests.
const AsMainEnv = "AIPERF_TEST_RUN_AS_MAIN"

// Main is the TestMain of a package whose tests run `aiperf` as its own
// process: re-executed by Cmd, the test binary runs main (cli.Main with
// the process's arguments) and exits with its code. Otherwise it runs the
// tests, with no server-metrics flush wait (the mock counts every token
// before writing it) and no DCGM exporter of this machine's default ports
// picked up; the processes the tests start inherit both.
func Main(m *testing.M, main func() int) {
	if environ.Getenv(AsMainEnv) == "1" {
		os.Exit(main())
	}
	os.Setenv(benchmark.EnvServerMetricsFlush, "0")
	os.Setenv(benchmark.EnvGPUDefaultDCGM, "")
	os.Exit(m.Run())
}

// Cmd returns a command running `aiperf args...` as its own process (the
// test binary, under Main).
func Cmd(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(environ.Environ(), AsMainEnv+"=1")
	return cmd
}

// ReadSummary reads a JSON summary's top-level members.
func ReadSummary(t testing.TB, path string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s is not valid JSON: %v", path, err)
	}
	return doc
}

// FreePort returns a loopback port nothing listens on (for flags that
// take a fixed port).
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// LockedBuffer is a bytes.Buffer that a child process's output and the
// test may use at once.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
