package controlhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a control-plane server that answers each path with the
// statuses queued for it (then 200) and records the calls.
type recorder struct {
	mu     sync.Mutex
	calls  []string
	auth   []string
	status map[string][]int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	r.calls = append(r.calls, req.URL.Path)
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	if q := r.status[req.URL.Path]; len(q) > 0 {
		r.status[req.URL.Path] = q[1:]
		w.WriteHeader(q[0])
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (r *recorder) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.calls, " ")
}

func serve(t *testing.T, status map[string][]int) (*recorder, string) {
	t.Helper()
	r := &recorder{status: status}
	ts := httptest.NewServer(r)
	t.Cleanup(ts.Close)
	return r, ts.URL
}

func TestResetOncePerOrigin(t *testing.T) {
	t.Parallel()
	r, u := serve(t, nil)
	h := New(Options{URLs: []string{u, u + "/v1", u}, Reset: true, Header: http.Header{"Authorization": {"Bearer k"}}})
	if err := h.ResetKVCache(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := r.got(); got != "/reset_prefix_cache" {
		t.Errorf("calls = %q; want one reset for the one origin", got)
	}
	if r.auth[0] != "Bearer k" {
		t.Errorf("Authorization = %q", r.auth[0])
	}
}

func TestResetRetriesBusyAnswers(t *testing.T) {
	t.Parallel()
	r, u := serve(t, map[string][]int{"/flush": {503, 429, 409}})
	h := New(Options{URLs: []string{u}, Reset: true, ResetPath: "/flush", Backoff: time.Millisecond})
	if err := h.ResetKVCache(context.Background()); err != nil {
		t.Fatalf("ResetKVCache = %v; want success after the busy answers", err)
	}
	if got := r.got(); got != "/flush /flush /flush /flush" {
		t.Errorf("calls = %q; want 3 retried answers then success", got)
	}
}

func TestResetFailsFastOnRejection(t *testing.T) {
	t.Parallel()
	r, u := serve(t, map[string][]int{"/reset_prefix_cache": {404}})
	h := New(Options{URLs: []string{u}, Reset: true, Backoff: time.Millisecond})
	err := h.ResetKVCache(context.Background())
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 404 || ce.Retryable {
		t.Fatalf("ResetKVCache = %v; want a non-retryable 404", err)
	}
	if got := r.got(); got != "/reset_prefix_cache" {
		t.Errorf("calls = %q; want exactly one", got)
	}
}

func TestResetGivesUpWithinItsBudget(t *testing.T) {
	t.Parallel()
	// Nothing listens on this port: every attempt is a connection error.
	h := New(Options{URLs: []string{"http://127.0.0.1:1"}, Reset: true, Backoff: time.Millisecond, ResetRetry: 20 * time.Millisecond})
	err := h.ResetKVCache(context.Background())
	var ce *Error
	if !errors.As(err, &ce) || !ce.Retryable {
		t.Fatalf("ResetKVCache = %v; want the retryable connection error once the budget ran out", err)
	}
}

func TestProfilerStartFailureStopsTheStarted(t *testing.T) {
	t.Parallel()
	a, ua := serve(t, nil)
	b, ub := serve(t, map[string][]int{"/start_profile": {500}})
	h := New(Options{URLs: []string{ua, ub}, Profiler: true})
	if !h.Profiling() {
		t.Fatal("Profiling() = false")
	}
	if err := h.StartProfiler(context.Background()); err == nil {
		t.Fatal("StartProfiler = nil; want the second origin's 500")
	}
	if got := a.got(); got != "/start_profile /stop_profile" {
		t.Errorf("first origin calls = %q; want start then the cleanup stop", got)
	}
	if got := b.got(); got != "/start_profile" {
		t.Errorf("second origin calls = %q", got)
	}
}

func TestProfilerStopTriesEveryOrigin(t *testing.T) {
	t.Parallel()
	a, ua := serve(t, map[string][]int{"/x/stop": {500}})
	b, ub := serve(t, nil)
	h := New(Options{URLs: []string{ua, ub}, Profiler: true, StartPath: "/x/start", StopPath: "/x/stop"})
	if err := h.StartProfiler(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := h.StopProfiler(context.Background())
	if err == nil || !strings.Contains(err.Error(), "status 500") {
		t.Errorf("StopProfiler = %v; want the first origin's 500", err)
	}
	if a.got() != "/x/start /x/stop" || b.got() != "/x/start /x/stop" {
		t.Errorf("calls = %q and %q; want start and stop on both", a.got(), b.got())
	}
}
