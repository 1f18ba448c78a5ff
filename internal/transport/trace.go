package transport

import (
	"crypto/tls"
	"io"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// reqTrace follows one request through net/http with httptrace and fills
// its record.HTTPTrace. It also counts the request's resends (see
// Record.ConnectionRetries).
//
// Which goroutine calls what: GetConn, GotConn and the reads of the
// response body run on the goroutine that called Client.Do, and so does
// GotFirstResponseByte as far as ordering goes (the transport's read loop
// calls it before handing the response over a channel). WroteHeaders,
// WroteRequest and the reads of the request body run on the connection's
// write loop; the DNS, connect and TLS hooks run on the dialing goroutine,
// which net/http may keep running after the request got another
// connection, or after Do returned. Those are atomics.
type reqTrace struct {
	clk *clock.Clock
	rec *record.Record
	pre *preconnector // nil without --pre-connect

	// Resend accounting (caller goroutine): net/http calls GetConn once per
	// attempt, its own resends included, and GotFirstResponseByte when an
	// attempt got an answer. An attempt that follows one without an answer
	// is a resend; one that follows an answer is a redirect hop.
	retries   int
	attempts  int           // GetConn calls: attempts and redirect hops
	started   bool          // an attempt was made
	responded bool          // the last attempt got a response byte
	wasIdle   bool          // the last attempt's connection came from the idle pool
	idle      time.Duration // how long the last attempt's connection sat idle
	staleIdle time.Duration // that of the last attempt resent (retries > 0)

	// Stamps from other goroutines, as run-clock nanoseconds.
	dnsStart, dnsDone      atomic.Int64
	connStart, connDone    atomic.Int64
	tlsStart, tlsDone      atomic.Int64
	wroteHeaders, wroteReq atomic.Int64
	// bodyLen is the request body's size (set before the request is
	// sent): net/http hands an in-memory body to the connection in one
	// write, so a written request sent bodyLen bytes in one chunk.
	bodyLen int64

	// wrote (buffered, 1) gets a token when the current attempt's
	// WroteRequest hook has run. net/http calls that hook on the write
	// loop after the request's last flush, so a quick server's answer can
	// reach the caller, and Do can return, before it runs; finish waits
	// for the token (see wroteWait). GetConn drops an earlier attempt's.
	wrote chan struct{}
	// wroteDone is set by the WroteRequest hook, the write loop's last
	// call for the request (reusable).
	wroteDone atomic.Bool

	detail *record.TraceDetail // nil unless exported
	trace  httptrace.ClientTrace
}

// wroteWait bounds how long finish waits for the WroteRequest hook of a
// request that was answered. The hook is due right after the flush that
// put the request on the wire, so it only waits out a write loop that was
// descheduled on a loaded machine; past the bound the record keeps no
// WroteRequest stamp (its sending and waiting metrics are then absent).
const wroteWait = 100 * time.Millisecond

// newReqTrace returns the trace of rec's request. With detail, per-chunk
// stamps, headers and the socket are kept in rec.Trace.Detail.
func newReqTrace(clk *clock.Clock, rec *record.Record, pre *preconnector, detail bool) *reqTrace {
	t := &reqTrace{wrote: make(chan struct{}, 1)}
	t.hook()
	t.reset(clk, rec, pre, detail)
	return t
}

// reset points a new or reused trace at rec's request. Every stamp is
// cleared again by GetConn at the start of each attempt.
func (t *reqTrace) reset(clk *clock.Clock, rec *record.Record, pre *preconnector, detail bool) {
	t.clk, t.rec, t.pre = clk, rec, pre
	t.retries, t.attempts, t.started, t.responded, t.wasIdle = 0, 0, false, false, false
	t.idle, t.staleIdle = 0, 0
	t.bodyLen = 0
	t.wroteDone.Store(false)
	t.detail = nil
	if detail {
		t.detail = &record.TraceDetail{}
	}
}

// reusable reports whether no hook of the finished request can still run,
// so the trace (and its hook closures, most of a request's allocations in
// the transport) may serve the next request: one attempt, on a connection
// taken from the idle pool (net/http started no dial for it, whose hooks
// could run after Do returned), whose write loop has made its last call.
// A trace with exported detail is never reused: the record keeps it.
func (t *reqTrace) reusable() bool {
	return t.detail == nil && t.attempts == 1 && t.retries == 0 && t.wasIdle && t.wroteDone.Load()
}

func (t *reqTrace) now() int64 { return int64(t.clk.Now()) }

// hook installs the httptrace hooks, once per trace. They reach the
// request only through t, so reset re-targets them.
func (t *reqTrace) hook() {
	t.trace.GetConn = func(string) {
		t.attempts++
		if t.started && !t.responded {
			t.retries++
			t.staleIdle = t.idle
		}
		t.idle = 0
		t.started, t.responded, t.wasIdle = true, false, false
		select {
		case <-t.wrote:
		default:
		}
		// A new attempt: its timeline replaces the last one's.
		tr := &t.rec.Trace
		*tr = record.HTTPTrace{GetConn: t.clk.Now()}
		for _, a := range []*atomic.Int64{&t.dnsStart, &t.dnsDone, &t.connStart, &t.connDone,
			&t.tlsStart, &t.tlsDone, &t.wroteHeaders, &t.wroteReq} {
			a.Store(0)
		}
		if t.detail != nil {
			t.detail.ResponseChunks = t.detail.ResponseChunks[:0]
		}
	}
	t.trace.GotConn = func(i httptrace.GotConnInfo) {
		tr := &t.rec.Trace
		tr.GotConn = t.clk.Now()
		tr.Reused, t.wasIdle, t.idle = i.Reused, i.WasIdle, i.IdleTime
		if !i.Reused && t.pre != nil && t.pre.owns(i.Conn) {
			tr.Preconnected = true
		}
		if t.detail != nil && i.Conn != nil {
			t.detail.LocalAddr = i.Conn.LocalAddr().String()
			t.detail.RemoteAddr = i.Conn.RemoteAddr().String()
		}
	}
	t.trace.GotFirstResponseByte = func() {
		t.responded = true
		t.rec.Trace.FirstByte = t.clk.Now()
	}
	t.trace.DNSStart = func(httptrace.DNSStartInfo) { t.dnsStart.CompareAndSwap(0, t.now()) }
	t.trace.DNSDone = func(httptrace.DNSDoneInfo) { t.dnsDone.Store(t.now()) }
	// A host with several addresses may be tried more than once: the
	// connect runs from the first try to the last success.
	t.trace.ConnectStart = func(string, string) { t.connStart.CompareAndSwap(0, t.now()) }
	t.trace.ConnectDone = func(_, _ string, err error) {
		if err == nil {
			t.connDone.Store(t.now())
		}
	}
	t.trace.TLSHandshakeStart = func() { t.tlsStart.CompareAndSwap(0, t.now()) }
	t.trace.TLSHandshakeDone = func(tls.ConnectionState, error) { t.tlsDone.Store(t.now()) }
	t.trace.WroteHeaders = func() { t.wroteHeaders.Store(t.now()) }
	t.trace.WroteRequest = func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			t.wroteReq.Store(t.now())
		}
		select {
		case t.wrote <- struct{}{}:
		default:
		}
		t.wroteDone.Store(true)
	}
}

// finish completes rec.Trace with the stamps taken off the caller's
// goroutine. Call it once Do is done with the request.
func (t *reqTrace) finish() {
	tr := &t.rec.Trace
	if !tr.Traced() {
		return
	}
	d := func(a *atomic.Int64) time.Duration { return time.Duration(a.Load()) }
	if t.wroteReq.Load() == 0 && tr.FirstByte != 0 {
		// Answered, so written: the write loop's hook is imminent.
		timer := time.NewTimer(wroteWait)
		select {
		case <-t.wrote:
		case <-timer.C:
		}
		timer.Stop()
	}
	tr.WroteHeaders = d(&t.wroteHeaders)
	tr.WroteRequest = d(&t.wroteReq)
	if fb := tr.FirstByte; fb != 0 {
		// The write loop stamps after its flush; descheduled there, its
		// stamp can fall after the answer's first byte. The request was on
		// the wire by then, so the first byte bounds both stamps, and
		// waiting is never negative.
		tr.WroteHeaders, tr.WroteRequest = min(tr.WroteHeaders, fb), min(tr.WroteRequest, fb)
	}
	if tr.WroteRequest != 0 && t.bodyLen > 0 {
		tr.BytesSent, tr.ChunksSent = t.bodyLen, 1
	}
	if !tr.Reused && !t.wasIdle && tr.GotConn != 0 {
		// The connection is this request's own if its dial finished before
		// the request had it; otherwise net/http handed it one that another
		// dial (or --pre-connect) opened.
		start, done := d(&t.connStart), d(&t.connDone)
		if ts, td := d(&t.tlsStart), d(&t.tlsDone); td != 0 {
			if start == 0 {
				start = ts
			}
			done = max(done, td)
		}
		if start != 0 && done != 0 && done <= tr.GotConn {
			tr.ConnectStart, tr.ConnectDone, tr.Dialed = start, done, true
			if ds, dd := d(&t.dnsStart), d(&t.dnsDone); ds != 0 && dd != 0 && dd <= start {
				tr.DNSStart, tr.DNSDone = ds, dd
			}
		}
	}
	if t.detail != nil {
		t.detail.RequestChunks = nil
		if tr.ChunksSent > 0 {
			// The body went out with the request's last write.
			t.detail.RequestChunks = []record.TraceChunk{{At: tr.WroteRequest, Size: int(t.bodyLen)}}
		}
		tr.Detail = t.detail
	}
}

// failed stamps the transport's failure.
func (t *reqTrace) failed(at time.Duration) {
	if t.rec.Trace.Traced() {
		t.rec.Trace.Failed = at
	}
}

// tracedReader reads the response body, counting bytes and reads and
// stamping the first and the last read that returned data.
type tracedReader struct {
	r io.Reader
	t *reqTrace
	n int64
}

func (c *tracedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n += int64(n)
		now := c.t.clk.Now()
		tr := &c.t.rec.Trace
		if tr.BodyStart == 0 {
			tr.BodyStart = now
		}
		tr.BodyEnd = now
		tr.BytesReceived += int64(n)
		tr.ChunksReceived++
		if d := c.t.detail; d != nil {
			d.ResponseChunks = append(d.ResponseChunks, record.TraceChunk{At: now, Size: n})
		}
	}
	return n, err
}
