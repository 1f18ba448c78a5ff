package experiment

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// mock serves the fast embedded mock server (counting tokens with the
// built-in tokenizer, changed by edit when it is not nil) and counts the
// POSTs it receives.
func mock(t *testing.T, edit func(*mockserver.Config)) (url string, requests *atomic.Int64) {
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
	requests = new(atomic.Int64)
	h := mockserver.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			requests.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, requests
}

func ptr[T any](v T) *T { return &v }

// baseConfig is a small streaming chat benchmark of url, its artifacts in
// a temporary directory.
func baseConfig(t *testing.T, url string) *config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.Endpoint.ModelNames = []string{"mock-model"}
	cfg.Endpoint.URLs = []string{url}
	cfg.Endpoint.Streaming = true
	cfg.Input.InputTokens.Mean = 64
	cfg.Input.OutputTokens.Mean = ptr(8)
	cfg.Input.RandomSeed = ptr(int64(7))
	cfg.Output.ArtifactDir = t.TempDir()
	cfg.Output.ArtifactDirExplicit = true
	cfg.Service.UIType = config.UINone
	cfg.Load.RequestCount = ptr(10)
	// Telemetry has its own tests (telemetry_test.go); here its /metrics
	// probes would reach handlers that count every request as inference.
	cfg.Telemetry.ServerMetrics.Disabled = true
	cfg.Telemetry.GPU.Disabled = true
	return &cfg
}
