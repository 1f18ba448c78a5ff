package benchmark

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/cancellation"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer"
)

// watchedMock starts the mock server with edit applied and counts the
// inference requests whose client went away before the handler finished
// (the request context was cancelled while the handler ran). Call close
// before reading gone: it waits for every handler to return.
func watchedMock(t *testing.T, edit func(*mockserver.Config)) (url string, gone *atomic.Int64, close func()) {
	t.Helper()
	cfg := mockConfig(t, edit)
	gone = new(atomic.Int64)
	h := mockserver.New(cfg)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		// Until ServeHTTP returns, the context ends only when the client
		// closes the connection.
		if r.Method == http.MethodPost && r.Context().Err() != nil {
			gone.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, gone, srv.Close
}

// jsonlRecord is the part of a profile_export.jsonl line these tests read.
type jsonlRecord struct {
	Metadata struct {
		SessionNum         int    `json:"session_num"`
		WasCancelled       bool   `json:"was_cancelled"`
		CancellationTimeNS *int64 `json:"cancellation_time_ns"`
		RequestStartNS     int64  `json:"request_start_ns"`
		Phase              string `json:"benchmark_phase"`
		RequestEndNS       int64  `json:"request_end_ns"`
	} `json:"metadata"`
	Error *struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

func readRecords(t *testing.T, dir string) []jsonlRecord {
	t.Helper()
	var out []jsonlRecord
	for _, l := range lines(t, filepath.Join(dir, "profile_export.jsonl")) {
		var r jsonlRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("JSONL line %q: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}

func TestRunRequestCancellationClosesConnections(t *testing.T) {
	t.Parallel()
	url, gone, closeServer := watchedMock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT = time.Hour // only a cancellation ends these requests
	})
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(3)
	cfg.Load.RequestCount = ptr(6)
	cfg.Load.RequestCancellationRate = ptr(100.0)
	cfg.Load.RequestCancellationDelay = 0.05
	out, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitFailure {
		t.Fatalf("exit code %d (%v); want 1 (every request cancelled)\n%s", code, err, out)
	}
	recs := readRecords(t, cfg.Output.ArtifactDir)
	if len(recs) != 6 {
		t.Fatalf("JSONL has %d records; want 6", len(recs))
	}
	for _, r := range recs {
		if r.Error == nil || r.Error.Code != 499 || r.Error.Type != "RequestCancellationError" ||
			r.Error.Message != "Request cancelled 0.050s after being sent" {
			t.Errorf("session %d: error %+v; want 499 RequestCancellationError, cancelled 0.050s after being sent", r.Metadata.SessionNum, r.Error)
		}
		if !r.Metadata.WasCancelled || r.Metadata.CancellationTimeNS == nil || *r.Metadata.CancellationTimeNS < r.Metadata.RequestStartNS {
			t.Errorf("session %d: was_cancelled %v, cancellation_time_ns %v; want set, after the start", r.Metadata.SessionNum,
				r.Metadata.WasCancelled, r.Metadata.CancellationTimeNS)
		}
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if n := avg(t, doc, "error_request_count"); n != 6 {
		t.Errorf("error_request_count = %v; want 6", n)
	}
	closeServer()
	if n := gone.Load(); n != 6 {
		t.Errorf("the server saw %d clients go away; want 6", n)
	}
}

func TestRunRequestCancellationFollowsTheSeed(t *testing.T) {
	t.Parallel()
	url, _, _ := watchedMock(t, func(c *mockserver.Config) {
		c.Fast = false
		// Far longer than a cancellation after 0 s, even on a loaded
		// machine: the timer starts in net/http's write loop and fires on
		// a goroutine of its own, and at load 14 both waited over 100 ms
		// for a CPU, so one chosen request finished first.
		c.TTFT = time.Second
		c.ITL = 0
	})
	const n = 24
	want := []int{}
	for seq := range uint64(n) {
		if cancellation.Chosen(7, 0.4, seq, 0) { // baseConfig's seed
			want = append(want, int(seq))
		}
	}
	if len(want) == 0 || len(want) == n {
		t.Fatalf("seed 7 chooses %d of %d; the test needs a mix", len(want), n)
	}
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(n)
	cfg.Load.RequestCount = ptr(n)
	cfg.Load.RequestCancellationRate = ptr(40.0)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	var got []int
	for _, r := range readRecords(t, cfg.Output.ArtifactDir) {
		switch {
		case r.Error == nil:
		case r.Error.Code == 499 && r.Metadata.WasCancelled:
			got = append(got, r.Metadata.SessionNum)
		default:
			t.Errorf("session %d: unexpected error %+v", r.Metadata.SessionNum, r.Error)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("cancelled sessions %v; want %v (the seeded choice)", got, want)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if c := avg(t, doc, "request_count"); int(c) != n-len(want) {
		t.Errorf("request_count = %v; want %d", c, n-len(want))
	}
	if e := avg(t, doc, "error_request_count"); int(e) != len(want) {
		t.Errorf("error_request_count = %v; want %d", e, len(want))
	}
}

func TestRunRequestCancellationAfterCompletionKeepsResponse(t *testing.T) {
	t.Parallel()
	url, gone, closeServer := watchedMock(t, nil) // answers at once
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(5)
	cfg.Load.RequestCancellationRate = ptr(100.0)
	cfg.Load.RequestCancellationDelay = 60 // the responses finish long before
	cfg.Warmup.RequestCount = ptr(2)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	for _, r := range readRecords(t, cfg.Output.ArtifactDir) {
		if r.Error != nil || r.Metadata.WasCancelled {
			t.Errorf("session %d: error %+v, was_cancelled %v; want a complete response", r.Metadata.SessionNum, r.Error, r.Metadata.WasCancelled)
		}
	}
	closeServer()
	if n := gone.Load(); n != 0 {
		t.Errorf("the server saw %d clients go away; want 0", n)
	}
}

// TestRunWarmupIsNeverCancelled sends 3 warmup requests that take 200 ms
// and 2 profiling requests that never finish, all with a 100% cancellation
// rate after 0 s: only the profiling requests may be cancelled.
func TestRunWarmupIsNeverCancelled(t *testing.T) {
	t.Parallel()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	handler := func(ttft time.Duration) http.Handler {
		cfg := mockserver.DefaultConfig()
		cfg.TTFT, cfg.ITL, cfg.CountTokens = ttft, 0, tok.Count
		return mockserver.New(cfg)
	}
	warm, hang := handler(200*time.Millisecond), handler(time.Hour)
	// A cancelled request may be dropped before the server has read it
	// (the delay is 0), so the server cannot count on seeing both
	// profiling requests; what it must never see is a warmup client going
	// away, and every profiling request it did see must end that way.
	var arrivals, warmGone, hangSeen, hangGone atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrivals.Add(1) <= 3 { // the phases run one after the other
			warm.ServeHTTP(w, r)
			if r.Context().Err() != nil {
				warmGone.Add(1)
			}
			return
		}
		hangSeen.Add(1)
		hang.ServeHTTP(w, r)
		if r.Context().Err() != nil {
			hangGone.Add(1)
		}
	}))
	t.Cleanup(srv.Close)
	cfg := baseConfig(t, srv.URL)
	cfg.Warmup.RequestCount = ptr(3)
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.RequestCount = ptr(2)
	cfg.Load.RequestCancellationRate = ptr(100.0)
	out, err := run(t, context.Background(), cfg)
	if code := exitCode(err); code != config.ExitFailure {
		t.Fatalf("exit code %d (%v); want 1\n%s", code, err, out)
	}
	var recs []jsonlRecord
	for _, r := range readRecords(t, cfg.Output.ArtifactDir) {
		if r.Metadata.Phase == "profiling" { // the warmup's are there too, as in AIPerf
			recs = append(recs, r)
		}
	}
	if n := len(recs); n != 2 {
		t.Errorf("JSONL has %d profiling records; want 2", n)
	}
	for i, r := range recs {
		if !r.Metadata.WasCancelled || r.Error == nil || r.Error.Code != 499 || r.Error.Type != "RequestCancellationError" {
			t.Errorf("record %d: was_cancelled %v, error %+v; want a cancelled 499 RequestCancellationError", i, r.Metadata.WasCancelled, r.Error)
		}
	}
	srv.Close()
	if n := warmGone.Load(); n != 0 {
		t.Errorf("the server saw %d warmup clients go away; want none", n)
	}
	if seen, gone := hangSeen.Load(), hangGone.Load(); seen > 2 || gone != seen {
		t.Errorf("the server saw %d profiling requests and %d of them go away; want every one it saw (at most 2) to go away", seen, gone)
	}
	if !strings.Contains(out, "RequestCancellationError") {
		t.Errorf("console lacks the cancellation errors:\n%s", out)
	}
}
