package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Reuse is how requests share TCP connections (AIPerf's
// --connection-reuse-strategy).
type Reuse uint8

const (
	// ReusePooled shares one pool of keep-alive connections across every
	// request of the run (the default).
	ReusePooled Reuse = iota
	// ReuseNever opens a new connection for every request and closes it
	// after the response: each request pays the TCP (and TLS) handshake,
	// as a client without keep-alive would.
	ReuseNever
	// ReuseSticky gives every session (Request.Session, the
	// X-Correlation-ID of a conversation) a connection of its own, kept
	// across its turns and closed after its last turn, after a failure or
	// after a cancellation, so a load balancer that pins connections sees
	// each user session on one backend.
	ReuseSticky
)

// idempotencyKey marks every request replayable for net/http.
//
// net/http's Transport resends a request whose reused keep-alive connection
// turned out to be dead before the first response byte (the server closed
// it while it sat idle: "server closed idle connection", EOF or a reset
// reading the status line), but only when the request is replayable: a
// body it can rewind (GetBody, which http.NewRequest sets for a
// bytes.Reader) and an idempotent method, or an Idempotency-Key header.
// Inference requests have no side effect a resend could repeat, so every
// request carries the key; with a nil value net/http counts the key as
// present yet writes nothing on the wire (Header.Write skips keys without
// values), so the server sees the request exactly as built.
const idempotencyKey = "Idempotency-Key"

// staleConnection is the one rule for sending a request again, the same
// in both engines: its connection was a reused one, no byte of a response
// arrived (responded false), and the connection ended the way a server's
// close of an idle connection ends it (closedBeforeResponse), so the
// server cannot have acted on the request; neither the caller nor the
// request deadline ended it. An answer of any kind, however malformed, is
// the request's record and is never sent again. net/http resends most
// such requests itself, under the same rule; this catches the rest (a
// reset or broken pipe after part of the request was written, or a dead
// connection found again on its resend).
func staleConnection(ctx, reqCtx context.Context, reused, responded bool, err error) bool {
	if !reused || responded || ctx.Err() != nil || reqCtx.Err() != nil {
		return false
	}
	return closedBeforeResponse(err)
}

// closedBeforeResponse reports whether err is a connection that ended
// before a response began: the end of the stream, a reset or abort, a
// broken pipe, or net/http's "server closed idle connection". A timeout,
// a cancellation, a TLS or dial failure is none of them.
func closedBeforeResponse(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		strings.Contains(err.Error(), "server closed idle connection")
}

// leases holds the sticky-user-sessions connections: one single-connection
// client per live session. The map is touched once per request, and only
// in sticky mode.
type leases struct {
	single func() http.RoundTripper // a transport of at most one connection
	mu     sync.Mutex
	m      map[string]*http.Client
}

// get returns the session's client, creating it on the session's first
// turn. Its transport keeps at most one connection, so every turn of the
// session goes over the same one while it stays open.
func (l *leases) get(session string) *http.Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.m[session]; ok {
		return c
	}
	c := &http.Client{Transport: l.single(), CheckRedirect: checkRedirect}
	if l.m == nil {
		l.m = make(map[string]*http.Client)
	}
	l.m[session] = c
	return c
}

// release closes the session's connection and forgets it.
func (l *leases) release(session string) {
	l.mu.Lock()
	c, ok := l.m[session]
	delete(l.m, session)
	l.mu.Unlock()
	if ok {
		c.CloseIdleConnections()
	}
}

// closeAll closes every session's idle connection.
func (l *leases) closeAll() {
	l.mu.Lock()
	m := l.m
	l.m = nil
	l.mu.Unlock()
	for _, c := range m {
		c.CloseIdleConnections()
	}
}

// EndSession closes the connection of a sticky session whose conversation
// is over (its last turn answered, or it ended early). It does nothing for
// the other strategies or an unknown session.
func (c *Client) EndSession(session string) {
	if c.reuse == ReuseSticky {
		c.leases.release(session)
		if c.h2 != nil {
			c.h2.leases.release(session)
		}
	}
}

// Leased returns how many sticky sessions hold a connection now.
func (c *Client) Leased() int {
	n := c.leases.count()
	if c.h2 != nil {
		n += c.h2.leases.count()
	}
	return n
}

// count is how many sessions hold a connection.
func (l *leases) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// refusedBackoff is the pause before a request after n consecutive
// refused connections: none for n = 0, then 10 ms doubling to at most 1 s.
func refusedBackoff(n int64) time.Duration {
	if n <= 0 {
		return 0
	}
	return min(10*time.Millisecond<<min(n-1, 10), time.Second)
}

// pauseWhileRefused waits refusedBackoff of the current refusal count;
// false when ctx ended first.
func (c *Client) pauseWhileRefused(ctx context.Context) bool {
	d := refusedBackoff(c.refused.Load())
	return d == 0 || clock.Sleep(ctx, d) == nil
}

// noteRefused counts a refused connection, or resets the count once any
// answer arrived.
func (c *Client) noteRefused(rec *record.Record) {
	if rec.Error != nil && rec.Status == 0 && strings.Contains(rec.Error.Message, "connection refused") {
		c.refused.Add(1)
		return
	}
	c.refused.Store(0)
}
