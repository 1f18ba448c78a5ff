package transport

import "context"

// HTTPAuto's choice of engine. Every HTTP/1.1 request goes out on the lean
// transport, so that its protections (the early 413, stray responses
// counted, the one resend rule, the head cap, 1xx, 101 and idle 408
// handling) hold whatever the version flag says: an http:// URL is
// HTTP/1.1 at once (h2c is only by prior knowledge, --http-version 2),
// and a TLS server is asked once, by ALPN offering h2 and http/1.1, which
// it speaks. Only a server that picks h2 is handed to net/http's HTTP/2
// engine (Client.h2); one that picks http/1.1, or offers nothing, stays
// on the lean transport.
//
// The question is one TLS handshake per server and run, made before the
// first request to it (so it shows as that request's schedule lag, not
// its latency), on a connection of its own that is then closed: the first
// request still dials and shakes hands on its own connection, as its
// trace says. Requests to a server being asked wait for the answer. A
// question that fails (the server is down, its certificate is not
// trusted) is not remembered: the request goes to the lean transport,
// which fails it with the error and hint it would give under 1.1, and the
// next request asks again.

// alpnProbe is one server's question: done is closed once h2 is known.
type alpnProbe struct {
	done chan struct{}
	h2   bool
}

// pickH2 reports whether the server of raw, an https URL, picks h2 by
// ALPN, asking it the first time (see above). An http:// URL, an
// unparsable one, a failed question or an ended ctx is false.
func (c *Client) pickH2(ctx context.Context, raw string) bool {
	u, err := c.parseURL(raw)
	if err != nil || u.Scheme != "https" {
		return false
	}
	key, err := urlHost(u)
	if err != nil {
		return false
	}
	v, asked := c.alpn.LoadOrStore(key.addr, &alpnProbe{done: make(chan struct{})})
	p := v.(*alpnProbe)
	if asked {
		select {
		case <-p.done:
			return p.h2
		case <-ctx.Done():
			return false
		}
	}
	lt := c.fresh.Transport.(*leanTransport) // dials anew, never a pre-opened connection
	nc, err := lt.dialOrTunnel(ctx, key)
	if err == nil {
		tc, herr := lt.handshake(ctx, nc, key, &noTrace, []string{"h2", "http/1.1"})
		if err = herr; err == nil {
			p.h2 = tc.ConnectionState().NegotiatedProtocol == "h2"
			_ = tc.Close()
		}
	}
	if err != nil {
		c.alpn.CompareAndDelete(key.addr, p)
	}
	close(p.done)
	return p.h2
}
