package mockserver

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// firstRequestEnv makes TestFirstRequestCostsNoMoreThanLater measure, in the
// fresh process it re-executes the test binary as.
const firstRequestEnv = "AIPERF_MOCK_FIRST_REQUEST_CHILD"

// TestFirstRequestCostsNoMoreThanLater checks that a new server's first
// completions are no costlier than later ones: New has already set up the
// JSON codecs (warmCodecs), so a cold run's first burst is not served behind
// that one-off work. Allocation counts, not time, so the check is exact on a
// loaded machine. It runs in a fresh process (the test binary re-executed
// for this test alone), since another test of this process would already
// have warmed encoding/json's process-wide caches.
func TestFirstRequestCostsNoMoreThanLater(t *testing.T) {
	if os.Getenv(firstRequestEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstRequestCostsNoMoreThanLater$", "-test.v")
		cmd.Env = append(os.Environ(), firstRequestEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("fresh process: %v\n%s", err, out)
		}
		t.Logf("fresh process:\n%s", out)
		return
	}
	cfg := DefaultConfig()
	cfg.Fast = true
	s := New(cfg)
	cases := []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"mock-model","messages":[{"role":"user","content":"one two three four"}],"max_tokens":16}`},
		{"/v1/completions", `{"model":"mock-model","prompt":"one two three four","max_tokens":16}`},
	}
	for _, c := range cases {
		one := func() uint64 {
			req := httptest.NewRequest("POST", c.path, strings.NewReader(c.body))
			w := httptest.NewRecorder()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			s.ServeHTTP(w, req)
			runtime.ReadMemStats(&after)
			if w.Code != 200 {
				t.Fatalf("%s: status %d: %s", c.path, w.Code, w.Body)
			}
			return after.Mallocs - before.Mallocs
		}
		first := one()
		later := one()
		for range 3 {
			later = max(later, one())
		}
		t.Logf("%s: first request %d allocations, later ones at most %d", c.path, first, later)
		// A few one-off allocations (a pool's first buffer) are fine; the
		// codecs' set-up is hundreds.
		if first > later+later/2 {
			t.Errorf("%s: the first request made %d allocations, later ones at most %d: per-type set-up is left to the first request", c.path, first, later)
		}
	}
}

// BenchmarkServeFastChat is the handler's own cost for one non-streaming
// --fast chat completion (no network: bench/mock.sh measures the whole
// server under wrk).
func BenchmarkServeFastChat(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Fast = true
	s := New(cfg)
	const body = `{"model":"mock-model","messages":[{"role":"user","content":"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"}],"max_tokens":16,"ignore_eos":true}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
