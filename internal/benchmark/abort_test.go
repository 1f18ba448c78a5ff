package benchmark

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/record"
)

func TestRunFailedRequestThreshold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		errorRate   float64 // mock server, percent
		threshold   float64
		concurrency int
		count       int
		wantCode    int
	}{
		{"every request fails", 100, 0.5, 2, 200, config.ExitFailedRequestThreshold},
		// 200, not 50: the guard trips when the record consumer has seen 10
		// records, and on a loaded machine fast failures can be sent well
		// ahead of it; the count leaves room for that lag.
		{"threshold zero trips on any failure", 100, 0, 1, 200, config.ExitFailedRequestThreshold},
		{"no failures", 0, 0, 4, 20, config.ExitOK},
		{"threshold one never trips", 100, 1, 2, 12, config.ExitFailure},
		{"below the floor the check is not armed", 100, 0, 1, 9, config.ExitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, requests := mock(t, func(c *mockserver.Config) {
				c.ErrorRate = tt.errorRate
				c.RandomSeed, c.SeedSet = 1, true
			})
			cfg := baseConfig(t, url)
			cfg.Load.Concurrency = ptr(tt.concurrency)
			cfg.Load.RequestCount = ptr(tt.count)
			cfg.Load.FailedRequestThreshold = ptr(tt.threshold)
			out, err := run(t, context.Background(), cfg)
			if code := exitCode(err); code != tt.wantCode {
				t.Fatalf("exit code %d (%v); want %d\n%s", code, err, tt.wantCode, out)
			}
			dir := cfg.Output.ArtifactDir
			doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
			recs := readRecords(t, dir)
			if tt.wantCode != config.ExitFailedRequestThreshold {
				if len(recs) != tt.count {
					t.Errorf("JSONL has %d records; want all %d", len(recs), tt.count)
				}
				return
			}
			// Aborted: the check is armed at max(concurrency, 10) records,
			// so the run stops long before its request count.
			if sent := requests.Load(); sent >= int64(tt.count) || sent < 10 {
				t.Errorf("server saw %d requests; want the abort after about 10 of %d", sent, tt.count)
			}
			if len(recs) < 10 || len(recs) >= tt.count {
				t.Errorf("JSONL has %d records; want those finished before the abort (>= 10, < %d)", len(recs), tt.count)
			}
			// Every record failed, but those still in flight at the abort,
			// cut off at the end of the phase: no errors, as in AIPerf.
			cut := 0
			for _, r := range recs {
				if r.Error != nil && r.Error.Type == record.TypePhaseEndCancelled {
					cut++
				}
			}
			if n := avg(t, doc, "error_request_count"); int(n) != len(recs)-cut {
				t.Errorf("error_request_count = %v; want %d (every record failed but the %d cut off)", n, len(recs)-cut, cut)
			}
			if cut > 0 {
				if n := avg(t, doc, "cancelled_at_phase_end_count"); int(n) != cut {
					t.Errorf("cancelled_at_phase_end_count = %v; want %d", n, cut)
				}
			}
			if string(doc["was_cancelled"]) != "true" {
				t.Errorf("was_cancelled = %s; want true", doc["was_cancelled"])
			}
			for _, want := range []string{"failed-request-threshold", "aborted"} {
				if !strings.Contains(err.Error(), want) || !strings.Contains(out, want) {
					t.Errorf("error %q / console lack %q:\n%s", err, want, out)
				}
			}
		})
	}
}

// TestRunFailedRequestThresholdCancelsInFlight aborts a count-bound run
// whose later requests never finish: only the abort's cancellation of the
// requests in flight lets it end.
func TestRunFailedRequestThresholdCancelsInFlight(t *testing.T) {
	t.Parallel()
	var arrivals, gone atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body to the end is what lets net/http notice a
		// client that goes away (it then watches the connection).
		_, _ = io.Copy(io.Discard, r.Body)
		if arrivals.Add(1) <= 10 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"message":"overloaded"}}`))
			return
		}
		<-r.Context().Done() // hangs until the client goes away
		gone.Add(1)
	}))
	t.Cleanup(srv.Close)
	cfg := baseConfig(t, srv.URL)
	cfg.Load.Concurrency = ptr(4)
	cfg.Load.RequestCount = ptr(100)
	cfg.Load.FailedRequestThreshold = ptr(0.5)
	out, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitFailedRequestThreshold {
		t.Fatalf("exit code %d (%v); want %d\n%s", code, err, config.ExitFailedRequestThreshold, out)
	}
	var unavailable, cancelled int
	for _, r := range readRecords(t, cfg.Output.ArtifactDir) {
		switch {
		case r.Error == nil:
			t.Errorf("session %d succeeded; every request fails or hangs", r.Metadata.SessionNum)
		case r.Error.Code == 503:
			unavailable++
		case r.Error.Code == 499 && r.Metadata.WasCancelled:
			cancelled++
		default:
			t.Errorf("session %d: unexpected error %+v", r.Metadata.SessionNum, r.Error)
		}
	}
	// In flight at the abort: up to 4 hanging requests, plus any credit
	// issued between the abort and the scheduler seeing it (cancelled
	// before it reached the server).
	if unavailable != 10 || cancelled == 0 || cancelled > 5 {
		t.Errorf("%d records with 503 and %d cancelled; want 10 and 1..5 (those in flight at the abort)", unavailable, cancelled)
	}
	srv.Close()
	if g, hung := gone.Load(), arrivals.Load()-10; g != hung || g > int64(cancelled) {
		t.Errorf("the server saw %d clients go away; want all %d hanging requests, no more than the %d cancelled records", g, hung, cancelled)
	}
}
