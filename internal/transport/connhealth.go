package transport

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// ConnHealth is what the client saw of its connections that no record
// holds: the run's client health reports it.
type ConnHealth struct {
	// StrayResponses counts idle connections closed because bytes
	// arrived on them that no request asked for (a server that answered
	// one request twice, or a proxy that mixed up its connections). The
	// connection is not reused, so the bytes never become the answer of
	// the next request written on it. Counted by the default engine;
	// net/http's Transport drops such connections itself, uncounted.
	StrayResponses int64
	// FirstStray is the start of the first stray bytes, quoted.
	FirstStray string
	// NotReused are the servers (host:port) found to close every
	// connection after one response although their responses offered
	// keep-alive: from then on each request to them got a new connection
	// instead of paying a failed write and a resend.
	NotReused []string
}

// ConnHealth returns the connection events of the run so far.
func (c *Client) ConnHealth() ConnHealth {
	h := ConnHealth{StrayResponses: c.stats.stray.Load(), NotReused: c.learn.hosts()}
	c.stats.mu.Lock()
	h.FirstStray = c.stats.firstStray
	c.stats.mu.Unlock()
	return h
}

// connStats counts the lean transport's connection events; one per
// Client, shared by all its transports' pools.
type connStats struct {
	stray      atomic.Int64
	mu         sync.Mutex
	firstStray string
	learn      *closeLearner // nil in a transport built alone (tests)
}

// strayBytes counts an idle connection that held b, unasked.
func (s *connStats) strayBytes(b []byte) {
	if s.stray.Add(1) == 1 {
		s.mu.Lock()
		s.firstStray = strconv.Quote(string(b))
		s.mu.Unlock()
	}
}

// idleClosed notes a connection to addr that the server closed while it
// sat idle for idle, after served responses. Only a close found soon after
// the connection's one response is evidence (see learnWithin).
func (s *connStats) idleClosed(addr string, served int, idle time.Duration) {
	if s.learn == nil {
		return
	}
	switch {
	case served > 1:
		s.learn.kept(addr)
	case idle < learnWithin:
		s.learn.closed(addr)
	}
}

// learnWithin is how soon after its response a connection must be found
// closed to count as closed by a server that closes every connection.
// Servers with an idle timeout (uvicorn's, so vLLM's, is 5 s) close
// connections that waited longer; a run whose requests come seconds apart
// meets those closes on every request, and must not stop reusing
// connections for them, or a later burst would pay a handshake per
// request.
const learnWithin = time.Second

// learnAfter is how many connections in a row a server must close after
// their first response before the client stops reusing connections to
// it. A server with an idle timeout closes a connection now and then; one
// that closes every one (llama-server after a streamed response) does it
// on every request, so a few in a row tell them apart quickly.
const learnAfter = 3

// closeLearner learns the servers that close every connection after one
// response, though their responses say keep-alive. Reusing a connection
// to such a server races with its close: the request is written, fails,
// and is resent on a new connection, paying the failed write each time.
// Once learned, requests to it get a connection of their own (the
// client's never-reuse transport, which says "Connection: close").
//
// Evidence: a request resent because its reused connection, idle for less
// than learnWithin, was closed before any response byte, or an idle
// connection found closed within learnWithin of its one response. A reused connection that carried a request to its end, or
// one closed after several responses, resets the count. Safe for
// concurrent use; the request path reads two atomics while nothing is
// learned or counting.
type closeLearner struct {
	counting atomic.Int32 // hosts with a streak under way
	anyOff   atomic.Bool
	mu       sync.Mutex
	streak   map[string]int
	off      map[string]bool
	order    []string // off, in the order learned
}

// closed counts one connection to addr closed after one response.
func (l *closeLearner) closed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.off[addr] {
		return
	}
	if l.streak == nil {
		l.streak, l.off = map[string]int{}, map[string]bool{}
	}
	if l.streak[addr] == 0 {
		l.counting.Add(1)
	}
	l.streak[addr]++
	if l.streak[addr] >= learnAfter {
		delete(l.streak, addr)
		l.counting.Add(-1)
		l.off[addr] = true
		l.order = append(l.order, addr)
		l.anyOff.Store(true)
	}
}

// kept resets addr's count: a connection to it carried more than one
// request.
func (l *closeLearner) kept(addr string) {
	if l == nil || l.counting.Load() == 0 {
		return
	}
	l.mu.Lock()
	if l.streak[addr] > 0 {
		delete(l.streak, addr)
		l.counting.Add(-1)
	}
	l.mu.Unlock()
}

// noReuse reports whether connections to addr are no longer reused.
func (l *closeLearner) noReuse(addr string) bool {
	if !l.anyOff.Load() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.off[addr]
}

// hosts are the servers learned, in order.
func (l *closeLearner) hosts() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.order...)
}
