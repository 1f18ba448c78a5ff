package benchmark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// mockConfig is the fast mock server counting tokens with the built-in
// tokenizer, changed by edit when it is not nil.
func mockConfig(t *testing.T, edit func(*mockserver.Config)) mockserver.Config {
	t.Helper()
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cfg.CountTokens = tok.Count
	if edit != nil {
		edit(&cfg)
	}
	return cfg
}

// recorderServer serves h behind the mock server's request recorder. posts
// stops the server (call it once the run is over) and returns every POST
// it received, in arrival order; later calls return the same slice.
func recorderServer(t *testing.T, h http.Handler) (url string, posts func() []mockserver.RecordedRequest) {
	t.Helper()
	var log bytes.Buffer
	rec := mockserver.NewRecorder(&log)
	srv := httptest.NewServer(rec.Wrap(h))
	t.Cleanup(srv.Close)
	var once sync.Once
	var out []mockserver.RecordedRequest
	return srv.URL, func() []mockserver.RecordedRequest {
		once.Do(func() {
			srv.Close()
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(&log)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				var r mockserver.RecordedRequest
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("recorded line: %v", err)
				}
				if r.Method == http.MethodPost {
					out = append(out, r)
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		})
		return out
	}
}
