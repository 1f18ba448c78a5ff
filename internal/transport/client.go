// Package transport sends benchmark requests over HTTP and reads their
// responses, stamping every step on the run clock.
//
// One Client (one keep-alive pool: the lean HTTP/1.1 transport's, or
// net/http's Transport, Options.NetHTTP) serves every
// worker of a run, so that connections are pooled and reused across
// thousands of concurrent streams.
// Do never returns an error: every failure (refused connection, timeout,
// cancellation, non-2xx status, broken stream) is recorded on the
// record.Record it fills, because a failed request is a measurement too.
package transport

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// DefaultMaxIdleConnsPerHost is the idle pool kept per host when
// Options.MaxIdleConnsPerHost is 0. It is large so that a run at high
// concurrency reuses its connections instead of redialling after every
// response; set it to the run's concurrency when that is known.
const DefaultMaxIdleConnsPerHost = 4096

// Options tune the shared HTTP client. The zero value is usable: no
// per-request timeout, no connection cap, a large idle pool.
type Options struct {
	// Timeout bounds one request from send to the end of its body
	// (--request-timeout-seconds). 0 means no limit. When it elapses the
	// record gets a record.TypeTimeout error.
	Timeout time.Duration
	// MaxConnsPerHost caps connections per host, idle or active. 0 means no
	// cap, which is what a load generator wants: a cap would queue requests
	// inside the client and hide the server's latency behind ours.
	MaxConnsPerHost int
	// MaxIdleConnsPerHost is how many idle connections are kept per host for
	// reuse. 0 means DefaultMaxIdleConnsPerHost.
	MaxIdleConnsPerHost int
	// InsecureSkipVerify disables TLS certificate verification, for
	// self-signed inference endpoints (TLSFiles.SkipVerify).
	InsecureSkipVerify bool
	// TLS, when set, is the base of every TLS connection's configuration
	// (authorities, client certificate; see TLSFiles.Config). The
	// transport sets ServerName and the ALPN protocols itself.
	TLS *tls.Config
	// Proxy picks each request's proxy (EnvProxy); nil sends every
	// request direct. Both engines send http requests to an HTTP proxy
	// in absolute form and tunnel https ones through CONNECT.
	Proxy ProxyFunc
	// HTTPVersion is the version spoken. HTTP2 runs on net/http's
	// Transport; HTTPAuto runs HTTP/1.1 on the lean transport and hands
	// to net/http's HTTP/2 only the TLS servers that pick h2 by ALPN
	// (see Client.pickH2).
	HTTPVersion HTTPVersion
	// Reuse is the connection reuse strategy; the zero value pools.
	Reuse Reuse
	// BackoffRefused pauses before each request while connections are
	// being refused (no listener), doubling from 10 ms to 1 s, so a dead
	// server is not sent thousands of requests a second. The pause comes
	// before Sent: it shows as schedule lag.
	BackoffRefused bool
	// TraceDetail keeps every body read and write, the headers and the
	// socket of each request in Record.Trace.Detail (--export-http-trace).
	// The timeline itself is always recorded.
	TraceDetail bool
	// LocalAddrs, when set, are the source addresses new connections are
	// dialed from, in turn (several 127.0.0.x for a loopback target, each
	// with its own ephemeral ports, so one process can hold more
	// connections than one address has ports). Empty lets the kernel
	// choose.
	LocalAddrs []net.IP
	// ConnBufferSize, when positive, is the size of each connection's read
	// buffer (and, with net/http's Transport, its write buffer; 4 KiB each
	// by default). Every open connection holds them for its lifetime, so
	// 100,000 streams spend 400 MB on read buffers at the default (800 MB
	// with net/http's); a smaller buffer only costs more copies of bodies
	// larger than it. The lean transport writes each request from a pooled
	// buffer.
	ConnBufferSize int
	// NetHTTP selects net/http's Transport for every request instead of
	// the lean HTTP/1.1 transport (leanTransport): in tests, the
	// reference the lean one is checked against. HTTP2 implies it. Users
	// cannot choose it for HTTP/1.1 (BENCHMARKS.md, "Transport truth"),
	// so a run never sets it: HTTP/2 is chosen by HTTPVersion.
	NetHTTP bool
	// MaxResponseHeaderBytes caps the bytes of a response's head (its
	// status line and headers, interim 1xx heads included). 0 means
	// DefaultMaxResponseHeaderBytes. A server that goes past it fails its
	// request with an error naming the limit, instead of growing the
	// client without end.
	MaxResponseHeaderBytes int64
	// Sign, when set, signs each request at send time (AWS SigV4): it is
	// given a copy of the request's headers to add its own to, once per
	// attempt, so a signature's date is the send's. An error fails the
	// request before it is sent.
	Sign Signer
}

// Signer adds authentication headers to h for a request of method to
// url with body (see Options.Sign).
type Signer func(method, url string, h http.Header, body []byte) error

// DefaultMaxResponseHeaderBytes is the default cap of a response head:
// net/http's (10 MiB), far above any real server's head, and low enough
// that a server streaming headers forever fails its request instead of
// growing the client without end.
const DefaultMaxResponseHeaderBytes = 10 << 20

// HeaderLimitSetting names the settings of Options.MaxResponseHeaderBytes
// in the error of a response whose head went past it.
const HeaderLimitSetting = "--http-max-response-header-bytes or AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES"

// maxResponseHeaderBytes is o's response head cap.
func maxResponseHeaderBytes(o Options) int64 {
	if o.MaxResponseHeaderBytes > 0 {
		return o.MaxResponseHeaderBytes
	}
	return DefaultMaxResponseHeaderBytes
}

// tlsConfig is the base TLS configuration of o (nil: the default), a
// copy of its own for each transport: net/http's adds its ALPN protocols
// to the one it is given.
func (o *Options) tlsConfig() *tls.Config {
	if o.TLS == nil && !o.InsecureSkipVerify {
		return nil
	}
	cfg := &tls.Config{}
	if o.TLS != nil {
		cfg = o.TLS.Clone()
	}
	if o.InsecureSkipVerify {
		cfg.InsecureSkipVerify = true //nolint:gosec // opt-in for self-signed servers
	}
	return cfg
}

// Client sends requests over one shared, tuned transport. It is safe
// for concurrent use by any number of goroutines.
type Client struct {
	hc     *http.Client // the pool (ReusePooled), or one connection per request (ReuseNever)
	fresh  *http.Client // never reuses a connection: the resend after a stale one
	reuse  Reuse
	leases leases // ReuseSticky's per-session connections
	// h2 is HTTPAuto's HTTP/2 engine (net/http's), for the TLS servers
	// that pick h2 by ALPN (pickH2); nil for the other versions. hc,
	// fresh and leases are then the lean transport's, HTTP/1.1.
	h2       *engine
	alpn     sync.Map // HTTPAuto: "host:port" -> *alpnProbe
	backoff  bool
	refused  atomic.Int64 // consecutive refused connections (BackoffRefused)
	timeout  time.Duration
	readers  sync.Pool    // *SSEReader, reused across streams
	traces   sync.Pool    // *reqTrace whose request left nothing behind (reusable)
	urls     sync.Map     // string -> *url.URL, the lean path's parsed URLs (see parseURL)
	urlCount atomic.Int64 // entries stored in urls

	stats       *connStats    // the lean transports' connection events
	learn       *closeLearner // servers that close every connection
	maxHead     int64         // the response head cap (MaxResponseHeaderBytes)
	pre         *preconnector // connections opened by Preconnect; nil until then
	dial        dialFunc      // how the transports dial (source addresses applied)
	traceDetail bool
	sign        Signer

	version HTTPVersion
	tlsBase *tls.Config // Options' TLS settings, for diagnose's probe
	h2only  sync.Map    // "host:port" -> bool, diagnose's probes
}

// New builds the shared client.
//
// The transport speaks HTTP/1.1 (one stream per connection, as AIPerf's
// aiohttp connector) unless Options.HTTPVersion asks for HTTP/2 (or, with
// HTTPAuto, a TLS server picks it), uses a
// proxy only through Options.Proxy, never asks for compression (Do
// decodes what a server compresses anyway), and keeps connections alive
// with TCP keep-alive. It is the lean transport (request and response on
// the caller's goroutine, see leanTransport) for every HTTP/1.1 request
// unless Options.NetHTTP selects net/http's; HTTP/2 is net/http's.
func New(o Options) *Client {
	idle := o.MaxIdleConnsPerHost
	if idle <= 0 {
		idle = DefaultMaxIdleConnsPerHost
	}
	dial := sourceDialer(o.LocalAddrs)
	pre := &preconnector{}
	learn := &closeLearner{}
	stats := &connStats{learn: learn}
	var e *engine
	if o.NetHTTP || o.HTTPVersion == HTTP2 {
		e = netHTTPEngine(pre.dialContext(dial), dial, o, idle)
	} else {
		t := newLeanTransport(pre.dialContext(dial), o, idle, true, stats)
		e = &engine{
			hc:     &http.Client{Transport: t, CheckRedirect: checkRedirect},
			fresh:  &http.Client{Transport: newLeanTransport(dial, o, idle, false, stats), CheckRedirect: checkRedirect},
			leases: leases{single: func() http.RoundTripper { return t.single() }},
		}
	}
	c := &Client{
		hc:      e.hc,
		fresh:   e.fresh,
		reuse:   o.Reuse,
		backoff: o.BackoffRefused,
		leases:  leases{single: e.leases.single},
		timeout: max(o.Timeout, 0),
		pre:     pre,
		stats:   stats,
		learn:   learn,
		maxHead: maxResponseHeaderBytes(o),
		dial:    dial,

		traceDetail: o.TraceDetail,
		sign:        o.Sign,
		version:     o.HTTPVersion,
		tlsBase:     o.tlsConfig(),
	}
	if o.HTTPVersion == HTTPAuto && !o.NetHTTP {
		h2 := o
		h2.HTTPVersion = HTTP2
		c.h2 = netHTTPEngine(pre.dialContext(dial), dial, h2, idle)
	}
	if o.Reuse == ReuseNever {
		c.hc = c.fresh
		if c.h2 != nil {
			c.h2.hc = c.h2.fresh
		}
	}
	return c
}

// engine is one HTTP engine's clients: the pool, the client of a resend
// (a connection of its own), and the sticky sessions' connections.
type engine struct {
	hc, fresh *http.Client
	leases    leases
}

// netHTTPEngine is net/http's Transport as an engine: pooled connections
// dialed with pooled (the pre-opened ones first), a resend's with dial.
func netHTTPEngine(pooled, dial dialFunc, o Options, idle int) *engine {
	t := netHTTPTransport(pooled, o, idle)
	never := t.Clone()
	never.DisableKeepAlives = true
	never.DialContext = dial // a resend wants a connection dialed now, not one opened before the run
	return &engine{
		hc:    &http.Client{Transport: t, CheckRedirect: checkRedirect},
		fresh: &http.Client{Transport: never, CheckRedirect: checkRedirect},
		leases: leases{single: func() http.RoundTripper {
			s := t.Clone()
			s.MaxConnsPerHost, s.MaxIdleConnsPerHost = 1, 1
			return s
		}},
	}
}

// netHTTPTransport is net/http's Transport tuned as the lean one: the
// HTTP versions of o (HTTP/1.1 by default), the proxy of o, no
// compression asked for (Do decodes a compressed body itself, stamping
// each chunk when its compressed bytes arrive).
func netHTTPTransport(dial dialFunc, o Options, idle int) *http.Transport {
	var proxy func(*http.Request) (*url.URL, error)
	if o.Proxy != nil {
		proxy = func(r *http.Request) (*url.URL, error) { return o.Proxy(r.URL) }
	}
	t := &http.Transport{
		Proxy:               proxy,
		DialContext:         dial,
		MaxIdleConns:        0, // no global cap; the per-host cap below applies
		MaxIdleConnsPerHost: idle,
		MaxConnsPerHost:     max(o.MaxConnsPerHost, 0),
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: tlsHandshakeTimeout,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		Protocols:           protocols(o.HTTPVersion),
		ReadBufferSize:      max(o.ConnBufferSize, 0),
		WriteBufferSize:     max(o.ConnBufferSize, 0),
		TLSClientConfig:     o.tlsConfig(),

		MaxResponseHeaderBytes: maxResponseHeaderBytes(o),
	}
	return t
}

// checkRedirect follows only the redirects that keep the method and body
// (307, 308), as far as net/http's limit of 10. A 301, 302 or 303 would
// turn the POST into a GET of another URL, whose answer is not a response
// to the request: it ends the request with the redirect itself, which Do
// records as an error naming the status and Location.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if req.Response != nil {
		switch req.Response.StatusCode {
		case http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		default:
			return http.ErrUseLastResponse
		}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// Close releases idle connections, the sticky sessions' included.
// In-flight requests are not affected.
func (c *Client) Close() {
	c.hc.CloseIdleConnections()
	c.fresh.CloseIdleConnections()
	c.leases.closeAll()
	if c.h2 != nil {
		c.h2.hc.CloseIdleConnections()
		c.h2.fresh.CloseIdleConnections()
		c.h2.leases.closeAll()
	}
	c.pre.close()
}

// Request is one HTTP POST to send.
//
// Header is sent as given: Do adds no headers of its own, so the caller
// supplies Content-Type, Authorization, X-Request-ID, X-Correlation-ID,
// User-Agent and any user headers. (Without a User-Agent, net/http sends its
// default "Go-http-client/1.1".) Do neither modifies nor retains Header or
// Body after it returns.
type Request struct {
	// Method is the HTTP method; "" is POST, what inference requests use
	// (a video job is polled with GET).
	Method string
	URL    string
	Body   []byte
	Header http.Header
	// Session keys the connection of ReuseSticky (the conversation's
	// correlation id); EndSession closes it. The other strategies ignore
	// it.
	Session string
	// OnChunk, when set, is called on the reading goroutine with each
	// streamed event's data right after it is recorded (the bytes stay
	// valid; they are the record's). The worker uses it to see the first
	// token (--prefill-concurrency).
	OnChunk func(data []byte)
	// OnSent, when set, is called on the sending goroutine with the record
	// the moment its Sent is stamped, before the first byte is written (also
	// when the request fails before any byte could be written, or cannot be
	// signed). Do calls it exactly once: a resend keeps the first Sent. It
	// takes the record, not a closure over it, so that a caller can share
	// one hook among all its requests (a worker pool's) instead of
	// allocating one per request.
	OnSent func(rec *record.Record)
}
