package cluster

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
	"github.com/aiperf-go/aiperf/internal/worker"
)

// testRunner runs every phase's credits as real HTTP requests to url.
type testRunner struct {
	url    string
	client *transport.Client
	ds     *dataset.Dataset
}

func (r *testRunner) NewPool(ctx context.Context, ph PhaseInfo, h Hooks) (*worker.Pool, error) {
	payloads := make([][][]byte, r.ds.Len())
	for c, conv := range r.ds.Conversations {
		for range conv.Turns {
			payloads[c] = append(payloads[c], []byte(`{}`))
		}
	}
	return worker.NewPool(ctx, worker.Options{
		Sender: r.client, Clock: h.Clock, Dataset: r.ds, Payloads: payloads, URLs: []string{r.url},
		Emit: h.Emit, OnSend: h.OnSend, Done: h.Done, PhaseName: ph.Name,
	})
}

// harness is a controller on a loopback port and in-process agents.
type harness struct {
	t      *testing.T
	clk    *clock.Clock
	ctl    *Controller
	addr   string
	ds     *dataset.Dataset
	mu     sync.Mutex
	agents []*testAgent
}

type testAgent struct {
	cancel context.CancelFunc
	done   chan error
}

func newHarness(t *testing.T, turns int) *harness {
	t.Helper()
	clk := clock.New()
	ctl := NewController(ControllerOptions{Clock: clk, Version: "test"})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ctl.Serve(l) }()
	conv := dataset.Conversation{ID: "c0"}
	for range turns {
		conv.Turns = append(conv.Turns, dataset.Turn{Texts: []string{"hi"}, InputTokens: 1})
	}
	h := &harness{t: t, clk: clk, ctl: ctl, addr: l.Addr().String(), ds: &dataset.Dataset{Conversations: []dataset.Conversation{conv}}}
	ctl.SetSetup([]byte("the setup"))
	t.Cleanup(func() {
		ctl.Close(5 * time.Second)
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		h.mu.Lock()
		agents := h.agents
		h.mu.Unlock()
		for _, a := range agents {
			if err := <-a.done; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrControllerLost) {
				t.Errorf("agent: %v", err)
			}
		}
	})
	return h
}

// agent starts an in-process worker sending its requests to url.
func (h *harness) agent(name, url string) *testAgent {
	ctx, cancel := context.WithCancel(context.Background())
	client := transport.New(transport.Options{})
	a := &testAgent{cancel: cancel, done: make(chan error, 1)}
	go func() {
		defer client.Close()
		a.done <- RunAgent(ctx, AgentOptions{
			Controller: h.addr, Name: name, Version: "test",
			Build: func(setup []byte) (Runner, error) {
				if string(setup) != "the setup" {
					return nil, errors.New("wrong setup")
				}
				return &testRunner{url: url, client: client, ds: h.ds}, nil
			},
		})
	}()
	h.mu.Lock()
	h.agents = append(h.agents, a)
	h.mu.Unlock()
	return a
}

// run drives one closed-loop phase of count credits at concurrency
// through the controller and returns its records.
func (h *harness) run(ctx context.Context, o PhaseOptions, concurrency, count int, during func(p *Phase)) []*record.Record {
	h.t.Helper()
	sched, err := timing.New(timing.Options{Concurrency: concurrency, Count: count})
	if err != nil {
		h.t.Fatal(err)
	}
	out := make(chan *record.Record, 16)
	o.Pick, o.Out, o.Done = func() int { return 0 }, out, sched.Done
	p, err := h.ctl.StartPhase(ctx, o)
	if err != nil {
		h.t.Fatal(err)
	}
	var recs []*record.Record
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for r := range out {
			recs = append(recs, r)
		}
	}()
	if during != nil {
		go during(p)
	}
	sched.Run(ctx, h.clk, p.Dispatch)
	p.Close()
	close(out)
	<-collected
	return recs
}

func okServer(t *testing.T, hits *sync.Map) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits != nil {
			hits.Store(r.Header.Get("X-Request-ID"), r.URL.Path)
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func TestPhaseSpreadsCreditsOverWorkersAndReturnsEveryRecord(t *testing.T) {
	h := newHarness(t, 1)
	var hits sync.Map
	srv := okServer(t, &hits)
	for _, n := range []string{"a", "b", "c"} {
		h.agent(n, srv.URL+"/"+n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.ctl.WaitReady(ctx, 3); err != nil {
		t.Fatal(err)
	}
	var sends sync.Map
	recs := h.run(ctx, PhaseOptions{Phase: record.Profiling, OnSend: func(r *record.Record) { sends.Store(r.XRequestID, r.Sent) }}, 6, 90, nil)
	if len(recs) != 90 {
		t.Fatalf("%d records; want 90", len(recs))
	}
	byWorker := map[string]int{}
	seen := map[string]bool{}
	for _, r := range recs {
		if r.Error != nil || r.Status != 200 {
			t.Fatalf("record %d failed: status %d %v", r.Seq, r.Status, r.Error)
		}
		if seen[r.XRequestID] {
			t.Fatalf("request %s recorded twice", r.XRequestID)
		}
		seen[r.XRequestID] = true
		if _, ok := hits.Load(r.XRequestID); !ok {
			t.Errorf("request %s never reached the server", r.XRequestID)
		}
		if _, ok := sends.Load(r.XRequestID); !ok {
			t.Errorf("request %s was never reported sent", r.XRequestID)
		}
		w, _, _ := strings.Cut(r.WorkerID, "/")
		byWorker[w]++
		// A credit goes out on the controller at Due and is sent on a
		// worker afterwards: on the aligned clock Sent can precede Due
		// only by the clock estimate's error, at most half a round trip.
		if r.Sent < r.Due-5*time.Millisecond || r.End < r.Sent {
			t.Errorf("record %d: due %v sent %v end %v: not on the controller's timeline", r.Seq, r.Due, r.Sent, r.End)
		}
	}
	if len(byWorker) != 3 {
		t.Errorf("records by worker %v; want all three workers used", byWorker)
	}
	for _, wi := range h.ctl.Workers() {
		if wi.State != "ready" || wi.Requests != wi.Records || wi.ClockSamples != startSamples {
			t.Errorf("worker %+v", wi)
		}
		if wi.ClockRTTNs <= 0 || wi.ClockRTTNs > int64(time.Second) {
			t.Errorf("worker %s clock rtt %v", wi.ID, time.Duration(wi.ClockRTTNs))
		}
	}
}

func TestLostWorkerInFlightRequestsBecomeErrorsAndNothingIsDuplicated(t *testing.T) {
	h := newHarness(t, 1)
	var hits sync.Map
	stuck := make(chan string, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Store(r.Header.Get("X-Request-ID"), r.URL.Path)
		if r.URL.Path == "/victim" { // hangs until the client goes away
			// net/http notices a client hanging up only once the
			// request body has been read.
			io.Copy(io.Discard, r.Body)
			stuck <- r.Header.Get("X-Request-ID")
			<-r.Context().Done()
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(srv.Close)
	victim := h.agent("victim", srv.URL+"/victim")
	h.agent("survivor", srv.URL+"/survivor")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.ctl.WaitReady(ctx, 2); err != nil {
		t.Fatal(err)
	}
	survivor := ""
	for _, wi := range h.ctl.Workers() {
		if wi.Name == "survivor" {
			survivor = wi.ID
		}
	}
	var inFlight []string
	recs := h.run(ctx, PhaseOptions{Phase: record.Profiling}, 4, 60, func(*Phase) {
		// The victim takes its share of the first credits and hangs on
		// them; kill it once two are stuck on the server.
		inFlight = append(inFlight, <-stuck, <-stuck)
		victim.cancel()
	})
	if len(recs) != 60 {
		t.Fatalf("%d records; want 60 (every credit accounted for exactly once)", len(recs))
	}
	seen := map[string]bool{}
	var lost []*record.Record
	for _, r := range recs {
		if seen[r.XRequestID] {
			t.Fatalf("request %s recorded twice", r.XRequestID)
		}
		seen[r.XRequestID] = true
		switch {
		case r.Error != nil && r.Error.Type == TypeWorkerLost:
			lost = append(lost, r)
		case r.Error != nil:
			t.Errorf("record %d: unexpected error %+v", r.Seq, r.Error)
		case !strings.HasPrefix(r.WorkerID, survivor+"/"):
			t.Errorf("record %d completed on %s after the victim was killed", r.Seq, r.WorkerID)
		}
	}
	if len(lost) != 2 {
		t.Fatalf("%d lost-worker errors; want the 2 requests the victim had in flight", len(lost))
	}
	for i, r := range lost {
		if r.XRequestID != inFlight[0] && r.XRequestID != inFlight[1] {
			t.Errorf("lost record %d is %s; the victim had %v in flight", i, r.XRequestID, inFlight)
		}
		if r.Sent <= 0 || r.End < r.Sent || !strings.Contains(r.Error.Message, "victim") {
			t.Errorf("lost record %+v", r)
		}
	}
	var victimInfo WorkerInfo
	for _, wi := range h.ctl.Workers() {
		if wi.Name == "victim" {
			victimInfo = wi
		}
	}
	if victimInfo.State != "lost" || victimInfo.LostInFlight != 2 || victimInfo.Error == "" {
		t.Errorf("victim %+v", victimInfo)
	}
}

func TestPhaseWithoutWorkersReportsIt(t *testing.T) {
	h := newHarness(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var cause error
	recs := h.run(ctx, PhaseOptions{Phase: record.Profiling, NoWorkers: func(err error) { cause = err }}, 2, 4, nil)
	if len(recs) != 0 || !errors.Is(cause, ErrNoWorkers) {
		t.Errorf("records %d, cause %v; want none and ErrNoWorkers", len(recs), cause)
	}
}

func TestBudgetIsReservedPerConversationAndRefunded(t *testing.T) {
	h := newHarness(t, 3)
	srv := okServer(t, nil)
	h.agent("a", srv.URL)
	h.agent("b", srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.ctl.WaitReady(ctx, 2); err != nil {
		t.Fatal(err)
	}
	budget := worker.NewBudget(10) // 3 + 3 + 3 + 1 turns
	sched, err := timing.New(timing.Options{Concurrency: 2, Exhausted: budget.Exhausted})
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan *record.Record, 64)
	p, err := h.ctl.StartPhase(ctx, PhaseOptions{Phase: record.Profiling, Pick: func() int { return 0 }, Turns: func(int) int { return 3 },
		Budget: budget, Out: out, Done: sched.Done})
	if err != nil {
		t.Fatal(err)
	}
	sched.Run(ctx, h.clk, p.Dispatch)
	p.Close()
	close(out)
	turns := map[uint64]int{}
	n := 0
	for r := range out {
		n++
		turns[r.Seq]++
	}
	if n != 10 || len(turns) != 4 {
		t.Errorf("%d requests in %d conversations (%v); want 10 in 4", n, len(turns), turns)
	}
}
