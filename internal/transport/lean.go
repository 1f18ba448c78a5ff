package transport

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpguts"
)

// leanTransport is the client's HTTP/1.1 transport (the default; see
// Options.NetHTTP): an http.RoundTripper that writes the request and reads
// the response on the caller's goroutine. net/http's Transport runs two
// goroutines per connection (a read loop and a write loop) and hands every
// request through both and back over channels, which a load generator pays
// on every request in CPU (about a third of net/http's share of a closed
// loop) and on every open stream in memory (two goroutine stacks and a
// write buffer per connection).
//
// What it keeps from net/http, so that records mean the same: the
// httptrace hooks (GetConn, GotConn, DNS and connect through the dialer,
// TLS, WroteHeaders, WroteRequest, GotFirstResponseByte) at the same
// points; the resend of a request whose reused connection proved dead
// before any response byte (net/http's rule for a replayable request,
// which every request here is); response parsing (http.ReadResponse:
// chunked, Content-Length and close-delimited bodies, trailers);
// cancellation and timeouts of the request's context at any point,
// including in the middle of a body (a past deadline on the connection);
// a body closed before its end closes its connection. Redirects stay
// http.Client's. What it leaves out: proxies (the client never used them)
// and HTTP/2 (never negotiated: this client speaks HTTP/1.1 only).
type leanTransport struct {
	pool      *pool
	dial      dialFunc
	tlsConfig *tls.Config // nil: the default verification
	keepAlive bool        // false: "Connection: close", one connection per request
	bufSize   int         // each connection's read buffer
	proxy     ProxyFunc   // nil: every request direct
	maxHead   int64       // the most response head bytes read (1xx heads included)
}

func newLeanTransport(dial dialFunc, o Options, idle int, keepAlive bool, stats *connStats) *leanTransport {
	t := &leanTransport{
		pool:      newPool(idle, o.MaxConnsPerHost, 90*time.Second, stats),
		dial:      dial,
		keepAlive: keepAlive,
		bufSize:   4 << 10,
		maxHead:   maxResponseHeaderBytes(o),
	}
	if o.ConnBufferSize > 0 {
		t.bufSize = o.ConnBufferSize
	}
	t.tlsConfig = o.tlsConfig()
	t.proxy = o.Proxy
	return t
}

// single returns a transport like t with a pool of its own holding at
// most one connection: a sticky session's.
func (t *leanTransport) single() *leanTransport {
	c := *t
	c.pool = newPool(1, 1, t.pool.idleTimeout, t.pool.stats)
	return &c
}

// CloseIdleConnections closes the idle connections (http.Client calls it).
func (t *leanTransport) CloseIdleConnections() { t.pool.closeIdle() }

// message is one request as the lean transport sends it: what
// http.Request holds, less what an HTTP/1.1 POST of bytes does not need.
type message struct {
	method string
	url    *url.URL
	host   string // the Host header; "" is url.Host
	header http.Header
	body   []byte
	close  bool          // "Connection: close" (the request's, besides !keepAlive)
	req    *http.Request // the request it came from under http.Client, or nil
	// absolute sends the request target in absolute form, with
	// proxyAuth (when set) as Proxy-Authorization: a request to an HTTP
	// proxy (see proxy.go).
	absolute  bool
	proxyAuth string
}

// RoundTrip sends req and returns its response with the headers read; the
// body is read from the connection as the caller reads it, and the
// connection goes back to the pool when the body has been read to its end.
func (t *leanTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	m, err := messageOf(req)
	if err != nil {
		return nil, err
	}
	return t.send(req.Context(), m, httptrace.ContextClientTrace(req.Context()))
}

// messageOf is req as a message, its body read (and closed).
func messageOf(req *http.Request) (*message, error) {
	m := &message{method: req.Method, url: req.URL, host: req.Host, header: req.Header, close: req.Close, req: req}
	if req.Body == nil || req.Body == http.NoBody {
		return m, nil
	}
	body, err := io.ReadAll(req.Body)
	closeBody(req)
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	if req.ContentLength > 0 && int64(len(body)) != req.ContentLength {
		return nil, fmt.Errorf("net/http: ContentLength=%d with Body length %d", req.ContentLength, len(body))
	}
	m.body = body
	return m, nil
}

// send is one request and its response's headers, without redirects. The
// hooks of trace (nil: none) are called as net/http's Transport calls
// them.
func (t *leanTransport) send(ctx context.Context, m *message, trace *httptrace.ClientTrace) (*http.Response, error) {
	key, err := urlHost(m.url)
	if err != nil {
		return nil, err
	}
	if key, m, err = t.viaProxy(key, m); err != nil {
		return nil, err
	}
	wire, err := t.encode(m)
	if err != nil {
		return nil, err
	}
	defer wire.free()
	if trace == nil {
		trace = &noTrace
	}
	resend := false
	for {
		if trace.GetConn != nil {
			trace.GetConn(key.addr)
		}
		c, reused, err := t.conn(ctx, key, trace, resend)
		if err != nil {
			return nil, err
		}
		if trace.GotConn != nil {
			info := httptrace.GotConnInfo{Conn: c.Conn, Reused: reused, WasIdle: reused}
			if reused {
				info.IdleTime = time.Since(c.idleAt)
			}
			trace.GotConn(info)
		}
		resp, answered, err := t.exchange(ctx, m, c, wire.b, trace)
		if err == nil {
			return resp, nil
		}
		t.pool.close(c)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !reused || answered || !closedBeforeResponse(err) {
			return nil, err
		}
		// The server closed the reused connection before any byte of an
		// answer: it cannot have acted on the request. Send it again
		// (net/http's rule), on a new connection; GetConn counts the
		// resend.
		resend = true
	}
}

// noTrace stands in for a request without httptrace hooks.
var noTrace httptrace.ClientTrace

// conn returns an idle connection to key or dials one; fresh dials one
// (see pool.slot).
func (t *leanTransport) conn(ctx context.Context, key hostKey, trace *httptrace.ClientTrace, fresh bool) (*conn, bool, error) {
	get := t.pool.get
	if fresh {
		get = t.pool.slot
	}
	c, h, err := get(ctx, key)
	if err != nil || c != nil {
		return c, c != nil, err
	}
	nc, err := t.dialConn(ctx, key, trace)
	if err != nil {
		t.pool.failed(h)
		return nil, false, err
	}
	nc2 := &conn{Conn: nc, peek: newPeeker(nc), host: h}
	nc2.src = headLimit{Conn: nc, left: -1}
	nc2.br = bufio.NewReaderSize(&nc2.src, t.bufSize)
	return nc2, false, nil
}

// dialConn opens a connection to key: TCP through the client's dialer
// (source addresses, the pre-opened connections; the dialer calls the
// DNS and connect hooks of ctx's trace), then TLS for https.
func (t *leanTransport) dialConn(ctx context.Context, key hostKey, trace *httptrace.ClientTrace) (net.Conn, error) {
	if trace != &noTrace && httptrace.ContextClientTrace(ctx) == nil {
		// Do's direct path: the dialer calls the DNS and connect hooks of
		// the context's trace, so the dial (and only the dial) gets one.
		ctx = httptrace.WithClientTrace(ctx, trace)
	}
	nc, err := t.dialOrTunnel(ctx, key)
	if err != nil || !key.tls {
		return nc, err
	}
	tc, err := t.handshake(ctx, nc, key, trace, []string{"http/1.1"})
	if err != nil {
		return nil, err
	}
	return tc, nil
}

// handshake runs the TLS client handshake of key on nc, offering protos
// by ALPN; it closes nc when the handshake fails.
func (t *leanTransport) handshake(ctx context.Context, nc net.Conn, key hostKey, trace *httptrace.ClientTrace, protos []string) (*tls.Conn, error) {
	cfg := &tls.Config{}
	if t.tlsConfig != nil {
		cfg = t.tlsConfig.Clone()
	}
	if cfg.ServerName == "" {
		host, _, _ := net.SplitHostPort(key.addr)
		cfg.ServerName = host
	}
	cfg.NextProtos = protos
	tc := tls.Client(socketUnder(nc), cfg)
	if trace.TLSHandshakeStart != nil {
		trace.TLSHandshakeStart()
	}
	hctx, cancel := context.WithTimeout(ctx, tlsHandshakeTimeout)
	err := tc.HandshakeContext(hctx)
	cancel()
	if trace.TLSHandshakeDone != nil {
		trace.TLSHandshakeDone(tc.ConnectionState(), err)
	}
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	return tc, nil
}

// tlsHandshakeTimeout bounds a TLS handshake, as the net/http transport's
// TLSHandshakeTimeout did.
const tlsHandshakeTimeout = 30 * time.Second

// aLongTimeAgo is a deadline in the past: set on a connection, it ends
// every read and write in progress on it at once.
var aLongTimeAgo = time.Unix(1, 0)

// exchange writes the request on c and reads the response's headers.
// answered reports whether any response byte arrived (a failure after it
// is no stale connection, and the request is not sent again). On success
// the response's body owns c.
//
// A large request is written on a goroutine of its own while the response
// is awaited, so a server that answers before it has read the whole body
// (413 Content Too Large, 401) is heard: its answer is the request's, the
// rest of the body is not written, and the connection is closed after the
// answer. A small one is written on the caller's goroutine; if the write
// fails, whatever the server answered before it closed is still read.
func (t *leanTransport) exchange(ctx context.Context, m *message, c *conn, wire []byte, trace *httptrace.ClientTrace) (resp *http.Response, answered bool, err error) {
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(aLongTimeAgo) })
	defer func() {
		if err != nil {
			stop()
		}
	}()
	c.src.left = t.maxHead
	var werr error
	var unfinished bool // the response began before the request was written whole
	if len(wire) <= syncWriteMax {
		_, werr = c.Write(wire)
		wrote(trace, werr)
		_, err = c.br.Peek(1)
	} else {
		done := make(chan error, 1)
		go func() {
			_, e := c.Write(wire)
			wrote(trace, e)
			done <- e
		}()
		_, err = c.br.Peek(1)
		select {
		case werr = <-done:
		default:
			unfinished = true
			_ = c.SetWriteDeadline(aLongTimeAgo) // stop writing
			<-done
		}
	}
	if err != nil {
		if werr != nil {
			err = werr // the first failure: the write's
		}
		return nil, false, err
	}
	unfinished = unfinished || werr != nil
	if trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	if m.method != http.MethodHead {
		if resp, ok := readPlainHead(c.br); ok {
			c.src.left = -1
			resp.Request = m.req
			resp.Body = &leanBody{c: c, t: t, stop: stop, keep: t.keepAlive && !m.close && !unfinished, plain: true, remaining: resp.ContentLength}
			return resp, true, nil
		}
	}
	for {
		status := bufferedStatus(c.br)
		resp, err = http.ReadResponse(c.br, m.req)
		if err != nil {
			if c.src.left == 0 {
				err = fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", t.maxHead)
			}
			if status != 0 {
				err = &badAnswer{status: status, err: err}
			}
			return nil, true, err
		}
		// An interim response (100 Continue, 102 Processing, 103 Early
		// Hints) comes before the real one, and counts towards the head
		// limit as in net/http; 101 would switch protocols, which was not
		// asked: it ends the exchange and its connection (see Do).
		if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	c.src.left = -1
	b := &leanBody{rc: resp.Body, c: c, t: t, stop: stop, keep: t.keepAlive && !resp.Close && !m.close && !unfinished}
	if resp.Body == http.NoBody || resp.StatusCode == http.StatusSwitchingProtocols {
		b.rc, b.keep = nil, b.keep && resp.StatusCode != http.StatusSwitchingProtocols
	}
	resp.Body = b
	return resp, true, nil
}

// syncWriteMax is the largest request written on the caller's goroutine:
// one the socket's send buffer takes at once, so the write returns
// without waiting on the server.
const syncWriteMax = 64 << 10

// wrote calls trace's hooks for a request written (or not: err).
func wrote(trace *httptrace.ClientTrace, err error) {
	if trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}
	if trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
}

// headLimit is a connection as its read buffer sees it: while left is not
// negative, at most left more bytes are read (the response head's limit,
// as net/http's Transport.MaxResponseHeaderBytes: a server streaming
// headers forever fails its request instead of growing the client).
type headLimit struct {
	net.Conn
	left int64 // -1: no limit (the body)
}

func (h *headLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.Conn.Read(p)
	}
	if h.left == 0 {
		return 0, errHeadLimit
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.Conn.Read(p)
	h.left -= int64(n)
	return n, err
}

var errHeadLimit = errors.New("response head limit reached")

// leanBody is a response body read straight from its connection. Read to
// its end, it hands the connection back to the pool (unless either side
// asked to close it); closed before its end, it closes the connection,
// since the rest of the response would still be on it.
type leanBody struct {
	rc io.ReadCloser // http.ReadResponse's body; nil for an empty or plain one
	// plain: a Content-Length body after a plain head (readPlainHead),
	// read straight from the connection's buffer.
	plain     bool
	remaining int64
	c         *conn
	t         *leanTransport
	stop      func() bool // unregisters the context's cancellation
	keep      bool        // the connection may carry another request
	done      bool
	mu        sync.Mutex // Close may come from another goroutine than Read
}

func (b *leanBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return 0, io.EOF
	}
	var n int
	var err error
	switch {
	case b.plain:
		n, err = readRemaining(b.c.br, &b.remaining, p)
	case b.rc == nil:
		err = io.EOF
	default:
		n, err = b.rc.Read(p)
	}
	if err == io.EOF {
		b.release(true)
	} else if err != nil {
		b.release(false)
	}
	return n, err
}

// Close ends the body; an empty body, or one read to its end, leaves the
// connection to the pool.
func (b *leanBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		b.release(b.rc == nil && (!b.plain || b.remaining == 0))
	}
	return nil
}

// release gives the connection back (complete: the response was read
// whole) or closes it.
func (b *leanBody) release(complete bool) {
	b.done = true
	// A cancellation that fired has set a past deadline on the connection:
	// it can carry nothing more.
	cancelled := !b.stop()
	if complete && b.keep && !cancelled {
		b.c.served++
		if b.c.served > 1 {
			b.t.pool.stats.learn.kept(b.c.host.key.addr)
		}
		b.t.pool.put(b.c)
		return
	}
	b.t.pool.close(b.c)
}

// urlHost is the pool key of u: its host and port (the scheme's default
// port when it has none) and whether it is https.
func urlHost(u *url.URL) (hostKey, error) {
	var key hostKey
	switch u.Scheme {
	case "http":
	case "https":
		key.tls = true
	default:
		return key, fmt.Errorf("unsupported protocol scheme %q", u.Scheme)
	}
	if u.Host == "" {
		return key, errors.New("http: no Host in request URL")
	}
	key.addr = u.Host
	if u.Port() == "" {
		port := "80"
		if key.tls {
			port = "443"
		}
		key.addr = net.JoinHostPort(u.Hostname(), port)
	}
	return key, nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// wireBuf is a request as it goes on the wire, headers and body, in one
// buffer from a pool: one write per request, and no buffer held by an
// idle connection.
type wireBuf struct{ b []byte }

var wireBufs = sync.Pool{New: func() any { return &wireBuf{b: make([]byte, 0, 2<<10)} }}

// free returns the buffer to its pool; a huge one (a request with a large
// image or video) is left to the collector.
func (w *wireBuf) free() {
	if cap(w.b) <= 256<<10 {
		w.b = w.b[:0]
		wireBufs.Put(w)
	}
}

// encode writes m in HTTP/1.1 wire format, as net/http would: request
// line, Host, User-Agent (net/http's default when the header is absent),
// Content-Length for a body or a POST, PUT or PATCH, "Connection: close"
// when keep-alive is off, then the caller's headers (those net/http
// writes itself, and those without a value, skipped) and the body. A
// header name or value net/http would refuse is an error.
func (t *leanTransport) encode(m *message) (_ *wireBuf, err error) {
	buf := wireBufs.Get().(*wireBuf)
	defer func() {
		if err != nil {
			buf.free()
		}
	}()
	b := buf.b[:0]
	method := m.method
	if method == "" {
		method = http.MethodGet
	}
	b = append(b, method...)
	b = append(b, ' ')
	if m.absolute {
		b = append(b, "http://"...)
		b = append(b, m.url.Host...)
	}
	b = appendRequestURI(b, m.url)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	host := m.host
	if host == "" {
		host = m.url.Host
	}
	b = append(b, host...)
	b = append(b, "\r\n"...)
	if _, ok := m.header["User-Agent"]; !ok {
		b = append(b, "User-Agent: Go-http-client/1.1\r\n"...)
	}
	if m.proxyAuth != "" {
		b = append(b, "Proxy-Authorization: "...)
		b = append(b, m.proxyAuth...)
		b = append(b, "\r\n"...)
	}
	if m.url.User != nil && len(m.header["Authorization"]) == 0 {
		b = append(b, "Authorization: "...) // the URL's userinfo, as http.Client sends it
		b = append(b, basicAuth(m.url.User)...)
		b = append(b, "\r\n"...)
	}
	for k, vs := range m.header {
		if skipHeader(k) {
			continue
		}
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("net/http: invalid header field name %q", k)
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("net/http: invalid header field value for %q", k)
			}
			if k == "User-Agent" && v == "" {
				continue // an empty User-Agent asks for none
			}
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, textproto.TrimString(v)...)
			b = append(b, "\r\n"...)
		}
	}
	if !t.keepAlive || m.close {
		b = append(b, "Connection: close\r\n"...)
	}
	if len(m.body) > 0 || method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(m.body)), 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	b = append(b, m.body...)
	buf.b = b
	return buf, nil
}

// appendRequestURI appends u's request target (url.URL.RequestURI without
// its allocation for the common absolute path without a query).
func appendRequestURI(b []byte, u *url.URL) []byte {
	if u.RawQuery == "" && u.Opaque == "" && u.RawPath == "" && !u.ForceQuery && plainPath(u.Path) {
		return append(b, u.Path...)
	}
	return append(b, u.RequestURI()...)
}

// plainPath reports whether p is an absolute path that needs no escaping.
func plainPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '/', c == '-', c == '.', c == '_', c == '~':
		default:
			return false
		}
	}
	return true
}

// maxRedirects is how many redirects a request follows, net/http's limit.
const maxRedirects = 10

// do sends m and follows its 307 and 308 redirects (the ones that keep the
// method and body) as http.Client with checkRedirect does: up to
// maxRedirects hops, each answer's body drained, a Referer naming the last
// URL, and the credentials left out when the redirect leaves the host. Any
// other status, a 301, 302 or 303 included, is the answer. It is Do's path
// for a request whose context carries no httptrace of its own: no
// http.Request and no traced context are built.
func (t *leanTransport) do(ctx context.Context, m *message, trace *httptrace.ClientTrace) (*http.Response, error) {
	first := m.url
	for hops := 0; ; hops++ {
		resp, err := t.send(ctx, m, trace)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTemporaryRedirect && resp.StatusCode != http.StatusPermanentRedirect {
			return resp, nil
		}
		loc := resp.Header.Get("Location")
		if loc == "" {
			return resp, nil // nothing to follow: the answer, as net/http
		}
		drain(resp.Body)
		if hops+1 >= maxRedirects {
			return nil, fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		next, err := m.url.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("failed to parse Location header %q: %w", loc, err)
		}
		h := m.header.Clone()
		if h == nil {
			h = http.Header{}
		}
		if !sameHostOrSubdomain(next.Hostname(), first.Hostname()) {
			for _, k := range []string{"Authorization", "Www-Authenticate", "Cookie", "Cookie2", "Proxy-Authorization"} {
				delete(h, k)
			}
		}
		if !(m.url.Scheme == "https" && next.Scheme == "http") {
			ref := *m.url
			ref.User, ref.Fragment = nil, ""
			h.Set("Referer", ref.String())
		}
		m = &message{method: m.method, url: next, header: h, body: m.body, close: m.close}
	}
}

// drain reads what is left of a redirect's body (a little: 2 KiB, as
// http.Client) so its connection can carry the next hop, then closes it.
func drain(body io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, body, 2<<10)
	_ = body.Close()
}

// sameHostOrSubdomain reports whether host is parent or a subdomain of it:
// where http.Client keeps sensitive headers on a redirect.
func sameHostOrSubdomain(host, parent string) bool {
	host, parent = strings.ToLower(host), strings.ToLower(parent)
	return host == parent || strings.HasSuffix(host, "."+parent)
}

// skipHeader reports the headers net/http writes itself from the request's
// fields, whatever the header map says.
func skipHeader(k string) bool {
	switch k {
	case "Host", "Content-Length", "Transfer-Encoding", "Trailer":
		return true
	}
	return false
}
