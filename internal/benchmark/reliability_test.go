package benchmark

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/internal/adaptive"
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// hangUpConn is a server connection that is closed once it has served one
// response: at once (even connections), or when the client's next request
// arrives on it (odd ones), so that request was written on a connection
// the server drops unanswered.
type hangUpConn struct {
	net.Conn
	waitForNext bool
	served      atomic.Bool
}

func (c *hangUpConn) Read(p []byte) (int, error) {
	if c.served.Load() && c.waitForNext {
		c.Conn.Read(p) // the client's next request; never answered
		c.Conn.Close()
		return 0, net.ErrClosed
	}
	return c.Conn.Read(p)
}

type hangUpListener struct {
	net.Listener
	n atomic.Int64
}

func (l *hangUpListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &hangUpConn{Conn: c, waitForNext: l.n.Add(1)%2 == 1}, nil
}

// hangUpServer serves the mock behind connections that promise keep-alive
// (HTTP/1.1, plus an explicit "Connection: keep-alive") and are closed after
// every response, as llama-server does after a stream. It returns the URL
// and the X-Request-ID of every request the mock answered.
func hangUpServer(t *testing.T) (url string, answered func() map[string]bool) {
	t.Helper()
	m := mockserver.New(mockConfig(t, nil))
	var mu sync.Mutex
	ids := map[string]bool{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "keep-alive")
		m.ServeHTTP(w, r)
		if r.Method == http.MethodPost {
			mu.Lock()
			ids[r.Header.Get("X-Request-ID")] = true
			mu.Unlock()
		}
	}))
	srv.Listener = &hangUpListener{Listener: srv.Listener}
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if hc, ok := c.(*hangUpConn); ok && s == http.StateIdle {
			if !hc.waitForNext {
				hc.Conn.Close()
			}
			hc.served.Store(true)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, func() map[string]bool {
		mu.Lock()
		defer mu.Unlock()
		return ids
	}
}

// TestRunServerClosingKeepAliveConnections is the keep-alive acceptance test:
// against a server that advertises keep-alive and closes after every
// response, 1,000 streamed requests at concurrency 50 give no error record,
// every record's request id reached the server, and the resends are
// counted per record and for the run.
func TestRunServerClosingKeepAliveConnections(t *testing.T) {
	t.Parallel()
	url, answered := hangUpServer(t)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(1000)
	cfg.Load.Concurrency = ptr(50)
	cfg.Input.InputTokens.Mean = 16
	cfg.Input.OutputTokens.Mean = ptr(4)
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	dir := cfg.Output.ArtifactDir
	got := answered()
	retries, retried := 0, 0
	ls := lines(t, filepath.Join(dir, "profile_export.jsonl"))
	if len(ls) != 1000 {
		t.Fatalf("%d records; want 1000", len(ls))
	}
	for _, l := range ls {
		var r struct {
			Metadata struct {
				XRequestID        string `json:"x_request_id"`
				ConnectionRetries int    `json:"connection_retries"`
			} `json:"metadata"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Error != nil {
			t.Errorf("error record %s: %s", r.Metadata.XRequestID, r.Error)
		}
		if !got[r.Metadata.XRequestID] {
			t.Errorf("record %s never reached the server", r.Metadata.XRequestID)
		}
		retries += r.Metadata.ConnectionRetries
		if r.Metadata.ConnectionRetries > 0 {
			retried++
		}
	}
	doc := summary(t, filepath.Join(dir, "profile_export_aiperf.json"))
	var health struct {
		ConnectionRetries int `json:"connection_retries"`
	}
	if err := json.Unmarshal(doc["client_health"], &health); err != nil {
		t.Fatal(err)
	}
	if health.ConnectionRetries != retries {
		t.Errorf("client_health.connection_retries = %d; records sum to %d", health.ConnectionRetries, retries)
	}
	// Half the connections hold the next request until they drop it, so
	// resends must have happened; without them this run loses requests.
	if retries == 0 {
		t.Errorf("no resend counted; the server closes every connection after one response")
	}
	t.Logf("%d resends over %d of 1000 requests", retries, retried)
}

// TestRunConnectionReuseStrategies runs a two-turn workload under each
// strategy and counts the server's connections: never opens one per
// request, sticky one per conversation, pooled at most the concurrency.
func TestRunConnectionReuseStrategies(t *testing.T) {
	t.Parallel()
	const convs, turns = 6, 2
	for _, tc := range []struct {
		reuse config.ConnectionReuse
		check func(conns int) bool
		want  string
	}{
		{config.ReusePooled, func(n int) bool { return n <= 2 }, "<= 2 (the concurrency)"},
		{config.ReuseNever, func(n int) bool { return n == convs*turns }, "one per request"},
		{config.ReuseSticky, func(n int) bool { return n == convs }, "one per conversation"},
	} {
		t.Run(string(tc.reuse), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			addrs := map[string]bool{}
			h := mockserver.New(mockConfig(t, nil))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					mu.Lock()
					addrs[r.RemoteAddr] = true
					mu.Unlock()
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			cfg := baseConfig(t, srv.URL)
			cfg.Endpoint.ConnectionReuse = tc.reuse
			cfg.Conversation.NumSessions = ptr(convs)
			cfg.Conversation.TurnsMean = turns
			cfg.Load.RequestCount = nil
			cfg.Load.Concurrency = ptr(2)
			if out, err := run(t, context.Background(), cfg); err != nil {
				t.Fatalf("Run: %v\n%s", err, out)
			}
			mu.Lock()
			defer mu.Unlock()
			if !tc.check(len(addrs)) {
				t.Errorf("%d connections for %d conversations of %d turns; want %s", len(addrs), convs, turns, tc.want)
			}
		})
	}
}

// TestRunInputFileKeepsWhatIsSent: a run that sends 20 requests in order
// from a 1,000-line --input-file keeps and records (inputs.json) only the
// 20 conversations it sends; a shuffled one keeps them all.
func TestRunInputFileKeepsWhatIsSent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "in.jsonl")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "{\"text\":\"prompt %d\",\"output_length\":4}\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	url, _ := mock(t, nil)
	for _, tc := range []struct {
		sampling config.SamplingStrategy
		want     int
	}{{"", 20}, {config.SamplingStrategy(dataset.SamplingShuffle), 1000}} {
		cfg := baseConfig(t, url)
		cfg.Dataset.InputFile = path
		cfg.Dataset.SamplingStrategy = tc.sampling
		cfg.Load.RequestCount = ptr(20)
		if out, err := run(t, context.Background(), cfg); err != nil {
			t.Fatalf("Run: %v\n%s", err, out)
		}
		var inputs struct {
			Data []struct {
				SessionID string `json:"session_id"`
			} `json:"data"`
		}
		raw, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
		if err != nil || json.Unmarshal(raw, &inputs) != nil {
			t.Fatalf("inputs.json: %v", err)
		}
		if len(inputs.Data) != tc.want {
			t.Errorf("sampling %q: inputs.json has %d sessions; want %d", tc.sampling, len(inputs.Data), tc.want)
		}
	}
}

// TestRunIncompleteStreams: streams cut short without [DONE] or a
// finish_reason (the mock's truncated_stream) are good records flagged
// stream_incomplete, counted in stream_incomplete_count and noted once on
// the console; --strict-streams makes them errors. A chunk after [DONE]
// counts for nothing.
func TestRunIncompleteStreams(t *testing.T) {
	t.Parallel()
	const n = 6
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprint("strict=", strict), func(t *testing.T) {
			t.Parallel()
			url, _ := faultMock(t, func(c *mockserver.Config) {
				c.Faults = []mockserver.FaultRate{{Fault: mockserver.FaultTruncatedStream, Rate: 0.5}}
				c.RandomSeed, c.SeedSet = 3, true
			}, nil)
			cfg := faultConfig(t, url, true, n)
			cfg.Reliability.StrictStreams = strict
			out, err := run(t, context.Background(), cfg)
			if err != nil && exitCode(err) != config.ExitFailure {
				t.Fatalf("Run: %v\n%s", err, out)
			}
			recs := readFaultRecords(t, cfg.Output.ArtifactDir)
			flagged, errs := 0, 0
			for _, l := range lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl")) {
				var r struct {
					Metadata struct {
						Incomplete bool `json:"stream_incomplete"`
					} `json:"metadata"`
					Error *struct{ Type string } `json:"error"`
				}
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatal(err)
				}
				switch {
				case r.Error != nil && r.Error.Type == "StreamIncompleteError":
					errs++
				case r.Error != nil:
					t.Errorf("unexpected error %+v", r.Error)
				case r.Metadata.Incomplete:
					flagged++
				}
			}
			if len(recs) != n || flagged+errs == 0 || flagged+errs == n {
				t.Fatalf("%d records, %d flagged, %d errors; want %d records, some but not all incomplete", len(recs), flagged, errs, n)
			}
			doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
			if strict {
				if flagged != 0 {
					t.Errorf("%d records flagged under --strict-streams; want all incomplete ones as errors", flagged)
				}
				return
			}
			if errs != 0 {
				t.Errorf("%d StreamIncompleteError records without --strict-streams", errs)
			}
			if got := avg(t, doc, "stream_incomplete_count"); int(got) != flagged {
				t.Errorf("stream_incomplete_count = %v; %d records flagged", got, flagged)
			}
			if c := strings.Count(out, "Incomplete Streams"); c != 1 {
				t.Errorf("the console names incomplete streams %d times; want once:\n%s", c, out)
			}
		})
	}
}

// TestRunIgnoresChunksAfterDone: a server that keeps sending after
// [DONE] gets no output token counted for it.
func TestRunIgnoresChunksAfterDone(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(s string) string {
			return `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + s + `"}}]}` + "\n\n"
		}
		io.WriteString(w, chunk("one")+chunk(" two")+"data: [DONE]\n\n"+chunk(" three four five six"))
	}))
	t.Cleanup(srv.Close)
	cfg := baseConfig(t, srv.URL)
	cfg.Load.RequestCount = ptr(2)
	cfg.Input.OutputTokens.Mean = nil
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	for _, r := range readFaultRecords(t, cfg.Output.ArtifactDir) {
		if osl, ok := r.scalar("output_sequence_length"); !ok || osl != 2 {
			t.Errorf("output_sequence_length = %v (%v); want 2, the tokens before [DONE]", osl, ok)
		}
	}
}

// closedPort returns a URL at which nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	return url
}

// TestRunStopsWhenNothingListens: a run whose first requests are all
// refused stops at once with one message naming the URL, instead of
// recording a thousand refusals; --keep-going-when-unreachable sends them
// all, pausing between refusals.
func TestRunStopsWhenNothingListens(t *testing.T) {
	t.Parallel()
	url := closedPort(t)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(1000)
	cfg.Load.Concurrency = ptr(4)
	out, err := run(t, context.Background(), cfg)
	if exitCode(err) != config.ExitFailure || !strings.Contains(err.Error(), "nothing is listening at "+url) {
		t.Fatalf("Run = %v (exit %d); want exit 1 saying nothing is listening at %s\n%s", err, exitCode(err), url, out)
	}
	if n := len(lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))); n >= 100 {
		t.Errorf("%d records written for a dead server; want the run stopped after the first few", n)
	}

	cfg = baseConfig(t, url)
	cfg.Load.RequestCount = ptr(8)
	cfg.Load.Concurrency = ptr(1)
	cfg.Reliability.KeepGoingUnreachable = true
	out, err = run(t, context.Background(), cfg)
	if exitCode(err) != config.ExitFailure || strings.Contains(err.Error(), "nothing is listening") {
		t.Fatalf("Run = %v; want every request sent and failed (exit 1)\n%s", err, out)
	}
	if n := len(lines(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))); n != 8 {
		t.Errorf("%d records; want all 8 with --keep-going-when-unreachable", n)
	}
}

// TestRunAllFailedPrintsErrorTable: when every request failed, the console
// shows the error table and the main table's counts, not group tables of
// zeros.
func TestRunAllFailedPrintsErrorTable(t *testing.T) {
	t.Parallel()
	url, _ := faultMock(t, func(c *mockserver.Config) {
		c.Faults = []mockserver.FaultRate{{Fault: mockserver.FaultHTTP500, Rate: 1}}
	}, nil)
	cfg := faultConfig(t, url, true, 4)
	out, err := run(t, context.Background(), cfg)
	if exitCode(err) != config.ExitFailure {
		t.Fatalf("Run = %v; want exit 1 after every request failed", err)
	}
	if !strings.Contains(out, "Error Summary") || !strings.Contains(out, "Request Error Rate") {
		t.Errorf("the console lacks the error table or the error rate:\n%s", out)
	}
	if strings.Contains(out, "LLM Metrics: Effective") {
		t.Errorf("the console prints the effective-metrics table for a run without a good request:\n%s", out)
	}
}

// TestPoolCap: the pooled strategy caps connections at the largest phase
// concurrency; a single-turn request-rate phase without one at AIPerf's
// connection limit (AIPERF_HTTP_CONNECTION_LIMIT, 2500 by default);
// user-centric, multi-turn, adaptive scale or another strategy leave the
// transport uncapped.
func TestPoolCap(t *testing.T) {
	t.Parallel()
	phase := func(c, users int) *PhaseSpec { return &PhaseSpec{Concurrency: c, Users: users} }
	for _, tc := range []struct {
		name     string
		reuse    config.ConnectionReuse
		phases   []*PhaseSpec
		adaptive bool
		want     int
	}{
		{"one phase", config.ReusePooled, []*PhaseSpec{phase(8, 0)}, false, 8},
		{"warmup wider", config.ReusePooled, []*PhaseSpec{phase(16, 0), phase(8, 0)}, false, 16},
		{"rate without concurrency", config.ReusePooled, []*PhaseSpec{phase(4, 0), phase(0, 0)}, false, DefaultConnectionLimit},
		{"rate without concurrency, multi-turn", config.ReusePooled, []*PhaseSpec{phase(0, 0)}, false, 0},
		{"user-centric", config.ReusePooled, []*PhaseSpec{phase(4, 10)}, false, 0},
		{"adaptive", config.ReusePooled, []*PhaseSpec{phase(4, 0)}, true, 0},
		{"never", config.ReuseNever, []*PhaseSpec{phase(4, 0)}, false, 0},
		{"sticky", config.ReuseSticky, []*PhaseSpec{phase(4, 0)}, false, 0},
	} {
		cfg := &config.Config{}
		cfg.Endpoint.ConnectionReuse = tc.reuse
		plan := &Plan{Config: cfg, Phases: tc.phases}
		plan.Sessions.MultiTurn = strings.HasSuffix(tc.name, "multi-turn")
		if tc.adaptive {
			plan.Adaptive = &adaptive.Config{}
		}
		if got := poolCap(plan); got != tc.want {
			t.Errorf("%s: poolCap = %d; want %d", tc.name, got, tc.want)
		}
	}
}

// TestConnectionLimit: AIPERF_HTTP_CONNECTION_LIMIT within AIPerf's range
// (1-65000) sets the cap; anything else leaves AIPerf's default.
func TestConnectionLimit(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want int
	}{
		{"", DefaultConnectionLimit},
		{"64", 64},
		{"65000", 65000},
		{"0", DefaultConnectionLimit},
		{"65001", DefaultConnectionLimit},
		{"many", DefaultConnectionLimit},
	} {
		if got := connectionLimit(environ.Snapshot{"AIPERF_HTTP_CONNECTION_LIMIT": tc.env}); got != tc.want {
			t.Errorf("AIPERF_HTTP_CONNECTION_LIMIT=%q: %d; want %d", tc.env, got, tc.want)
		}
	}
}

// TestRunFailingAtStartStillWritesInputs: a run whose prompts are built
// as they are sent (more conversations than are built ahead) and that
// fails before its first request (the span receiver's port is taken)
// still leaves inputs.json, as a run building its prompts ahead does.
func TestRunFailingAtStartStillWritesInputs(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.RequestCount = ptr(100)
	cfg.Fidelity.OTLPTracesReceiver = taken.Addr().String()
	out, err := run(t, context.Background(), cfg)
	if err == nil {
		t.Fatalf("Run succeeded with the receiver's port taken\n%s", out)
	}
	var inputs struct {
		Data []json.RawMessage `json:"data"`
	}
	raw, rerr := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "inputs.json"))
	if rerr != nil || json.Unmarshal(raw, &inputs) != nil {
		t.Fatalf("inputs.json after a failed start: %v (Run: %v)", rerr, err)
	}
	if len(inputs.Data) != 100 {
		t.Errorf("inputs.json has %d sessions; want 100", len(inputs.Data))
	}
}
