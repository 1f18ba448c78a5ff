package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// secretSeen collects the credentials a server received, to prove the
// secrets test sends them (it would pass vacuously otherwise).
type secretSeen struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (s *secretSeen) note(r *http.Request, secrets []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, vs := range r.Header {
		for _, v := range vs {
			for _, sec := range secrets {
				if strings.Contains(v, sec) {
					s.seen[sec] = true
				}
			}
		}
	}
	if u := r.URL.User; u != nil {
		if p, ok := u.Password(); ok {
			s.seen[p] = true
		}
	}
	if _, p, ok := r.BasicAuth(); ok {
		for _, sec := range secrets {
			if strings.Contains(p, sec) {
				s.seen[sec] = true
			}
		}
	}
}

// TestSecretsNeverLeak runs the real binary with an API key, credential
// headers in every accepted form and a password in the URL, at export
// level raw and -vv, then searches stdout, stderr and every file under the
// artifact directory for the secret strings. Each secret is unique, so a
// hit anywhere is a leak.
func TestSecretsNeverLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	const tag = "S3CR3T-7f9c2e"
	secrets := map[string]string{
		"api key":          tag + "-apikey",
		"authorization":    tag + "-authorization",
		"x-api-key":        tag + "-xapikey",
		"token":            tag + "-token",
		"secret":           tag + "-secret",
		"password":         tag + "-password",
		"cookie":           tag + "-cookie",
		"json header":      tag + "-jsonheader",
		"inline shorthand": tag + "-inline",
		"url password":     tag + "-urlpass",
	}
	var list []string
	for _, s := range secrets {
		list = append(list, s)
	}
	seen := &secretSeen{seen: map[string]bool{}}
	cfg := mockserver.DefaultConfig()
	cfg.TTFT, cfg.ITL = 0, 0
	mock := mockserver.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.note(r, list)
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	url := strings.Replace(srv.URL, "http://", "http://bench:"+secrets["url password"]+"@", 1)

	// -H Authorization replaces the header --api-key sets, so the two go
	// in separate runs; every other form goes in both.
	common := []string{
		"--header", "X-Api-Key:" + secrets["x-api-key"],
		"-H", "X-Auth-Token:" + secrets["token"],
		"-H", "X-Tenant-Secret:" + secrets["secret"],
		"-H", "X-Password:" + secrets["password"],
		"-H", "Cookie:session=" + secrets["cookie"],
		"-H", `{"Proxy-Authorization": "Basic ` + secrets["json header"] + `", "X-Trace": "visible"}`,
		"-HX-Session-Key:" + secrets["inline shorthand"],
	}
	for _, run := range [][]string{
		{"--api_key", secrets["api key"]},
		{"-H", "Authorization: Bearer " + secrets["authorization"]},
	} {
		leakCheck(t, url, append(run, common...), secrets, tag)
	}
	// The URL password is not sent (an Authorization header wins over
	// URL userinfo), but it is still on the command line and in the config.
	for name, s := range secrets {
		if name != "url password" && !seen.seen[s] {
			t.Errorf("the server never received the %s secret: the test would not catch its leak", name)
		}
	}
}

// leakCheck runs one profile with args and fails the test if any secret
// appears on stdout, stderr or in any file under the artifact directory.
func leakCheck(t *testing.T, url string, args []string, secrets map[string]string, tag string) {
	t.Helper()
	dir := t.TempDir()
	cmd := aiperfCmd(t, append([]string{"profile", "-m", "mock-model", "--url", url, "--streaming",
		"--request-count", "4", "--osl", "4", "--export-level", "raw", "-vv", "--ui", "none", "--wait-for-model-timeout", "30",
		"--output-artifact-dir", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("profile failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	texts := map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		texts[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"profile_export_aiperf.json", "profile_export_raw.jsonl", "inputs.json", "aiperf.log"} {
		found := false
		for name := range texts {
			found = found || strings.HasSuffix(name, want)
		}
		if !found {
			t.Errorf("no %s was written", want)
		}
	}
	for where, b := range texts {
		if bytes.Contains(b, []byte(tag)) {
			for name, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("the %s secret leaks into %s", name, where)
				}
			}
		}
	}
	summary := string(texts[filepath.Join(dir, "profile_export_aiperf.json")])
	for _, want := range []string{"<redacted>", "cli_command", "X-Trace"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}

// TestSecretsNotEchoedInUsageErrors checks that a malformed credential
// flag is reported without its value.
func TestSecretsNotEchoedInUsageErrors(t *testing.T) {
	t.Parallel()
	const secret = "S3CR3T-usage-4b1d"
	for _, args := range [][]string{
		{"-H", "Authorization Bearer " + secret},
		{"-H", `{"Authorization": ` + secret + `}`},
		{"-H", `{"X-Api-Key": ["` + secret + `"]}`},
		{"--url", "http://u:" + secret + "@[::1"},
	} {
		var stderr bytes.Buffer
		code := Main(t.Context(), append([]string{"profile", "-m", "m"}, args...), Env{Stderr: &stderr, Stdout: &stderr})
		if code != 2 {
			t.Errorf("%q: exit %d; want 2\n%s", args, code, stderr.String())
		}
		if strings.Contains(stderr.String(), secret) {
			t.Errorf("%q: the error echoes the secret:\n%s", args, stderr.String())
		}
	}
}

// TestSecretsEchoedByServerNeverLeak: a server that answers 401 with a
// body repeating the API key and an --extra-inputs api_key (as some
// gateways do) must not get either into stdout, stderr or any artifact
// but inputs.json (the request bodies, kept to be replayed). The stored
// command line redacts the extra-inputs key too.
func TestSecretsEchoedByServerNeverLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run")
	}
	const headerKey, bodyKey = "S3CR3T-echo-header-91ab", "S3CR3T-echo-body-27cd"
	var echoed sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		auth := r.Header.Get("Authorization")
		if strings.Contains(auth, headerKey) {
			echoed.Store("header", true)
		}
		if strings.Contains(body.String(), bodyKey) {
			echoed.Store("body", true)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"invalid credentials %q in %s","type":"invalid_request_error"}}`, auth, body.String())
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cmd := aiperfCmd(t, "profile", "-m", "mock-model", "--url", srv.URL, "--streaming", "--request-count", "3",
		"--osl", "4", "--export-level", "raw", "-vv", "--ui", "none", "--tokenizer", "builtin",
		"--api-key", headerKey, "--extra-inputs", "api_key:"+bodyKey, "--output-artifact-dir", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // every request fails: exit 1
	for _, k := range []string{"header", "body"} {
		if _, ok := echoed.Load(k); !ok {
			t.Fatalf("the server never received the %s key: the test would not catch its echo\n%s", k, stderr.String())
		}
	}
	texts := map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(path) != "inputs.json" {
			texts[path], _ = os.ReadFile(path)
		}
		return nil
	})
	if len(texts) < 5 {
		t.Fatalf("only %d outputs to search", len(texts))
	}
	for where, b := range texts {
		for _, k := range []string{headerKey, bodyKey} {
			if bytes.Contains(b, []byte(k)) {
				t.Errorf("%s leaks into %s", k, where)
			}
		}
	}
	if s := string(texts[filepath.Join(dir, "profile_export_aiperf.json")]); !strings.Contains(s, "invalid credentials") || !strings.Contains(s, "<redacted>") {
		t.Errorf("the summary lacks the scrubbed 401 message:\n%s", s)
	}
}
