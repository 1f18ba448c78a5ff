package transport

import (
	"bufio"
	"context"
	"net"
	"sync"
	"time"
)

// hostKey names one host's connections: its dial address, and whether they
// speak TLS (an http and an https URL to one address never share one).
type hostKey struct {
	addr string
	tls  bool
}

// pool is the lean transport's keep-alive pool: for each host a LIFO stack
// of idle connections (the most recently used first, so a run whose
// concurrency fell keeps its hot connections and lets the others age out),
// a cap on the connections open or being dialed (MaxConnsPerHost), and the
// requests waiting for that cap in arrival order.
//
// The pool only hands connections out and takes them back; dialing, TLS and
// the exchange are the transport's. A connection is counted in its host's
// open from the moment its dial is allowed until it is closed. Safe for
// concurrent use; every method holds mu for a few instructions only.
type pool struct {
	maxIdle     int           // idle connections kept per host
	maxConns    int           // open connections per host; 0 = no cap
	idleTimeout time.Duration // an idle connection older than this is closed when met

	stats *connStats // never nil; shared by a transport's pools

	mu    sync.Mutex
	hosts map[hostKey]*hostConns
}

// hostConns is one host's share of the pool.
type hostConns struct {
	key  hostKey
	idle []*conn // LIFO: the top is the most recently returned
	open int     // connections open or being dialed, idle ones included
	// waiting are the requests held by maxConns, oldest first. Each gets
	// an idle connection, or nil: a slot to dial, counted in open already.
	waiting []chan *conn
}

// idleState is what an idle connection's check found.
type idleState uint8

const (
	idleOpen   idleState = iota // usable
	idleClosed                  // the server closed or reset it
	idleData                    // bytes arrived that no request asked for
)

// conn is one pooled connection with its read buffer. The write side has
// no buffer of its own: each request is written with one Write from a
// pooled buffer (see wireBuf), so an idle connection holds only br.
type conn struct {
	net.Conn
	br     *bufio.Reader // reads src
	src    headLimit
	peek   *peeker // nil where the platform cannot peek
	host   *hostConns
	idleAt time.Time // when it was last returned
	served int       // responses read on it
}

func newPool(maxIdle, maxConns int, idleTimeout time.Duration, stats *connStats) *pool {
	if stats == nil {
		stats = &connStats{}
	}
	return &pool{maxIdle: maxIdle, maxConns: max(maxConns, 0), idleTimeout: idleTimeout, stats: stats, hosts: map[hostKey]*hostConns{}}
}

// get returns an idle connection to key (reused true), or nil and a
// reserved slot when the caller is to dial one (then it must call dialed
// or failed). It waits while key's connections are at the cap, until a
// connection or a slot is freed or ctx ends. An idle connection idle for
// longer than idleTimeout, or one the server closed or sent bytes on while
// it sat idle (see usable), is closed and skipped.
func (p *pool) get(ctx context.Context, key hostKey) (c *conn, h *hostConns, err error) {
	for {
		c, h, err = p.pop(ctx, key, false)
		if c == nil || err != nil || p.usable(c) {
			return c, h, err
		}
		p.close(c)
	}
}

// pop is get without the check of the connection it returns: the
// check's system call is made without holding mu.
func (p *pool) pop(ctx context.Context, key hostKey, skipIdle bool) (c *conn, h *hostConns, err error) {
	now := time.Now()
	p.mu.Lock()
	h = p.hosts[key]
	if h == nil {
		h = &hostConns{key: key}
		p.hosts[key] = h
	}
	var stale []*conn
	if n := len(h.idle); n > 0 && !skipIdle {
		top := h.idle[n-1]
		h.idle = h.idle[:n-1]
		if p.idleTimeout > 0 && now.Sub(top.idleAt) > p.idleTimeout {
			// Everything below the top is older still.
			stale = append(stale, top)
			stale = append(stale, h.idle...)
			h.idle = h.idle[:0]
		} else {
			c = top
		}
	}
	h.open -= len(stale)
	if c == nil {
		if p.maxConns == 0 || h.open < p.maxConns {
			h.open++ // the caller's dial
		} else {
			ch := make(chan *conn, 1)
			h.waiting = append(h.waiting, ch)
			p.mu.Unlock()
			closeAll(stale)
			return p.wait(ctx, h, ch)
		}
	}
	p.mu.Unlock()
	closeAll(stale)
	return c, h, nil
}

// slot reserves a slot to dial a new connection to key, waiting at the
// cap as get does, without taking an idle one: the resend of a request
// whose reused connection proved closed goes on a connection of its own,
// so a pool full of connections the server has closed costs it one
// resend, not one per closed connection. A connection handed over by a
// request that finished while it waited may still come back (c not nil).
func (p *pool) slot(ctx context.Context, key hostKey) (c *conn, h *hostConns, err error) {
	return p.pop(ctx, key, true)
}

// usable reports whether an idle connection may carry a request: the
// server has not closed it meanwhile, and nothing arrived on it. A
// request written on a closed one could only fail (and be resent); bytes
// that arrived unasked would be read as that request's answer. A 408
// Request Timeout is how many servers and gateways announce the close of
// an idle connection (RFC 9110 lets them): it retires the connection like
// a close. Anything else is a stray response (the server answered one
// request twice, or a proxy mixed up its connections), counted in the
// transport's stats. One non-blocking recv(2) per reuse (and, when bytes
// arrived on TLS, a read of what arrived); the request pays it only where
// the platform can peek.
func (p *pool) usable(c *conn) bool {
	state, b := c.idleState()
	switch state {
	case idleOpen:
		return true
	case idleData:
		if !is408(b) {
			p.stats.strayBytes(b)
			return false
		}
	}
	p.stats.idleClosed(c.host.key.addr, c.served, time.Since(c.idleAt))
	return false
}

// idleState is what arrived on an idle connection: nothing (idleOpen),
// its end (idleClosed), or bytes, with the first of them (idleData). On
// plain TCP they are in the read buffer or the kernel's; on TLS, the
// record layer may hold a whole record it read along with the last
// response, so a TLS connection is asked by a read that does not wait
// (peeker.pending), which also finds what the kernel holds.
func (c *conn) idleState() (idleState, []byte) {
	if n := c.br.Buffered(); n > 0 {
		b, _ := c.br.Peek(min(n, 16))
		return idleData, b
	}
	if c.peek.overTLS() {
		return c.peek.pending(c.br)
	}
	return c.peek.check()
}

// is408 reports whether b starts a 408 Request Timeout response.
func is408(b []byte) bool {
	return len(b) >= len("HTTP/1.1 408") && string(b[:7]) == "HTTP/1." && string(b[8:12]) == " 408"
}

// wait blocks get's caller until ch is given a connection or a slot, or
// ctx ends; a hand-over that races with the end is given back.
func (p *pool) wait(ctx context.Context, h *hostConns, ch chan *conn) (*conn, *hostConns, error) {
	select {
	case c := <-ch:
		return c, h, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	for i, w := range h.waiting {
		if w == ch {
			h.waiting = append(h.waiting[:i], h.waiting[i+1:]...)
			p.mu.Unlock()
			return nil, h, ctx.Err()
		}
	}
	p.mu.Unlock()
	// Already handed over: pass it on.
	if c := <-ch; c != nil {
		p.put(c)
	} else {
		p.failed(h)
	}
	return nil, h, ctx.Err()
}

// put returns a connection whose last response was read whole and which
// may carry another request: to the oldest waiting request, or onto the
// idle stack, or closed when the stack is full.
func (p *pool) put(c *conn) {
	h := c.host
	p.mu.Lock()
	if p.handOff(h, c) {
		return
	}
	if len(h.idle) >= p.maxIdle {
		p.mu.Unlock()
		p.close(c)
		return
	}
	c.idleAt = time.Now()
	h.idle = append(h.idle, c)
	p.mu.Unlock()
}

// close closes a connection of the pool's (not idle) and frees its slot.
func (p *pool) close(c *conn) {
	_ = c.Close()
	p.failed(c.host)
}

// failed frees one of h's slots: a dial that failed, or a connection
// closed. A waiting request gets the slot to dial.
func (p *pool) failed(h *hostConns) {
	p.mu.Lock()
	if p.handOff(h, nil) {
		return
	}
	h.open--
	p.mu.Unlock()
}

// handOff gives c (a connection, or nil: a slot to dial) to h's oldest
// waiting request, if any, and then unlocks mu, which the caller holds.
func (p *pool) handOff(h *hostConns, c *conn) bool {
	if len(h.waiting) == 0 {
		return false
	}
	ch := h.waiting[0]
	h.waiting = h.waiting[1:]
	p.mu.Unlock()
	ch <- c
	return true
}

// closeIdle closes every idle connection. Connections in use are not
// affected and return to the pool as usual.
func (p *pool) closeIdle() {
	var idle []*conn
	p.mu.Lock()
	for _, h := range p.hosts {
		idle = append(idle, h.idle...)
		h.open -= len(h.idle)
		h.idle = nil
	}
	p.mu.Unlock()
	closeAll(idle)
}

// idleCount returns how many connections wait in the idle stacks.
func (p *pool) idleCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range p.hosts {
		n += len(h.idle)
	}
	return n
}

func closeAll(cs []*conn) {
	for _, c := range cs {
		_ = c.Close()
	}
}
