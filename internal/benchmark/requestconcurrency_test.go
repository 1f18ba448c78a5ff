package benchmark

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// inFlightServer serves the mock (with its latency model: 20 ms to the
// first token, 5 ms a token) and counts the inference requests it has
// open at once, keeping the highest count: the wire's concurrency as the
// server saw it.
func inFlightServer(t *testing.T) (url string, maxInFlight, total *atomic.Int64) {
	t.Helper()
	h := mockserver.New(mockConfig(t, func(c *mockserver.Config) { c.Fast = false }))
	var open atomic.Int64
	maxInFlight, total = new(atomic.Int64), new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			h.ServeHTTP(w, r)
			return
		}
		total.Add(1)
		n := open.Add(1)
		defer open.Add(-1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, maxInFlight, total
}

// TestRequestConcurrencyCapsTheWire: at 2,000 requests/s against a server
// taking about 55 ms a request, an uncapped open loop has dozens of
// requests open; with --request-concurrency 3 the server never sees more
// than 3, and every request is still sent. The bound is a count the server
// observed, not a time.
func TestRequestConcurrencyCapsTheWire(t *testing.T) {
	for _, tt := range []struct {
		name             string
		profile, warmup  *int
		warmupRequests   *int
		profilingRequest int
		wantMax          int64
	}{
		{"profiling", ptr(3), nil, nil, 24, 3},
		// The warmup's own cap (the profiling phase starts once every warmup
		// request has ended).
		{"warmup", nil, ptr(2), ptr(24), 1, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, maxInFlight, total := inFlightServer(t)
			cfg := baseConfig(t, url)
			cfg.Load.RequestRate = ptr(2000.0)
			cfg.Load.RequestCount = ptr(tt.profilingRequest)
			cfg.Shape.RequestConcurrency = tt.profile
			cfg.Shape.Warmup.RequestConcurrency = tt.warmup
			cfg.Warmup.RequestCount = tt.warmupRequests
			out, err := run(t, context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, out)
			}
			want := int64(tt.profilingRequest)
			if tt.warmupRequests != nil {
				want += int64(*tt.warmupRequests)
			}
			if got := total.Load(); got != want {
				t.Errorf("server saw %d requests, want %d", got, want)
			}
			if got := maxInFlight.Load(); got > tt.wantMax {
				t.Errorf("server saw %d requests open at once; --request-concurrency allows %d", got, tt.wantMax)
			}
		})
	}
}
