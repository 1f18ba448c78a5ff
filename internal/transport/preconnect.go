package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// dialFunc is net.Dialer.DialContext's shape, what http.Transport calls.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// sourceDialer returns the dial function of every transport: TCP
// keep-alive, and, when addrs is not empty, each new connection bound to
// the next of addrs in turn. The port is left to connect(2)
// (IP_BIND_ADDRESS_NO_PORT), so each source address has the whole
// ephemeral range towards the server.
func sourceDialer(addrs []net.IP) dialFunc {
	if len(addrs) == 0 {
		d := &net.Dialer{KeepAlive: 30 * time.Second}
		return d.DialContext
	}
	dialers := make([]*net.Dialer, len(addrs))
	for i, ip := range addrs {
		dialers[i] = &net.Dialer{
			KeepAlive: 30 * time.Second,
			LocalAddr: &net.TCPAddr{IP: ip},
			Control:   bindAddressNoPort,
		}
	}
	var next atomic.Uint64
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialers[(next.Add(1)-1)%uint64(len(dialers))].DialContext(ctx, network, addr)
	}
}

// preconnector holds connections opened before the run's first request
// (--pre-connect). net/http has no way to add a connection to its pool,
// so they wait here and the transport's dial hands them out first: the
// first request on each finds its connection ready, paying no TCP
// handshake, and the connection joins the pool after its first response
// like any other.
//
// A connection handed out is remembered until the request that got it
// reports it (owns), so the trace can tell it from one dialed on the
// request's path. Safe for concurrent use.
type preconnector struct {
	mu    sync.Mutex
	ready map[string][]net.Conn // by dial address, "host:port"
	given map[net.Conn]struct{} // handed to net/http, not yet reported
}

// dialContext returns next, preceded by the ready connections to addr.
func (p *preconnector) dialContext(next dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if c := p.take(addr); c != nil {
			return c, nil
		}
		return next(ctx, network, addr)
	}
}

// take removes and returns a ready connection to addr, or nil.
func (p *preconnector) take(addr string) net.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.ready[addr]
	if len(list) == 0 {
		return nil
	}
	c := list[len(list)-1]
	p.ready[addr] = list[:len(list)-1]
	p.given[c] = struct{}{}
	return c
}

// owns reports whether c is a connection opened by Preconnect, and forgets
// it: a connection is reported once, by the first request it serves.
func (p *preconnector) owns(c net.Conn) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.given[c]; !ok {
		return false
	}
	delete(p.given, c)
	return true
}

// add files connections to addr as ready.
func (p *preconnector) add(addr string, conns []net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready == nil {
		p.ready = map[string][]net.Conn{}
		p.given = map[net.Conn]struct{}{}
	}
	p.ready[addr] = append(p.ready[addr], conns...)
}

// close closes every connection that was never handed out.
func (p *preconnector) close() {
	p.mu.Lock()
	ready := p.ready
	p.ready = nil
	p.mu.Unlock()
	for _, list := range ready {
		for _, c := range list {
			_ = c.Close()
		}
	}
}

// Ready returns how many pre-opened connections wait for their first
// request.
func (c *Client) Ready() int {
	c.pre.mu.Lock()
	defer c.pre.mu.Unlock()
	n := 0
	for _, list := range c.pre.ready {
		n += len(list)
	}
	return n
}

// maxPreconnectDials is how many connections Preconnect dials at once: a
// burst of thousands of SYNs would overflow the server's accept backlog and
// cost retransmission timeouts (1 s each) instead of saving handshakes.
const maxPreconnectDials = 64

// Preconnect opens n connections to each base URL before the run (k6's
// and wrk's connections-first start), so that the first requests do not
// pay the TCP handshake inside their time to first token. It returns how
// many it opened; every failure is reported, joined. The connections are
// used by the pooled and sticky strategies (a resend always dials anew);
// for https only the TCP connection is opened, the TLS handshake still
// comes with the first request.
func (c *Client) Preconnect(ctx context.Context, urls []string, n int) (int, error) {
	if n <= 0 {
		return 0, nil
	}
	var errs []error
	opened := 0
	seen := map[string]bool{}
	for _, raw := range urls {
		addr, err := dialAddr(raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[addr] {
			continue
		}
		seen[addr] = true
		conns, err := c.dialMany(ctx, addr, n)
		c.pre.add(addr, conns)
		opened += len(conns)
		if err != nil {
			errs = append(errs, fmt.Errorf("pre-connecting to %s: %w", addr, err))
		}
	}
	return opened, errors.Join(errs...)
}

// dialMany opens n connections to addr, maxPreconnectDials at a time. It
// returns the ones it opened and the first error.
func (c *Client) dialMany(ctx context.Context, addr string, n int) ([]net.Conn, error) {
	var (
		mu    sync.Mutex
		conns = make([]net.Conn, 0, n)
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, maxPreconnectDials)
	)
	for range n {
		if ctx.Err() != nil {
			break
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			conn, err := c.dial(ctx, "tcp", addr)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			conns = append(conns, conn)
		})
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return conns, first
}

// dialAddr is the "host:port" net/http dials for a base URL.
func dialAddr(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("pre-connect: %w", err)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("pre-connect: %q has no host", raw)
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT socket option.
const ipBindAddressNoPort = 24

// bindAddressNoPort asks the kernel to choose the source port at connect
// time, from the whole 4-tuple, instead of at bind time; without it every
// bound socket would hold a port of the whole range. Where the option does
// not exist the bind proceeds as usual.
func bindAddressNoPort(_, _ string, rc syscall.RawConn) error {
	return rc.Control(func(fd uintptr) {
		_ = setBindNoPort(int(fd))
	})
}
