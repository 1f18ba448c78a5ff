package readiness

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestSignedProbeRefusalStops: behind SigV4, a 401/403 is not "the
// server is up" but a refusal no retry fixes, so the wait stops at the
// first one and names the likely cause; unsigned, the same answer passes
// as AIPerf's rule says.
func TestSignedProbeRefusalStops(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"message":"Missing Authentication Token"}`)
	}))
	defer srv.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, mode := range []config.WaitForModelMode{config.WaitForInference, config.WaitForModels} {
		for _, signed := range []bool{true, false} {
			calls.Store(0)
			pr := New(Options{Bases: []string{srv.URL}, Targets: []string{srv.URL + "/v1/chat/completions"}, Models: []string{"m"},
				Mode: mode, Kind: config.EndpointChat, Timeout: time.Minute, Interval: time.Second, Client: srv.Client(), Log: log, Signed: signed})
			pr.Sleep = func(context.Context, time.Duration) error { return context.Canceled }
			err := pr.Wait(context.Background())
			switch {
			case signed && (err == nil || !strings.Contains(err.Error(), "Missing Authentication Token") || !strings.Contains(err.Error(), "not retried")):
				t.Errorf("%s signed: %v", mode, err)
			case signed && calls.Load() != 1:
				t.Errorf("%s signed: %d requests, want 1 (no retry)", mode, calls.Load())
			case !signed && mode == config.WaitForInference && err != nil:
				t.Errorf("%s unsigned: a 403 means the server is up (AIPerf's rule): %v", mode, err)
			}
		}
	}
}
