package remote_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/remote"
	"github.com/aiperf-go/aiperf/internal/sigv4/sigv4test"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub"
	"github.com/aiperf-go/aiperf/internal/tokenizer/hub/hubtest"
)

const trace = `{"timestamp": 0, "input_length": 12, "output_length": 5, "hash_ids": [0]}
{"timestamp": 105, "input_length": 18, "output_length": 2, "hash_ids": [0, 1]}
`

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// files is a tiny static server that counts requests and answers
// If-None-Match with 304.
type files struct {
	mu    sync.Mutex
	data  map[string]string
	calls map[string]int
}

func (f *files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls[r.URL.Path]++
	body, ok := f.data[r.URL.Path]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	etag := `"` + string(rune('a'+len(body)%26)) + `"`
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	io.WriteString(w, body)
}

func TestHTTPS(t *testing.T) {
	fs := &files{data: map[string]string{"/t/trace.jsonl": trace, "/t/trace.jsonl.aiperf.json": `{"format":"mooncake_trace","description":"demo"}`,
		"/u/bad.jsonl": trace, "/u/bad.jsonl.aiperf.json": `{"path":"other.jsonl"}`}, calls: map[string]int{}}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	o := remote.Options{CacheDir: t.TempDir()}
	for range 2 {
		f, err := remote.Fetch(context.Background(), srv.URL+"/t/trace.jsonl", o)
		if err != nil {
			t.Fatal(err)
		}
		if read(t, f.Path) != trace || f.Format() != "mooncake_trace" || f.Pinned == "" {
			t.Fatalf("fetched %+v", f)
		}
	}
	if fs.calls["/t/trace.jsonl"] != 2 {
		t.Errorf("%d requests for the file", fs.calls["/t/trace.jsonl"])
	}
	if _, err := remote.Fetch(context.Background(), srv.URL+"/u/bad.jsonl", o); err == nil || !strings.Contains(err.Error(), "must not set path") {
		t.Errorf("sidecar with a path: %v", err)
	}
	if _, err := remote.Fetch(context.Background(), srv.URL+"/missing.jsonl", o); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("missing file: %v", err)
	}
	// A presigned URL: no sidecar lookup.
	fs.calls = map[string]int{}
	if f, err := remote.Fetch(context.Background(), srv.URL+"/t/trace.jsonl?X-Amz-Signature=abc", o); err != nil || f.Manifest != nil || fs.calls["/t/trace.jsonl.aiperf.json"] != 0 {
		t.Errorf("presigned: %+v %v %v", f, err, fs.calls)
	}
}

// s3Server is an S3-compatible store (path-style) that checks every
// request's signature with the AWS SDK's signer.
func s3Server(t *testing.T, objects map[string]string) (*httptest.Server, *[]string) {
	v := &sigv4test.Verifier{Region: "eu-west-1", Service: "s3", S3: true, Keys: []sigv4test.Key{{AccessKeyID: "AKIDS3", SecretAccessKey: "s3secret"}}}
	var mu sync.Mutex
	var refused []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := v.Verify(r, nil); err != nil {
			mu.Lock()
			refused = append(refused, r.URL.Path+": "+err.Error())
			mu.Unlock()
			http.Error(w, "<Error><Code>SignatureDoesNotMatch</Code></Error>", http.StatusForbidden)
			return
		}
		if r.Header.Get("X-Amz-Content-Sha256") != "UNSIGNED-PAYLOAD" {
			http.Error(w, "<Error><Code>InvalidRequest</Code></Error>", http.StatusBadRequest)
			return
		}
		body, ok := objects[r.URL.Path]
		if !ok {
			http.Error(w, "<Error><Code>NoSuchKey</Code></Error>", http.StatusNotFound)
			return
		}
		w.Header().Set("ETag", `"etag-`+r.URL.Path+`"`)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &refused
}

func TestS3(t *testing.T) {
	srv, refused := s3Server(t, map[string]string{
		"/traces/pub/aiperf.json":           `{"path": "data/trace file.jsonl", "format": "mooncake_trace"}`,
		"/traces/pub/data/trace file.jsonl": trace,
		"/traces/one.jsonl":                 trace,
	})
	o := remote.Options{CacheDir: t.TempDir(), Getenv: env(map[string]string{"HOME": t.TempDir(), "AWS_ENDPOINT_URL_S3": srv.URL, "AWS_REGION": "eu-west-1",
		"AWS_ACCESS_KEY_ID": "AKIDS3", "AWS_SECRET_ACCESS_KEY": "s3secret"})}
	f, err := remote.Fetch(context.Background(), "s3://traces/pub/", o)
	if err != nil {
		t.Fatalf("%v (refused: %v)", err, *refused)
	}
	if read(t, f.Path) != trace || f.Format() != "mooncake_trace" || !strings.Contains(f.Pinned, "s3://traces/pub/data/trace file.jsonl") {
		t.Errorf("prefix: %+v", f)
	}
	f, err = remote.Fetch(context.Background(), "s3://traces/one.jsonl", o)
	if err != nil || read(t, f.Path) != trace || f.Manifest != nil {
		t.Errorf("object: %+v %v", f, err)
	}
	if len(*refused) != 0 {
		t.Errorf("signatures refused: %v", *refused)
	}
	if _, err := remote.Fetch(context.Background(), "s3://traces/nothing/", o); err == nil || !strings.Contains(err.Error(), "aiperf.json") {
		t.Errorf("prefix without manifest: %v", err)
	}
}

// TestHF reads a repository through its aiperf.json from a hub-shaped
// server, and a file of it with its sidecar.
func TestHF(t *testing.T) {
	cache := t.TempDir()
	commit := strings.Repeat("ab", 20)
	snap := filepath.Join(cache, "datasets--org--traces", "snapshots", commit)
	for name, body := range map[string]string{
		"aiperf.json":                   `{"path": "traces/day1.jsonl", "format": "mooncake_trace"}`,
		"traces/day1.jsonl":             trace,
		"traces/day1.jsonl.aiperf.json": `{"format": "mooncake_trace"}`,
		"folder/aiperf.json":            `{"path": "x.jsonl", "format": "mooncake_trace"}`,
		"folder/x.jsonl":                trace,
	} {
		p := filepath.Join(snap, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	os.MkdirAll(filepath.Join(cache, "datasets--org--traces", "refs"), 0o755)
	os.WriteFile(filepath.Join(cache, "datasets--org--traces", "refs", "main"), []byte(commit), 0o644)
	srv := hubtest.New(cache)
	defer srv.Close()
	hc := hub.FromEnv(env(map[string]string{"HF_ENDPOINT": srv.URL, "HF_HUB_CACHE": t.TempDir()}), nil)
	o := remote.Options{Hub: hc}
	for _, c := range []struct{ ref, pinned string }{
		{"hf://org/traces", "hf://org/traces@" + commit + "/traces/day1.jsonl"},
		{"hf://org/traces@main/traces/day1.jsonl", "hf://org/traces@" + commit + "/traces/day1.jsonl"},
		{"hf://org/traces/folder", "hf://org/traces@" + commit + "/folder/x.jsonl"},
	} {
		f, err := remote.Fetch(context.Background(), c.ref, o)
		if err != nil {
			t.Fatalf("%s: %v", c.ref, err)
		}
		if read(t, f.Path) != trace || f.Format() != "mooncake_trace" || f.Pinned != c.pinned {
			t.Errorf("%s: %+v", c.ref, f)
		}
	}
	if _, err := remote.Fetch(context.Background(), "hf://org/missing", o); err == nil {
		t.Error("missing repository fetched")
	}
}
