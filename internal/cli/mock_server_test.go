package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// getModels fetches base/v1/models and returns the status and body.
func getModels(ctx context.Context, base string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestProfileMockServerFlag(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	var status int
	var url string
	env := Env{Stderr: &stderr, Runner: func(ctx context.Context, cfg *config.Config, _ RunIO) error {
		url = cfg.Endpoint.URLs[0]
		var err error
		status, _, err = getModels(ctx, url)
		return err
	}}
	code := Main(context.Background(), []string{"profile", "--mock-server", "-m", "mock-model"}, env)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || status != http.StatusOK {
		t.Errorf("runner saw url %q, GET /v1/models = %d; want a loopback URL and 200", url, status)
	}
	if !strings.Contains(stderr.String(), url) {
		t.Errorf("stderr %q does not name the mock server URL", stderr.String())
	}
	// The server is closed once the run is over.
	if _, _, err := getModels(context.Background(), url); err == nil {
		t.Errorf("mock server at %s still answers after the run", url)
	}
}

func TestProfileMockServerConflictsWithURL(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "profile", "--mock-server", "-m", "m", "-u", "h:1")
	if r.code != 2 || !strings.Contains(r.stderr, "--mock-server: cannot be combined with --url") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestMockServerCommand(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		defer pw.Close()
		done <- Main(ctx, []string{"mock-server", "-p", "0", "--host", "127.0.0.1", "-f", "--tokenizer", "none"},
			Env{Stdout: pw, Stderr: &stderr})
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the mock server's URL: %v (stderr %q)", err, stderr.String())
	}
	var url string
	if _, err := fmt.Sscanf(line, "aiperf mock server listening on %s", &url); err != nil {
		t.Fatalf("unexpected first line %q: %v", line, err)
	}
	status, body, err := getModels(ctx, url)
	if err != nil || status != http.StatusOK || !strings.Contains(body, "mock-model") {
		t.Errorf("GET %s/v1/models = %d, %q, %v", url, status, body, err)
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck // drain until Main returns
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("mock-server exit = %d; want 0 after cancellation (stderr %q)", code, stderr.String())
	}
}

func TestMockServerCommandUsageErrors(t *testing.T) {
	t.Parallel()
	r := runMain(t, context.Background(), nil, "mock-server", "--error-rate", "200", "--tokenizer", "hf", "--ttft", "-1")
	if r.code != 2 {
		t.Fatalf("exit %d; want 2 (stderr %q)", r.code, r.stderr)
	}
	for _, want := range []string{"error", "--tokenizer: invalid choice \"hf\"", "ttft"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	r = runMain(t, context.Background(), nil, "mock-server", "--port", "x")
	if r.code != 2 {
		t.Errorf("mock-server --port x: exit %d; want 2", r.code)
	}
	r = runMain(t, context.Background(), nil, "mock-server", "--help")
	for _, want := range []string{"-p, --port", "-t, --ttft", "-f, --fast", "--itl-concurrency-lin-ms", "--tokenizer"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mock-server --help lacks %q:\n%s", want, r.stdout)
		}
	}
}
