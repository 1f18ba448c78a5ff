package transport

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The lean transport's proxies (Options.Proxy), as net/http's Transport
// uses them: an http request goes to the proxy in absolute form
// ("POST http://host/path HTTP/1.1"), on a pooled connection to the
// proxy; an https request goes through a tunnel the proxy opens with
// CONNECT, TLS to the server inside it, the tunnel pooled as a
// connection to the server. A proxy URL's userinfo is sent as
// Proxy-Authorization; an https:// proxy is reached over TLS.

// proxyFor is the proxy of requests to u, nil for none.
func (t *leanTransport) proxyFor(u *url.URL) (*url.URL, error) {
	if t.proxy == nil {
		return nil, nil
	}
	p, err := t.proxy(u)
	if err != nil {
		return nil, fmt.Errorf("proxy for %s: %w", u.Host, err)
	}
	return p, nil
}

// proxyAddr is the "host:port" of proxy p, its scheme's default port
// when it has none.
func proxyAddr(p *url.URL) string {
	if p.Port() != "" {
		return p.Host
	}
	port := "80"
	if p.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(p.Hostname(), port)
}

// proxyAuth is the Proxy-Authorization value of p's userinfo, "" when
// it has none.
func proxyAuth(p *url.URL) string {
	if p.User == nil {
		return ""
	}
	return basicAuth(p.User)
}

// dialProxy opens a connection to proxy p: TCP through the client's
// dialer, then TLS for an https:// proxy.
func (t *leanTransport) dialProxy(ctx context.Context, p *url.URL) (net.Conn, error) {
	nc, err := t.dial(ctx, "tcp", proxyAddr(p))
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %w", p.Redacted(), err)
	}
	if p.Scheme != "https" {
		return nc, nil
	}
	tc := tls.Client(nc, &tls.Config{ServerName: p.Hostname()})
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("proxy %s: %w", p.Redacted(), err)
	}
	return tc, nil
}

// connectVia opens a tunnel to addr through proxy p with CONNECT. A
// refusal is an error naming the proxy and its answer.
func (t *leanTransport) connectVia(ctx context.Context, p *url.URL, addr string) (net.Conn, error) {
	nc, err := t.dialProxy(ctx, p)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(aLongTimeAgo) })
	defer stop()
	req := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if a := proxyAuth(p); a != "" {
		req += "Proxy-Authorization: " + a + "\r\n"
	}
	if _, err := nc.Write([]byte(req + "\r\n")); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %w", p.Redacted(), addr, err)
	}
	// The proxy sends nothing after its answer until the client speaks,
	// so a buffered reader takes no byte of the tunnel.
	resp, err := http.ReadResponse(bufio.NewReader(nc), &http.Request{Method: http.MethodConnect})
	if err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("proxy %s: CONNECT %s: %w", p.Redacted(), addr, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = nc.Close()
		return nil, fmt.Errorf("proxy %s refused CONNECT %s: %s", p.Redacted(), addr, strings.TrimSpace(resp.Status))
	}
	if ctx.Err() != nil {
		_ = nc.Close()
		return nil, ctx.Err()
	}
	return nc, nil
}

// viaProxy is the pool key and message of m when it goes to an HTTP
// proxy: an http request is sent to the proxy in absolute form (its key
// the proxy's); an https one keeps its key, its connection a tunnel
// (dialOrTunnel).
func (t *leanTransport) viaProxy(key hostKey, m *message) (hostKey, *message, error) {
	if t.proxy == nil || key.tls {
		return key, m, nil
	}
	p, err := t.proxyFor(m.url)
	if err != nil || p == nil {
		return key, m, err
	}
	if p.Scheme != "http" {
		return key, m, fmt.Errorf("proxy %s: the lean client reaches http:// URLs through http:// proxies only; use an http:// proxy", p.Redacted())
	}
	pm := *m
	pm.absolute, pm.proxyAuth = true, proxyAuth(p)
	return hostKey{addr: proxyAddr(p)}, &pm, nil
}

// dialOrTunnel opens the TCP connection of key: direct, or, for an https
// key with a proxy, a CONNECT tunnel through it.
func (t *leanTransport) dialOrTunnel(ctx context.Context, key hostKey) (net.Conn, error) {
	if t.proxy != nil && key.tls {
		p, err := t.proxyFor(&url.URL{Scheme: "https", Host: key.addr})
		if err != nil {
			return nil, err
		}
		if p != nil {
			return t.connectVia(ctx, p, key.addr)
		}
	}
	return t.dial(ctx, "tcp", key.addr)
}
