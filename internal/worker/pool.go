// Package worker turns credits into requests: for each credit a worker runs
// one conversation's turns in order, sends each through the transport, and
// hands the finished records downstream.
//
// The scheduler must never block on a busy worker, so Dispatch hands a
// credit to an idle worker if one is waiting and otherwise starts a new one:
// the pool grows to the concurrency the load actually needs (closed-loop
// runs never exceed --concurrency; open-loop runs grow with what is in
// flight), as vegeta does, and lateness is recorded on every record rather
// than hidden by a queue.
package worker

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/endpoint"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// Sender sends one request and fills the record's timing and outcome.
// *transport.Client implements it. Do calls req.OnSent, when set, exactly
// once, as it stamps the record's Sent (transport.Request.OnSent): the
// pool's OnSend rides on it.
type Sender interface {
	Do(ctx context.Context, clk *clock.Clock, req *transport.Request, rec *record.Record)
}

var _ Sender = (*transport.Client)(nil)

// ResponseParser parses one response chunk; endpoint.Endpoint implements
// it.
type ResponseParser interface {
	ParseResponse(data []byte) (record.Parsed, error)
}

// SessionEnder is a Sender that keeps state per session (a sticky
// connection): EndSession is called once each conversation is over, after
// its last request or when it ends early.
type SessionEnder interface {
	EndSession(session string)
}

var _ SessionEnder = (*transport.Client)(nil)

// Options configure a Pool. Every field except Header is required.
type Options struct {
	Sender  Sender
	Clock   *clock.Clock
	Dataset *dataset.Dataset
	// Payloads[c][t] is the request body for turn t of conversation c,
	// built once by the endpoint before the run (the same bytes inputs.json
	// records); nil for a turn whose prompt is built when it is sent
	// (dataset.Prompt), whose body is built then with Endpoint.
	Payloads [][][]byte
	// URLs are full request URLs (base URL plus endpoint path); requests go
	// round robin by credit sequence number.
	URLs []string
	// Header holds the headers every request carries (Content-Type,
	// Authorization, -H); the pool adds X-Request-ID and X-Correlation-ID.
	Header http.Header
	// KeepRequestHeader keeps each request's headers on its record
	// (Record.RequestHeader), for the raw export.
	KeepRequestHeader bool
	// SessionHeader names the per-session affinity header; empty means
	// X-Correlation-ID.
	SessionHeader string
	// Pick chooses the conversation for the next credit. It is called only
	// from Dispatch, i.e. from the scheduler goroutine. A pool that is only
	// given credits with DispatchConversation needs none.
	Pick func() int
	// Out receives every finished record, in completion order.
	Out chan<- *record.Record
	// Emit, when set, receives every finished record instead of Out, on
	// the goroutine that ran the request. With OnSend and Done it sees a
	// conversation's events in the order they happened: each request's
	// OnSend before its record, every record of a credit before its Done.
	Emit func(*record.Record)
	// Done returns a credit once its conversation is finished.
	Done func(timing.Credit)
	// Started, when set, is called once per credit as its conversation's
	// first request goes out, or as the conversation ends without sending
	// any (timing.Scheduler.Started: the scheduler's backlog).
	Started func(timing.Credit)

	// Endpoint, when set, builds the body of every turn after the first at
	// run time, with the conversation's history (earlier turns and the
	// server's actual replies, parsed from their responses) in
	// EOptions.History. nil sends Payloads as they are (no history).
	Endpoint endpoint.Endpoint
	EOptions *endpoint.Options
	// BodyEndpoint and BodyOptions build, when it is sent, the body of a
	// turn that has no Payloads entry (a lazy trace prompt,
	// dataset.Prompt) and no history; Endpoint and EOptions take their
	// place when set.
	BodyEndpoint endpoint.Endpoint
	BodyOptions  *endpoint.Options
	// FixedSchedule marks a trace replay: first turns are due at their
	// credit's absolute Due, and a later turn with a timestamp is due at
	// credit.Due + (its timestamp - the first turn's), not before the
	// previous turn finished. Those records are Record.Scheduled.
	FixedSchedule bool
	// CapDelays clamps every inter-turn Delay to DelayCap
	// (--inter-turn-delay-cap-seconds).
	CapDelays bool
	DelayCap  time.Duration
	// Budget, when set, bounds the requests (turns) the pool sends; a
	// conversation ends when it is spent. nil means no request bound.
	Budget *Budget
	// PhaseName, PhaseIndex and ProfilingIndex are stamped on every
	// record (see record.Record).
	PhaseName                  string
	PhaseIndex, ProfilingIndex int
	// Prefill, when set, is the prefill-concurrency gate: each request
	// (turn) takes a slot before it is sent and gives it back at its first
	// content chunk, parsed with Parser (required then), or when it ends.
	Prefill *timing.Gate
	Parser  ResponseParser
	// Wire, when set, is the request-concurrency gate: each request
	// (turn) takes a slot before it is sent (before its prefill slot) and
	// gives it back when it ends, so no more requests are on the wire
	// than its limit, whatever conversations and forks sent them.
	Wire *timing.Gate
	// OnSend, when set, is called as each request (turn) is sent, from the
	// worker's goroutine, with the request's record the moment its Sent is
	// stamped (it is every request's transport.Request.OnSent), before the
	// first byte is written: a live count of requests, which
	// with multi-turn conversations differs from the count of credits. The
	// record must not be kept.
	OnSend func(rec *record.Record)
	// OnSessionStart and OnSessionEnd, when set, are called from the
	// worker's goroutine as a conversation (AIPerf's session) sends its
	// first turn, with how many turns it may send, and as it ends after
	// that: cancelled when its last request was cancelled, or when the pool
	// was cancelled (not merely told to stop sending) while it waited for
	// its next turn. A single-turn dataset makes every request a session,
	// as in AIPerf. Streams driven by SendTurn report neither.
	OnSessionStart func(turns int)
	OnSessionEnd   func(cancelled bool)

	// AffinityHeaders are sent with the session's correlation id besides
	// SessionHeader (AIPerf's X-Session-Affinity, on by default, and the
	// optional X-Session-ID, X-SMG-Routing-Key, X-Dynamo-Session-ID).
	AffinityHeaders []string
	// RequestIDHeaders are sent with the request's X-Request-ID value
	// besides X-Request-ID (SageMaker's X-Amzn-SageMaker-Inference-Id).
	RequestIDHeaders []string
	// Multipart encodes each JSON payload as multipart/form-data on the
	// way out (endpoints that upload files); Payloads stay JSON.
	Multipart bool
	// Polling, when set, runs each request as an asynchronous job
	// (video generation): see Polling.
	Polling *Polling
	// CacheBust, when set, marks requests against prefix caching
	// (--cache-bust); those bodies are built at send time.
	CacheBust *CacheBust
	// CountImages counts the image parts of a body for Record.Images; nil
	// counts OpenAI image_url parts.
	CountImages func(body []byte) int
}

type job struct {
	credit timing.Credit
	conv   int
}

// Pool runs credits. Dispatch is called from one goroutine (the
// scheduler); Wait, Cancel and the counters from any.
type Pool struct {
	o      Options
	ctx    context.Context
	cancel context.CancelFunc
	jobs   chan job
	wg     sync.WaitGroup

	workers  atomic.Int64
	inFlight atomic.Int64
	closing  chan struct{}
	once     sync.Once

	// stop is closed by StopSending: no further turn starts.
	stop     chan struct{}
	stopOnce sync.Once

	// sessionKeys are SessionHeader then AffinityHeaders, canonicalised
	// once: each request carries the session's correlation id under them.
	sessionKeys []string
	// requestIDKeys are RequestIDHeaders, canonicalised once.
	requestIDKeys []string
}

// NewPool returns a pool whose requests run under parent. Cancel (or
// cancelling parent) aborts every request in flight; those records end as
// client cancellations.
func NewPool(parent context.Context, o Options) (*Pool, error) {
	switch {
	case o.Sender == nil, o.Clock == nil, o.Dataset == nil, (o.Out == nil && o.Emit == nil), o.Done == nil:
		return nil, fmt.Errorf("worker pool: missing required option")
	case len(o.URLs) == 0:
		return nil, fmt.Errorf("worker pool: no URLs")
	case len(o.Payloads) != o.Dataset.Len():
		return nil, fmt.Errorf("worker pool: %d payload sets for %d conversations", len(o.Payloads), o.Dataset.Len())
	case o.CacheBust != nil && (o.CacheBust.Endpoint == nil || o.CacheBust.EOptions == nil):
		return nil, fmt.Errorf("worker pool: cache bust needs the endpoint and its options")
	case o.Endpoint != nil && o.EOptions == nil:
		return nil, fmt.Errorf("worker pool: an endpoint needs its options")
	case o.BodyEndpoint != nil && o.BodyOptions == nil:
		return nil, fmt.Errorf("worker pool: a body endpoint needs its options")
	case o.Prefill != nil && o.Parser == nil:
		return nil, fmt.Errorf("worker pool: a prefill gate needs a response parser to see first tokens")
	}
	if o.SessionHeader == "" {
		o.SessionHeader = "X-Correlation-ID"
	}
	idKeys := make([]string, 0, len(o.RequestIDHeaders))
	for _, h := range o.RequestIDHeaders {
		idKeys = append(idKeys, http.CanonicalHeaderKey(h))
	}
	keys := []string{http.CanonicalHeaderKey(o.SessionHeader)}
	for _, h := range o.AffinityHeaders {
		keys = append(keys, http.CanonicalHeaderKey(h))
	}
	ctx, cancel := context.WithCancel(parent)
	return &Pool{o: o, ctx: ctx, cancel: cancel, jobs: make(chan job), closing: make(chan struct{}), stop: make(chan struct{}), sessionKeys: keys, requestIDKeys: idKeys}, nil
}

// Dispatch starts the credit's conversation without blocking: an idle
// worker takes it, or a new worker starts. The conversation is Options.Pick's.
func (p *Pool) Dispatch(c timing.Credit) { p.DispatchConversation(c, p.o.Pick()) }

// DispatchConversation is Dispatch for a conversation chosen elsewhere (a
// load worker is told which one by its controller). conv must index
// Options.Dataset.
func (p *Pool) DispatchConversation(c timing.Credit, conv int) {
	j := job{credit: c, conv: conv}
	p.inFlight.Add(1)
	select {
	case p.jobs <- j:
	default:
		n := p.workers.Add(1)
		p.wg.Add(1)
		go p.work(fmt.Sprintf("worker_%d", n-1), j)
	}
}

// work runs j, then waits for more jobs until the pool closes.
func (p *Pool) work(id string, j job) {
	defer p.wg.Done()
	for {
		p.run(id, j)
		select {
		case j = <-p.jobs:
		case <-p.closing:
			return
		}
	}
}

// run sends the job's conversation, then returns the credit.
func (p *Pool) run(workerID string, j job) {
	defer func() {
		p.inFlight.Add(-1)
		p.o.Done(j.credit)
	}()
	p.session(workerID, j)
}

// InFlight returns the number of credits dispatched and not yet done.
func (p *Pool) InFlight() int { return int(p.inFlight.Load()) }

// Workers returns how many worker goroutines the pool has started.
func (p *Pool) Workers() int { return int(p.workers.Load()) }

// StopSending ends every conversation at its next turn boundary: requests
// in flight finish, but no turn starts afterwards (a pause between turns
// is cut short). Call it when the phase stops issuing because its duration
// ran out or it was interrupted, as AIPerf's stop conditions gate every
// turn, not only first turns. Safe to call more than once, from any
// goroutine.
func (p *Pool) StopSending() { p.stopOnce.Do(func() { close(p.stop) }) }

// Cancel aborts every request in flight; their records end as client
// cancellations (code 499). Dispatch must not be called afterwards.
func (p *Pool) Cancel() { p.cancel() }

// Close waits for the credits in flight to finish, then stops the idle
// workers. Dispatch must not be called concurrently with or after Close.
func (p *Pool) Close() {
	p.once.Do(func() {
		close(p.closing)
	})
	p.wg.Wait()
	p.cancel()
}
