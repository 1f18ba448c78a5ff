//go:build unix

package transport

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A connection refused by this process's open-file limit (EMFILE) is
// recorded with the limit and the way past it named: --workers, or a
// higher hard limit. The limit is lowered and used up in a child process
// (this test binary again), so that this one keeps its descriptors.
func TestFileLimitHint(t *testing.T) {
	if url := os.Getenv("AIPERF_TEST_FILE_LIMIT_URL"); url != "" {
		fileLimitChild(t, url)
		return
	}
	var served atomic.Int64
	srv := httptest.NewServer(okHandler(&served))
	defer srv.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileLimitHint$", "-test.v")
	cmd.Env = append(os.Environ(), "AIPERF_TEST_FILE_LIMIT_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestFileLimitHint") {
		t.Fatalf("child did not pass:\n%s", out)
	}
}

// fileLimitChild lowers the soft open-file limit, opens files until the
// next descriptor is refused, and sends a request with each engine.
func fileLimitChild(t *testing.T, url string) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skipf("no open-file limit: %v", err)
	}
	clients := make([]*Client, len(engines))
	for i, e := range engines {
		clients[i] = New(Options{NetHTTP: e.netHTTP, Timeout: 10 * time.Second})
		defer clients[i].Close()
	}
	rl.Cur = 128
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatal(err)
	}
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		held = append(held, f)
	}
	for i, e := range engines {
		rec := do(t, clients[i], t.Context(), url)
		if rec.Error == nil {
			t.Fatalf("%s: a request with no descriptor left succeeded", e.name)
		}
		if testing.Verbose() {
			t.Logf("%s: %s", e.name, rec.Error.Message)
		}
		for _, want := range []string{"too many open files", "open-file limit (128, hard", "--workers N", "ulimit -Hn"} {
			if !strings.Contains(rec.Error.Message, want) {
				t.Errorf("%s: %q lacks %q", e.name, rec.Error.Message, want)
			}
		}
	}
}
