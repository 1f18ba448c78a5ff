package benchmark

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/timing"
)

// TestRunOverloadStaysBoundedAndEndsOnSchedule: 3,000 requests/s for 1 s
// against a client that can get one request out at a time (prefill
// concurrency 1) to a server that takes 300 ms to the first token. The
// credits waiting to be sent stop at the backlog (timing.DefaultBacklog)
// instead of growing with the schedule, the phase ends at its duration
// plus the grace period, and client_health counts what was held back
// and what was due and never sent.
func TestRunOverloadStaysBoundedAndEndsOnSchedule(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) { c.Fast, c.TTFT, c.ITL = false, 300*time.Millisecond, time.Millisecond })
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = nil
	cfg.Load.RequestRate = ptr(3000.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Load.BenchmarkDuration = ptr(1.0)
	grace := config.Seconds(0.2)
	cfg.Load.BenchmarkGracePeriod = &grace
	cfg.Shape.PrefillConcurrency = ptr(1)
	cfg.Input.OutputTokens.Mean = ptr(2)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	var h struct {
		Backlogged *uint64  `json:"backlogged_requests"`
		Unsent     *uint64  `json:"unsent_requests"`
		Warnings   []string `json:"warnings"`
	}
	if err := json.Unmarshal(doc["client_health"], &h); err != nil || h.Backlogged == nil || h.Unsent == nil {
		t.Fatalf("client_health %s: %v; want backlogged_requests and unsent_requests", doc["client_health"], err)
	}
	if *h.Backlogged == 0 || *h.Unsent < 1000 {
		t.Errorf("backlogged %d, unsent %d; want > 0 and most of the 3,000 due", *h.Backlogged, *h.Unsent)
	}
	// Without the backlog every credit due would have been issued (a
	// goroutine each) and none counted unsent.
	if issued := 3000 - *h.Unsent; issued > uint64(timing.DefaultBacklog)+100 {
		t.Errorf("%d of the 3,000 credits issued for a client that could send a handful: the backlog did not hold", issued)
	}
	found := false
	for _, w := range h.Warnings {
		if strings.Contains(w, "never sent") {
			found = true
		}
	}
	if !found {
		t.Errorf("client_health warnings %q lack the unsent-requests warning", h.Warnings)
	}
}

// TestRunConnectionLimitCapsInFlight: a request-rate run without
// --concurrency keeps at most AIPERF_HTTP_CONNECTION_LIMIT requests in
// flight (here 4, against a server that takes 50 ms at 400 requests/s):
// it never opens more connections than that, the requests over the limit
// wait with their due times (counted in client_health), and all succeed.
func TestRunConnectionLimitCapsInFlight(t *testing.T) {
	t.Setenv("AIPERF_HTTP_CONNECTION_LIMIT", "4")
	url, requests := mock(t, func(c *mockserver.Config) { c.Fast, c.TTFT, c.ITL = false, 50*time.Millisecond, time.Millisecond })
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(40)
	cfg.Load.RequestRate = ptr(400.0)
	cfg.Load.ArrivalPattern = config.ArrivalConstant
	cfg.Input.OutputTokens.Mean = ptr(2)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	if n := requests.Load(); n != 40 {
		t.Errorf("server saw %d requests, want 40", n)
	}
	if opened, _ := fidelityHealth(t, cfg.Output.ArtifactDir); opened > 4 {
		t.Errorf("%d connections opened, want at most the limit of 4", opened)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	var h struct {
		Waits *uint64 `json:"connection_limit_waits"`
	}
	if err := json.Unmarshal(doc["client_health"], &h); err != nil || h.Waits == nil || *h.Waits == 0 {
		t.Errorf("client_health %s: want connection_limit_waits > 0", doc["client_health"])
	}
}
