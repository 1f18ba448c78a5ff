package kubecli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/cli"
	"github.com/aiperf-go/aiperf/internal/cli/clitest"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// The end-to-end tests run the pods' command lines as real processes: the
// test binary re-executes itself as `aiperf` (cli.Main).
func TestMain(m *testing.M) {
	clitest.Main(m, func() int { return cli.Main(context.Background(), os.Args[1:], cli.OSEnv()) })
}

// aiperfCmd returns a command running `aiperf args...` as its own process.
func aiperfCmd(t *testing.T, args ...string) *exec.Cmd { return clitest.Cmd(t, args...) }

// result is what one in-process run of the command line produced.
type result struct {
	code           int
	stdout, stderr string
	cfg            *config.Config // as the runner saw it; nil if it did not run
}

// runMain runs `aiperf args...` in-process as aiperf-kube does (the kube
// command built in) with a runner that records its config and returns
// runErr.
func runMain(t *testing.T, ctx context.Context, runErr error, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	var r result
	env := Env{
		Stdout:  &out,
		Stderr:  &errOut,
		Version: cli.VersionInfo{Version: "v1.2.3", Commit: "abc123", GoVersion: "go1.26.8"},
		Runner: func(_ context.Context, cfg *config.Config, _ cli.RunIO) error {
			c := *cfg
			r.cfg = &c
			return runErr
		},
		Kube: newKubeCommand,
	}
	r.code = cli.Main(ctx, args, env)
	r.stdout, r.stderr = out.String(), errOut.String()
	return r
}

// profile runs `aiperf profile args...` expecting success.
func profile(t *testing.T, args ...string) *config.Config {
	t.Helper()
	r := runMain(t, context.Background(), nil, append([]string{"profile"}, args...)...)
	if r.code != 0 || r.cfg == nil {
		t.Fatalf("aiperf profile %q: exit %d, stderr:\n%s", args, r.code, r.stderr)
	}
	return r.cfg
}

// startMock serves the embedded mock server with the given token timing.
func startMock(t *testing.T, ttft, itl time.Duration) *httptest.Server {
	t.Helper()
	cfg := mockserver.DefaultConfig()
	cfg.TTFT, cfg.ITL = ttft, itl
	srv := httptest.NewServer(mockserver.New(cfg))
	t.Cleanup(srv.Close)
	return srv
}

func readSummary(t *testing.T, path string) map[string]json.RawMessage {
	return clitest.ReadSummary(t, path)
}

func freePort(t *testing.T) int { return clitest.FreePort(t) }

// lockedBuffer is a bytes.Buffer a child process's output and the test
// may use at once.
type lockedBuffer = clitest.LockedBuffer
