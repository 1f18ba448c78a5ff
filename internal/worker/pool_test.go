package worker

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// seen is what a test server observed about one request.
type seen struct {
	server      string
	body        string
	requestID   string
	correlation string
	custom      string
}

func newServer(t *testing.T, name string, mu *sync.Mutex, log *[]seen, block <-chan struct{}) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		*log = append(*log, seen{name, string(b), r.Header.Get("X-Request-ID"), r.Header.Get("X-Correlation-ID"), r.Header.Get("X-Custom")})
		mu.Unlock()
		if block != nil {
			select {
			case <-block:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func twoTurnDataset() (*dataset.Dataset, [][][]byte) {
	ds := &dataset.Dataset{Conversations: []dataset.Conversation{
		{ID: "session_000000", Turns: []dataset.Turn{{Texts: []string{"a"}, InputTokens: 1, MaxTokens: 4}, {Texts: []string{"b"}, InputTokens: 1}}},
		{ID: "session_000001", Turns: []dataset.Turn{{Texts: []string{"c"}, InputTokens: 1}}},
	}}
	payloads := [][][]byte{{[]byte(`{"t":"a"}`), []byte(`{"t":"b"}`)}, {[]byte(`{"t":"c"}`)}}
	return ds, payloads
}

func TestPoolRunsConversationsInOrderWithHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var log []seen
	a := newServer(t, "a", &mu, &log, nil)
	b := newServer(t, "b", &mu, &log, nil)
	ds, payloads := twoTurnDataset()
	out := make(chan *record.Record, 16)
	var doneMu sync.Mutex
	var done []uint64
	picks := []int{0, 1, 0, 1}
	pick := 0
	p, err := NewPool(context.Background(), Options{
		Sender:   transport.New(transport.Options{}),
		Clock:    clock.New(),
		Dataset:  ds,
		Payloads: payloads,
		URLs:     []string{a.URL, b.URL},
		Header:   http.Header{"X-Custom": {"v"}, "Content-Type": {"application/json"}},
		Pick:     func() int { pick++; return picks[pick-1] },
		Out:      out,
		Done: func(c timing.Credit) {
			doneMu.Lock()
			done = append(done, c.Seq)
			doneMu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		p.Dispatch(timing.Credit{Seq: uint64(i), Phase: record.Profiling})
	}
	p.Close()
	close(out)

	var recs []*record.Record
	for r := range out {
		recs = append(recs, r)
	}
	if len(recs) != 6 { // 2 two-turn + 2 one-turn conversations
		t.Fatalf("got %d records; want 6", len(recs))
	}
	if len(done) != 4 {
		t.Errorf("Done called %d times; want 4", len(done))
	}
	ids := map[string]bool{}
	byCredit := map[uint64][]*record.Record{}
	for _, r := range recs {
		if r.Error != nil {
			t.Fatalf("record %d failed: %+v", r.Seq, r.Error)
		}
		if ids[r.XRequestID] {
			t.Errorf("duplicate X-Request-ID %s", r.XRequestID)
		}
		ids[r.XRequestID] = true
		if r.URLIndex != int(r.Seq%2) {
			t.Errorf("credit %d used URL %d; want round robin %d", r.Seq, r.URLIndex, r.Seq%2)
		}
		byCredit[r.Seq] = append(byCredit[r.Seq], r)
	}
	for seq, rs := range byCredit {
		for i, r := range rs {
			if r.TurnIndex != i {
				t.Errorf("credit %d: turn %d arrived as index %d", seq, r.TurnIndex, i)
			}
			if r.XCorrelationID != rs[0].XCorrelationID {
				t.Errorf("credit %d: turns carry different correlation ids", seq)
			}
			if i > 0 && r.Sent < rs[i-1].End {
				t.Errorf("credit %d: turn %d sent before turn %d finished", seq, i, i-1)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	bodies := map[string]int{}
	for _, s := range log {
		bodies[s.body]++
		if s.custom != "v" || !ids[s.requestID] || s.correlation == "" {
			t.Errorf("server saw headers %+v", s)
		}
	}
	if bodies[`{"t":"a"}`] != 2 || bodies[`{"t":"b"}`] != 2 || bodies[`{"t":"c"}`] != 2 {
		t.Errorf("server saw bodies %v", bodies)
	}
}

func TestPoolCancelEndsRequestsAsCancelled(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a client disconnect only once the body is read
		arrived <- struct{}{}
		<-r.Context().Done() // hold the request until the client gives up
	}))
	defer srv.Close()
	ds, payloads := twoTurnDataset()
	out := make(chan *record.Record, 16)
	p, err := NewPool(context.Background(), Options{
		Sender: transport.New(transport.Options{}), Clock: clock.New(), Dataset: ds, Payloads: payloads,
		URLs: []string{srv.URL}, Pick: func() int { return 1 }, Out: out, Done: func(timing.Credit) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p.Dispatch(timing.Credit{Seq: uint64(i)})
	}
	if got := p.InFlight(); got != 3 {
		t.Errorf("InFlight() = %d; want 3", got)
	}
	for range 3 {
		<-arrived
	}
	p.Cancel()
	p.Close()
	close(out)
	n := 0
	for r := range out {
		n++
		// Cut off by the pool's end (the grace period over), not by a
		// planned cancellation: the phase-end type, which is no error.
		if !r.Cancelled || r.Error == nil || r.Error.Code != record.CancelledCode || !r.CancelledAtPhaseEnd() {
			t.Errorf("record %d: cancelled=%v error=%+v; want a 499 %s", r.Seq, r.Cancelled, r.Error, record.TypePhaseEndCancelled)
		}
	}
	if n != 3 {
		t.Errorf("got %d records; want 3", n)
	}
	if got := p.InFlight(); got != 0 {
		t.Errorf("InFlight() after Close = %d; want 0", got)
	}
}

func TestNewPoolRejectsMissingOptions(t *testing.T) {
	t.Parallel()
	ds, payloads := twoTurnDataset()
	if _, err := NewPool(context.Background(), Options{Dataset: ds, Payloads: payloads}); err == nil {
		t.Error("NewPool accepted options without a sender, clock, picker, output and done")
	}
}

// TestPoolStartedOncePerCredit: Options.Started (the scheduler's backlog)
// hears of every credit exactly once: as its first request goes out, with
// the server not yet answered, or, when the request budget is spent before
// anything was sent, as the conversation ends.
func TestPoolStartedOncePerCredit(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var log []seen
	srv := newServer(t, "a", &mu, &log, nil)
	ds, payloads := twoTurnDataset()
	out := make(chan *record.Record, 16)
	var startedMu sync.Mutex
	started := map[uint64]int{}
	p, err := NewPool(context.Background(), Options{
		Sender:   transport.New(transport.Options{}),
		Clock:    clock.New(),
		Dataset:  ds,
		Payloads: payloads,
		URLs:     []string{srv.URL},
		Pick:     func() int { return 0 }, // two turns each
		Out:      out,
		Budget:   NewBudget(3),
		Done:     func(timing.Credit) {},
		Started: func(c timing.Credit) {
			startedMu.Lock()
			started[c.Seq]++
			startedMu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		p.Dispatch(timing.Credit{Seq: uint64(i), Phase: record.Profiling})
	}
	p.Close()
	close(out)
	n := 0
	for range out {
		n++
	}
	if n != 3 {
		t.Errorf("%d records, want 3 (the budget)", n)
	}
	for seq := range uint64(3) {
		if started[seq] != 1 {
			t.Errorf("credit %d: Started called %d times, want once (sent or not)", seq, started[seq])
		}
	}
}

// TestRequestHeader: the base headers, then the turn's, X-Request-ID and
// the session headers, later ones replacing earlier values as Header.Set
// would; the base is never modified, and building one costs a map and one
// array of values.
func TestRequestHeader(t *testing.T) {
	ds, payloads := twoTurnDataset()
	base := http.Header{"Content-Type": {"application/json"}, "X-Custom": {"v"}, "X-Session-Affinity": {"stale"}}
	p, err := NewPool(context.Background(), Options{
		Sender: transport.New(transport.Options{}), Clock: clock.New(), Dataset: ds, Payloads: payloads,
		URLs: []string{"http://127.0.0.1:1"}, Header: base, Out: make(chan *record.Record),
		Done: func(timing.Credit) {}, AffinityHeaders: []string{"x-session-affinity"},
	})
	if err != nil {
		t.Fatal(err)
	}
	turn := &dataset.Turn{Headers: []dataset.Header{{Name: "x-custom", Value: "turn"}, {Name: "X-Request-ID", Value: "overridden"}}}
	h := p.requestHeader(turn, "req-1", "sess-1")
	want := map[string]string{
		"Content-Type":       "application/json",
		"X-Custom":           "turn",
		"X-Request-Id":       "req-1",
		"X-Correlation-Id":   "sess-1",
		"X-Session-Affinity": "sess-1",
	}
	if len(h) != len(want) {
		t.Errorf("header %v; want the %d keys of %v", h, len(want), want)
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q; want [%q]", k, got, v)
		}
	}
	h.Add("Content-Type", "text/plain")
	if got := base.Values("Content-Type"); len(got) != 1 || base.Get("X-Session-Affinity") != "stale" {
		t.Errorf("the base header changed: %v", base)
	}
	// The common case: no per-turn headers (a key given in another case
	// than http.Header's costs one string more).
	plain := &dataset.Turn{}
	if n := testing.AllocsPerRun(50, func() { _ = p.requestHeader(plain, "req-1", "sess-1") }); n > 3 {
		t.Errorf("%v allocations per header, want at most 3 (map, its entries, the values)", n)
	}
}
