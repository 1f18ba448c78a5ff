package prom_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

func family(t *testing.T, fams []prom.Family, name string) prom.Family {
	t.Helper()
	for _, f := range fams {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no family %q", name)
	return prom.Family{}
}

// TestScrapeEveryMockStyle parses each of the mock server's pages with the
// real parser: the names, types and values line up with what it served.
func TestScrapeEveryMockStyle(t *testing.T) {
	t.Parallel()
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	mock := mockserver.New(cfg)
	ts := httptest.NewServer(mock)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"m","prompt":"a b c d","max_tokens":9,"ignore_eos":true,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	// Read to the end: the server counts each token before writing it.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	tests := []struct {
		path, counter string
		typ           map[string]prom.Type
	}{
		{"/vllm/metrics", "vllm:generation_tokens", map[string]prom.Type{
			"vllm:num_requests_running": prom.Gauge, "vllm:time_to_first_token_seconds": prom.Histogram, "vllm:request_success": prom.Counter}},
		{"/sglang/metrics", "sglang:generation_tokens", map[string]prom.Type{"sglang:token_usage": prom.Gauge}},
		{"/dynamo/metrics", "dynamo_frontend_output_tokens", map[string]prom.Type{"dynamo_frontend_inter_token_latency_seconds": prom.Histogram}},
		{"/llamacpp/metrics", "llamacpp:tokens_predicted", map[string]prom.Type{"llamacpp:requests_processing": prom.Gauge}},
	}
	for _, tc := range tests {
		sc, err := prom.NewScraper(ts.URL+tc.path, nil).Scrape(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		c := family(t, sc.Families, tc.counter)
		if c.Type != prom.Counter || c.Series[0].Value != 9 {
			t.Errorf("%s: %s = %v (%v); want counter 9", tc.path, tc.counter, c.Series[0].Value, c.Type)
		}
		for name, typ := range tc.typ {
			if f := family(t, sc.Families, name); f.Type != typ {
				t.Errorf("%s: %s type %v; want %v", tc.path, name, f.Type, typ)
			}
		}
		if sc.FirstByte.Before(sc.Sent) || sc.End.Before(sc.FirstByte) {
			t.Errorf("%s: times out of order: sent %v, first byte %v, end %v", tc.path, sc.Sent, sc.FirstByte, sc.End)
		}
	}
	// The dynamo page writes bounds as Rust does; the keys keep that.
	sc, _ := prom.NewScraper(ts.URL+"/dynamo/metrics", nil).Scrape(context.Background())
	h := family(t, sc.Families, "dynamo_frontend_request_duration_seconds").Series[0]
	if h.Buckets[3].LE != "1" || h.Buckets[len(h.Buckets)-1].LE != "+Inf" {
		t.Errorf("dynamo bucket keys %q ... %q; want \"1\" ... \"+Inf\"", h.Buckets[3].LE, h.Buckets[len(h.Buckets)-1].LE)
	}
}

func TestScrapeFlagsDuplicates(t *testing.T) {
	t.Parallel()
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	s := prom.NewScraper(ts.URL+"/metrics", nil)
	first, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if first.Duplicate || !second.Duplicate {
		t.Errorf("Duplicate = %v, %v; want false, true (nothing changed)", first.Duplicate, second.Duplicate)
	}
	if len(second.Families) != len(first.Families) {
		t.Errorf("a duplicate scrape has %d families; want the previous %d", len(second.Families), len(first.Families))
	}
}

// TestTRTLLMFallback: TRT-LLM answers /metrics with JSON; the scraper moves
// to /prometheus/metrics once and stays there.
func TestTRTLLMFallback(t *testing.T) {
	t.Parallel()
	cfg := mockserver.DefaultConfig()
	cfg.Fast, cfg.MetricsStyle = true, mockserver.StyleTRTLLM
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	s := prom.NewScraper(ts.URL+"/metrics", nil)
	sc, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatalf("Scrape = %v; want the fallback to succeed", err)
	}
	if want := ts.URL + "/prometheus/metrics"; sc.URL != want || s.URL() != want {
		t.Errorf("URL = %q / %q; want %q", sc.URL, s.URL(), want)
	}
	family(t, sc.Families, "trtllm_time_to_first_token_seconds")
}

func TestIncompatibleEndpointIsDisabledOnce(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`)) // e.g. a server answering every path with JSON
	}))
	defer ts.Close()
	s := prom.NewScraper(ts.URL+"/metrics", nil)
	_, err := s.Scrape(context.Background())
	if !errors.Is(err, prom.ErrIncompatible) {
		t.Fatalf("Scrape error = %v; want ErrIncompatible", err)
	}
	if !strings.Contains(err.Error(), "/prometheus/metrics") {
		t.Errorf("error %q does not mention the fallback it tried", err)
	}
	if hits.Load() != 2 {
		t.Errorf("requests = %d; want 2 (the page and the TRT-LLM fallback)", hits.Load())
	}
	if _, err2 := s.Scrape(context.Background()); !errors.Is(err2, prom.ErrIncompatible) || hits.Load() != 2 {
		t.Errorf("second Scrape = %v after %d requests; want the same error without a request", err2, hits.Load())
	}
	if s.Disabled() == nil {
		t.Error("Disabled() = nil after an incompatible answer")
	}
}

func TestTransientErrorsDoNotDisable(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("# TYPE g gauge\ng 1\n"))
	}))
	defer ts.Close()
	s := prom.NewScraper(ts.URL+"/metrics", nil)
	if _, err := s.Scrape(context.Background()); err == nil || errors.Is(err, prom.ErrIncompatible) {
		t.Fatalf("Scrape of a 503 = %v; want a plain error", err)
	}
	fail.Store(false)
	if _, err := s.Scrape(context.Background()); err != nil {
		t.Errorf("Scrape after recovery = %v", err)
	}
}

func TestReachable(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/head-refused" && r.Method == http.MethodHead:
			w.WriteHeader(http.StatusMethodNotAllowed)
		case r.URL.Path == "/metrics" || r.URL.Path == "/head-refused":
			_, _ = w.Write([]byte("g 1\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	for path, want := range map[string]bool{"/metrics": true, "/head-refused": true, "/missing": false} {
		if got := prom.NewScraper(ts.URL+path, nil).Reachable(context.Background(), 5*time.Second); got != want {
			t.Errorf("Reachable(%s) = %v; want %v", path, got, want)
		}
	}
	if prom.NewScraper("http://127.0.0.1:1/metrics", nil).Reachable(context.Background(), 5*time.Second) {
		t.Error("Reachable(closed port) = true")
	}
}

func TestCredentialsStayOutOfErrors(t *testing.T) {
	t.Parallel()
	s := prom.NewScraper("http://user:hunter2@127.0.0.1:1/metrics", nil)
	_, err := s.Scrape(context.Background())
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Scrape error %v; want an error without the password", err)
	}
	if strings.Contains(s.URL(), "hunter2") {
		t.Errorf("URL() = %q leaks the password", s.URL())
	}
}
