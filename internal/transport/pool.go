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
	// closesIdle is set once a reused connection to the host proved
	// closed (see markClosesIdle): from then on an idle connection is
	// peeked before reuse. A server that keeps its connections open (the
	// mock, vLLM, SGLang) never pays the peek's system call.
	closesIdle bool
}

// conn is one pooled connection with its read buffer. The write side has
// no buffer of its own: each request is written with one Write from a
// pooled buffer (see wireBuf), so an idle connection holds only br.
type conn struct {
	net.Conn
	br     *bufio.Reader
	peek   *peeker // nil where the platform cannot peek
	host   *hostConns
	idleAt time.Time // when it was last returned
	served int       // responses read on it
}

func newPool(maxIdle, maxConns int, idleTimeout time.Duration) *pool {
	return &pool{maxIdle: maxIdle, maxConns: max(maxConns, 0), idleTimeout: idleTimeout, hosts: map[hostKey]*hostConns{}}
}

// get returns an idle connection to key (reused true), or nil and a
// reserved slot when the caller is to dial one (then it must call dialed
// or failed). It waits while key's connections are at the cap, until a
// connection or a slot is freed or ctx ends. An idle connection idle for
// longer than idleTimeout, one holding bytes nobody asked for, or (once
// the host is known to close idle connections) one the server has closed
// meanwhile, is closed and skipped.
func (p *pool) get(ctx context.Context, key hostKey) (c *conn, h *hostConns, err error) {
	now := time.Now()
	p.mu.Lock()
	h = p.hosts[key]
	if h == nil {
		h = &hostConns{key: key}
		p.hosts[key] = h
	}
	var stale []*conn
	for len(h.idle) > 0 {
		top := h.idle[len(h.idle)-1]
		h.idle = h.idle[:len(h.idle)-1]
		if p.idleTimeout > 0 && now.Sub(top.idleAt) > p.idleTimeout {
			// Everything below the top is older still.
			stale = append(stale, top)
			stale = append(stale, h.idle...)
			h.idle = h.idle[:0]
			break
		}
		if top.br.Buffered() > 0 || (h.closesIdle && top.peek.peerClosed()) {
			// The server hung up (or sent something unasked) while the
			// connection sat idle: a request written on it could only
			// fail, so it is not tried.
			stale = append(stale, top)
			continue
		}
		c = top
		break
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

// markClosesIdle records that the server of h closed a connection while
// it sat idle (llama-server and many proxies do after some responses).
func (p *pool) markClosesIdle(h *hostConns) {
	p.mu.Lock()
	h.closesIdle = true
	p.mu.Unlock()
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
