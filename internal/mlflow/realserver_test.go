package mlflow

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// startMLflow runs `mlflow server` on a free port with a SQLite store and
// a served artifact root in a temporary directory, until the test ends.
func startMLflow(t *testing.T, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	cmd := exec.Command(bin, "server", "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--backend-store-uri", "sqlite:///"+filepath.Join(dir, "mlflow.db"),
		"--artifacts-destination", filepath.Join(dir, "artifacts"), "--workers", "1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(120 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("mlflow server did not come up at %s: %v", url, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
