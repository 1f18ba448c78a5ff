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

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// Sender sends one request and fills the record's timing and outcome.
// *transport.Client implements it.
type Sender interface {
	Do(ctx context.Context, clk *clock.Clock, req *transport.Request, rec *record.Record)
}

var _ Sender = (*transport.Client)(nil)

// Options configure a Pool. Every field except Header is required.
type Options struct {
	Sender  Sender
	Clock   *clock.Clock
	Dataset *dataset.Dataset
	// Payloads[c][t] is the request body for turn t of conversation c,
	// built once by the endpoint before the run (the same bytes inputs.json
	// records).
	Payloads [][][]byte
	// URLs are full request URLs (base URL plus endpoint path); requests go
	// round robin by credit sequence number.
	URLs []string
	// Header holds the headers every request carries (Content-Type,
	// Authorization, -H); the pool adds X-Request-ID and X-Correlation-ID.
	Header http.Header
	// SessionHeader names the per-session affinity header; empty means
	// X-Correlation-ID.
	SessionHeader string
	// Pick chooses the conversation for the next credit. It is called only
	// from Dispatch, i.e. from the scheduler goroutine.
	Pick func() int
	// Out receives every finished record, in completion order.
	Out chan<- *record.Record
	// Done returns a credit once its conversation is finished.
	Done func(timing.Credit)
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
}

// NewPool returns a pool whose requests run under parent. Cancel (or
// cancelling parent) aborts every request in flight; those records end as
// client cancellations.
func NewPool(parent context.Context, o Options) (*Pool, error) {
	switch {
	case o.Sender == nil, o.Clock == nil, o.Dataset == nil, o.Pick == nil, o.Out == nil, o.Done == nil:
		return nil, fmt.Errorf("worker pool: missing required option")
	case len(o.URLs) == 0:
		return nil, fmt.Errorf("worker pool: no URLs")
	case len(o.Payloads) != o.Dataset.Len():
		return nil, fmt.Errorf("worker pool: %d payload sets for %d conversations", len(o.Payloads), o.Dataset.Len())
	}
	if o.SessionHeader == "" {
		o.SessionHeader = "X-Correlation-ID"
	}
	ctx, cancel := context.WithCancel(parent)
	return &Pool{o: o, ctx: ctx, cancel: cancel, jobs: make(chan job), closing: make(chan struct{})}, nil
}

// Dispatch starts the credit's conversation without blocking: an idle
// worker takes it, or a new worker starts.
func (p *Pool) Dispatch(c timing.Credit) {
	j := job{credit: c, conv: p.o.Pick()}
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

// run sends every turn of the job's conversation in order, then returns
// the credit. A failed turn ends the conversation (later turns would need
// its response as history).
func (p *Pool) run(workerID string, j job) {
	defer func() {
		p.inFlight.Add(-1)
		p.o.Done(j.credit)
	}()
	conv := &p.o.Dataset.Conversations[j.conv]
	correlation := newID()
	for t := range conv.Turns {
		turn := &conv.Turns[t]
		rec := &record.Record{
			Seq:            j.credit.Seq,
			Phase:          j.credit.Phase,
			ConversationID: conv.ID,
			TurnIndex:      t,
			XRequestID:     newID(),
			XCorrelationID: correlation,
			WorkerID:       workerID,
			URLIndex:       int(j.credit.Seq % uint64(len(p.o.URLs))),
			Model:          turn.Model,
			Due:            j.credit.Due,
			InputTexts:     turn.Texts,
			InputTokens:    turn.InputTokens,
			RequestedOSL:   turn.MaxTokens,
		}
		if t > 0 { // later turns are due when the previous one finished
			rec.Due = p.o.Clock.Now()
		}
		header := p.o.Header.Clone()
		if header == nil {
			header = http.Header{}
		}
		header.Set("X-Request-ID", rec.XRequestID)
		header.Set(p.o.SessionHeader, correlation)
		req := &transport.Request{URL: p.o.URLs[rec.URLIndex], Body: p.o.Payloads[j.conv][t], Header: header}
		p.o.Sender.Do(p.ctx, p.o.Clock, req, rec)
		failed := rec.Error != nil // read before handing over: the record belongs downstream after the send
		p.o.Out <- rec
		if failed {
			return
		}
	}
}

// InFlight returns the number of credits dispatched and not yet done.
func (p *Pool) InFlight() int { return int(p.inFlight.Load()) }

// Workers returns how many worker goroutines the pool has started.
func (p *Pool) Workers() int { return int(p.workers.Load()) }

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
