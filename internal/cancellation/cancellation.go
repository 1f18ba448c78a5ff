// Package cancellation implements AIPerf's request cancellation
// (--request-cancellation-rate, --request-cancellation-delay): a seeded
// share of the profiling requests is cancelled a fixed delay after each
// was written, as real users give up on a slow answer.
package cancellation

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// Sender sends one request and fills its record: the run's transport
// client, or whatever wraps it.
type Sender interface {
	Do(ctx context.Context, clk *clock.Clock, req *transport.Request, rec *record.Record)
}

// errPlannedCancel is the cancellation cause of a request chosen by
// --request-cancellation-rate. Comparing causes is what tells a planned
// cancellation apart from the grace period running out or an abort, which
// surface the same way from the transport.
var errPlannedCancel = errors.New("planned request cancellation (--request-cancellation-rate)")

// cancellationSalt separates the cancellation draws from every other use
// of the run's seed ("CANCEL").
const cancellationSalt = 0x43414e43454c

// Wrap returns what the workers send through: next itself when ratePct
// (--request-cancellation-rate, in percent) is not positive, else next
// behind a canceller that cancels the chosen requests delay after they
// were sent. seed is the run's --random-seed.
func Wrap(next Sender, ratePct float64, delay time.Duration, seed uint64) Sender {
	if ratePct <= 0 {
		return next
	}
	return &canceller{next: next, prob: ratePct / 100, delay: delay, seed: seed ^ cancellationSalt}
}

// Chosen reports whether the request for turn of credit seq is cancelled
// at probability prob in a run seeded with seed: the choice Wrap's
// canceller makes.
func Chosen(seed uint64, prob float64, seq uint64, turn int) bool {
	return (&canceller{prob: prob, seed: seed ^ cancellationSalt}).chosen(seq, turn)
}

// canceller implements AIPerf's request cancellation: each profiling
// request is chosen with probability prob, and a chosen request is
// cancelled delay after it has been fully written to the connection
// (headers and body). A response that completes before then is kept as it
// is. Cancelling closes the request's connection, so the server sees the
// client go away, exactly as when a real user gives up.
//
// The choice is a pure function of (seed, credit, turn) rather than a
// shared generator's next draw, so it is the same for every run with the
// same --random-seed however the workers interleave. Warmup requests are
// never chosen (as in AIPerf).
type canceller struct {
	next  Sender
	prob  float64 // in (0, 1]
	delay time.Duration
	seed  uint64
}

// Do sends req through the wrapped sender, cancelling it on schedule when
// it was chosen. The record of a cancelled request ends as a client
// cancellation (code 499, RequestCancellationError, was_cancelled) with
// AIPerf's message.
func (c *canceller) Do(ctx context.Context, clk *clock.Clock, req *transport.Request, rec *record.Record) {
	if rec.Phase != record.Profiling || !c.chosen(rec.Seq, rec.TurnIndex) {
		c.next.Do(ctx, clk, req, rec)
		return
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var (
		mu    sync.Mutex
		timer *time.Timer
		over  bool
	)
	trace := &httptrace.ClientTrace{
		// WroteRequest runs once the request has been written and flushed.
		// net/http may write a request twice (a retry on a stale pooled
		// connection); the timer starts at the first complete write.
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if over || timer != nil {
				return
			}
			timer = time.AfterFunc(c.delay, func() { cancel(errPlannedCancel) })
		},
	}
	c.next.Do(httptrace.WithClientTrace(ctx, trace), clk, req, rec)
	mu.Lock()
	over = true
	if timer != nil {
		timer.Stop()
	}
	mu.Unlock()

	if rec.Cancelled && rec.Error != nil && errors.Is(context.Cause(ctx), errPlannedCancel) {
		rec.Error.Message = fmt.Sprintf("Request cancelled %.3fs after being sent", c.delay.Seconds())
	}
}

// chosen reports whether the request for turn of credit seq is to be
// cancelled: a uniform draw in [0, 1) from a counter-based generator
// (SplitMix64 over the seed, credit and turn) compared with prob.
func (c *canceller) chosen(seq uint64, turn int) bool {
	x := splitmix64(c.seed ^ splitmix64(seq) ^ splitmix64(uint64(turn)+0x7475726e)) // "turn"
	return float64(x>>11)/(1<<53) < c.prob
}

// splitmix64 is the SplitMix64 finaliser: a bijective mix whose outputs
// for consecutive inputs are statistically independent.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
