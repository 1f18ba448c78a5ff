package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// MaxErrorBody is how much of a non-2xx response body is kept as the error
// message. Error summaries group by message, so a whole HTML error page per
// record would only cost memory.
const MaxErrorBody = 1 << 10

// SSEErrorCode is the code AIPerf gives an `event: error` SSE block in an
// otherwise successful response (it maps it to 502 Bad Gateway).
const SSEErrorCode = 502

// errRequestTimeout is the cancellation cause of the per-request deadline.
// Comparing causes, rather than ctx.Err values, is what tells our own
// timeout apart from the caller cancelling: both surface as context errors
// from net/http, but only the deadline carries this cause.
var errRequestTimeout = errors.New("request timeout")

// drainLimit is how much of an unread body is discarded on close so that the
// connection can go back to the pool; beyond it the connection is closed.
const drainLimit = 64 << 10

// Do sends req and fills rec with what happened. It never returns an error:
// failures are recorded in rec.Error.
//
// Fields set: Sent (just before the request is handed to net/http), Ack
// (response headers received), End, Status, Streaming, Chunks, RequestBytes,
// ResponseBytes, and on failure Error, plus Cancelled and CancelledAt when
// ctx was cancelled, and ConnectionRetries. Chunks received before a
// failure are kept.
//
// Stale connections: a request whose reused keep-alive connection proves
// dead before any response byte (the server closed it while it sat idle,
// as llama-server and many proxies do after a response whose headers
// promised keep-alive) cannot have been processed, so it is sent again
// instead of failing: by net/http itself, which resends a replayable
// request on another connection (see idempotencyKey), and once more by Do
// on a new connection when net/http would not. Each resend counts in
// ConnectionRetries; Sent stays the time of the first send, and a request
// that fails on a new connection fails for real. Only a close before any
// response byte is resent (staleConnection): an answer, however malformed,
// is the request's record. A server found to close every connection after
// one response gets a new connection per request (closeLearner).
//
// A 101 Switching Protocols (never asked for) is an HTTPError with code
// 101; its connection is closed unread.
//
// Classification, in order of precedence:
//   - the per-request Options.Timeout elapsed: record.TypeTimeout, code 0;
//   - ctx was cancelled by the caller: record.CancelledError, code 499;
//   - no response headers (refused, DNS, dial, reset before the response):
//     record.TypeConnect, code 0, the Go error text as message;
//   - status outside 2xx: record.HTTPError with the reason phrase and up to
//     MaxErrorBody bytes of the body;
//   - the body broke off (reset, unexpected EOF): record.TypeStream;
//   - an `event: error` SSE block: record.TypeServerReported, code 502.
func (c *Client) Do(ctx context.Context, clk *clock.Clock, req *Request, rec *record.Record) {
	rec.RequestBytes = len(req.Body)
	reqCtx, cancel := ctx, context.CancelFunc(func() {})
	if c.timeout > 0 {
		reqCtx, cancel = context.WithTimeoutCause(ctx, c.timeout, errRequestTimeout)
	}
	defer cancel()
	hc, fresh, sessions := c.hc, c.fresh, &c.leases
	if c.h2 != nil && c.pickH2(reqCtx, req.URL) {
		hc, fresh, sessions = c.h2.hc, c.h2.fresh, &c.h2.leases
	}
	retry := fresh // a resend's client: a connection of its own
	if c.reuse == ReuseSticky && req.Session != "" {
		hc = sessions.get(req.Session)
		retry = hc // the session's client dials anew, its one connection being gone
		// A failed or cancelled request leaves its connection unusable.
		defer func() {
			if rec.Error != nil || rec.Cancelled {
				sessions.release(req.Session)
			}
		}()
	} else if c.learn.anyOff.Load() && c.learn.noReuse(c.hostAddr(req.URL)) {
		hc, retry = fresh, fresh // a server that closes every connection (closeLearner)
	}
	rt := c.trace(clk, rec)
	defer func() {
		rec.ConnectionRetries = rt.retries
		rt.finish()
		if rt.reusable() {
			rt.rec = nil
			c.traces.Put(rt)
		}
	}()
	resp, hreq, ok := c.send(ctx, reqCtx, clk, req, rec, rt, hc, retry)
	if !ok {
		return
	}
	rec.Ack = clk.Now()
	rec.Status = resp.StatusCode
	rec.ContentType = headerValue(resp.Header, "Content-Type")
	if _, tgi := resp.Header[record.HeaderTGIQueue]; tgi { // TGI's own timings
		rec.Server, _ = record.ParseTGIHeaders(resp.Header.Get)
	}
	if d := rt.detail; d != nil {
		if hreq != nil {
			d.RequestHeader = hreq.Header
		} else {
			d.RequestHeader = req.Header.Clone() // Do keeps nothing of the caller's
		}
		d.ResponseHeader, d.Reason = resp.Header, reasonPhrase(resp)
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// Not asked for: the connection now speaks another protocol, and
		// its body is the raw connection, which no deadline bounds. It is
		// closed unread.
		_ = resp.Body.Close()
		rec.End = clk.Now()
		rec.Error = record.HTTPError(resp.StatusCode, reasonPhrase(resp), fmt.Sprintf(
			"the server switched protocols (Upgrade: %q), which the request did not ask for; its connection was closed", resp.Header.Get("Upgrade")))
		rt.failed(rec.End)
		return
	}
	c.receive(ctx, reqCtx, clk, req, rec, rt, resp)
}

// send sends req on hc (or the lean transport behind it) and returns the
// response head, once more on retry when the first send met a stale
// connection (staleConnection). When ok is false the failure is already
// on rec.
func (c *Client) send(ctx, reqCtx context.Context, clk *clock.Clock, req *Request, rec *record.Record, rt *reqTrace, hc, retry *http.Client) (resp *http.Response, hreq *http.Request, ok bool) {
	if c.sign != nil {
		signed, err := c.signed(req)
		if err != nil {
			stampSent(clk, req, rec)
			rec.End = rec.Sent
			rec.Error = &record.ErrorDetails{Type: SigningErrorType, Message: err.Error()}
			return nil, nil, false
		}
		req = signed
	}
	// The lean transport is called directly (no http.Request, no traced
	// context) unless the caller traces the request itself: then
	// http.Client's path composes both traces.
	lt, direct := hc.Transport.(*leanTransport)
	direct = direct && httptrace.ContextClientTrace(ctx) == nil
	var (
		m      *message
		traced context.Context
		err    error
	)
	if direct {
		m, err = c.message(req)
		rt.bodyLen = int64(len(req.Body))
	} else {
		traced = httptrace.WithClientTrace(reqCtx, &rt.trace)
		hreq, err = newHTTPRequest(traced, req, rt)
	}
	if err != nil {
		// A malformed URL is a configuration fault, but the contract is
		// that Do records rather than returns; validation upstream should
		// make this unreachable.
		stampSent(clk, req, rec)
		c.fail(ctx, reqCtx, clk, rec, err, record.TypeConnect)
		return nil, nil, false
	}

	if c.backoff {
		if !c.pauseWhileRefused(ctx) {
			stampSent(clk, req, rec)
			c.fail(ctx, reqCtx, clk, rec, ctx.Err(), record.TypeConnect)
			return nil, nil, false
		}
		// Noted once the head arrived or the send failed: only a refused
		// dial (no status) counts, and any answer resets the count.
		defer func() { c.noteRefused(rec) }()
	}
	stampSent(clk, req, rec)
	if direct {
		resp, err = lt.do(reqCtx, m, &rt.trace)
	} else {
		resp, err = hc.Do(hreq)
	}
	if err != nil && staleConnection(ctx, reqCtx, rec.Trace.Reused || rec.Trace.Preconnected, rt.responded, err) {
		// Once more on a connection of its own: the pool may hold more
		// connections the server has closed. Sent stays the first
		// send's: the resend is the client's cost, not the server's.
		if rlt, ok := retry.Transport.(*leanTransport); ok && direct {
			resp, err = rlt.do(reqCtx, m, &rt.trace)
		} else if hreq, err = newHTTPRequest(traced, req, rt); err == nil {
			resp, err = retry.Do(hreq)
		}
	}
	if rt.retries > 0 && rt.staleIdle < learnWithin {
		c.learn.closed(c.hostAddr(req.URL))
	} else if err == nil && rec.Trace.Reused && c.learn.counting.Load() != 0 {
		c.learn.kept(c.hostAddr(req.URL))
	}
	if err != nil {
		rt.failed(clk.Now())
		c.fail(ctx, reqCtx, clk, rec, c.diagnose(reqCtx, req.URL, err), record.TypeConnect)
		return nil, nil, false
	}
	return resp, hreq, true
}

// receive reads the body of a response whose head is on rec: an error
// status's body into the error, a stream event by event, anything else
// whole.
func (c *Client) receive(ctx, reqCtx context.Context, clk *clock.Clock, req *Request, rec *record.Record, rt *reqTrace, resp *http.Response) {
	body := &tracedReader{r: resp.Body, t: rt}
	defer func() {
		rec.ResponseBytes = int(body.n)
		if rec.Error != nil {
			rt.failed(rec.End)
		}
		// After an error status, drain a short, complete body so the
		// connection can be reused. Anything else abandoned early (cancel,
		// timeout, error event, a long or open-ended body) is not waited
		// for: closing it closes its connection.
		if rec.Error != nil && rec.Error.Code == resp.StatusCode && resp.ContentLength >= 0 && resp.ContentLength <= drainLimit {
			_, _ = io.Copy(io.Discard, resp.Body)
		}
		_ = resp.Body.Close()
	}()

	rd, err := decoded(resp, body, rec)
	if err != nil {
		rec.End = clk.Now()
		rec.Error = &record.ErrorDetails{Type: record.TypeStream, Message: err.Error()}
		return
	}
	if d, ok := rd.(*decodedBody); ok {
		defer d.close()
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		c.httpError(ctx, reqCtx, clk, rec, resp, rd)
		return
	}
	if isAWSEventStream(rec.ContentType) {
		rec.Streaming = true
		c.readAWSEventStream(ctx, reqCtx, clk, rec, rd, req.OnChunk)
		return
	}
	if isEventStream(rec.ContentType) {
		rec.Streaming = true
		c.readStream(ctx, reqCtx, clk, rec, rd, req.OnChunk)
		return
	}
	c.readBody(ctx, reqCtx, clk, rec, rd, resp.ContentLength)
	if d, ok := rd.(*decodedBody); ok && rec.Error == nil && len(rec.Chunks) > 0 {
		// The body ended when its last compressed bytes arrived, not when
		// they were decoded.
		rec.End = d.arrival()
		rec.Chunks[len(rec.Chunks)-1].At = rec.End
	}
}

// hostAddr is the pool address (host:port) of a request URL, "" when it
// does not parse.
func (c *Client) hostAddr(raw string) string {
	u, err := c.parseURL(raw)
	if err != nil {
		return ""
	}
	key, err := urlHost(u)
	if err != nil {
		return ""
	}
	return key.addr
}

// message is req as the lean transport sends it. Its URL is parsed once
// per distinct URL (a run sends to a handful) and shared read-only.
func (c *Client) message(req *Request) (*message, error) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	u, err := c.parseURL(req.URL)
	if err != nil {
		return nil, err
	}
	return &message{method: method, url: u, header: req.Header, body: req.Body}, nil
}

// parseURL parses raw as http.NewRequest does, remembering the result.
func (c *Client) parseURL(raw string) (*url.URL, error) {
	if u, ok := c.urls.Load(raw); ok {
		return u.(*url.URL), nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &url.Error{Op: "parse", URL: raw, Err: err}
	}
	if u.Host != "" && strings.HasSuffix(u.Host, ":") {
		u.Host = strings.TrimSuffix(u.Host, ":") // an empty port, as http.NewRequest drops it
	}
	if c.urlCount.Add(1) <= maxParsedURLs {
		c.urls.Store(raw, u)
	}
	return u, nil
}

// maxParsedURLs bounds the parsed URLs kept: a run with one URL per
// request (video jobs polled by id) parses those each time.
const maxParsedURLs = 256

// trace returns a request trace for rec: a reused one when an earlier
// request left one behind (reqTrace.reusable), else a new one.
func (c *Client) trace(clk *clock.Clock, rec *record.Record) *reqTrace {
	if t, ok := c.traces.Get().(*reqTrace); ok {
		t.reset(clk, rec, c.pre, c.traceDetail)
		return t
	}
	return newReqTrace(clk, rec, c.pre, c.traceDetail)
}

// newHTTPRequest builds the POST for req under ctx. Its header is a copy of
// req.Header (Do must not modify the caller's) plus the nil-valued
// idempotency key that lets net/http resend it after a stale connection;
// its body counts its reads for the trace rt, and rewinds (GetBody) into a
// new counted body for a resend.
func newHTTPRequest(ctx context.Context, req *Request, rt *reqTrace) (*http.Request, error) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader = http.NoBody
	if len(req.Body) > 0 || method == http.MethodPost {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		return nil, err
	}
	// The body stays NewRequest's bytes.Reader: net/http writes a known
	// in-memory body with its headers in one flush and resends it itself
	// after a stale keep-alive connection; a wrapper would cost a second
	// write per request and turn those resends into write errors. The
	// trace counts it whole when it was written (reqTrace.bodyLen).
	rt.bodyLen = int64(len(req.Body))
	h := make(http.Header, len(req.Header)+1)
	maps.Copy(h, req.Header)
	if _, ok := h[idempotencyKey]; !ok {
		h[idempotencyKey] = nil
	}
	hreq.Header = h
	return hreq, nil
}

// readStream reads an SSE body, one Chunk per event with data. Event data is
// copied into one growing arena per record and each Chunk slices it, so a
// stream costs O(log n) allocations rather than one per event, and holds at
// most twice its data (see growArena).
func (c *Client) readStream(ctx, reqCtx context.Context, clk *clock.Clock, rec *record.Record, body io.Reader, onChunk func([]byte)) {
	sr, _ := c.readers.Get().(*SSEReader)
	if sr == nil {
		sr = NewSSEReader(body, clk)
	} else {
		sr.clk = clk
		sr.Reset(body)
	}
	defer c.putReader(sr)

	var arena []byte
	first := len(rec.Chunks) // the chunks from here on slice arena, in order
	done := false
	for sr.Next() {
		ev := sr.Event()
		if done {
			// Nothing counts after the terminator, but the stream is
			// read to its end so the connection can be reused.
			continue
		}
		if isErrorEvent(ev.Type) {
			rec.End = clk.Now()
			rec.Error = sseError(ev)
			return
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			// A keep-alive or typed event without data carries no response
			// (AIPerf skips it as well).
			continue
		}
		if cap(arena)-len(arena) < len(ev.Data) {
			arena = growArena(arena, len(ev.Data), rec.Chunks[first:])
		}
		done = bytes.Equal(bytes.TrimSpace(ev.Data), []byte("[DONE]"))
		start := len(arena)
		arena = append(arena, ev.Data...)
		rec.Chunks = append(rec.Chunks, record.Chunk{
			At:    ev.At,
			Event: ev.Type,
			Data:  arena[start:len(arena):len(arena)],
		})
		if onChunk != nil {
			onChunk(arena[start:len(arena):len(arena)])
		}
	}
	if err := sr.Err(); err != nil {
		c.fail(ctx, reqCtx, clk, rec, err, record.TypeStream)
		return
	}
	rec.End = clk.Now()
}

// minArena is a stream's first arena: a role chunk and a few tokens. Every
// stream in flight holds its arena, so it starts small (100,000 streams
// waiting for their first token would hold 400 MB of 4 KiB arenas).
const minArena = 512

// growArena returns an arena with room for need more bytes: twice the old
// one (at least minArena), holding its bytes, with the Data of chunks (the
// stream's chunks so far, which fill the old arena in order) moved into
// it. Moving them lets the old arena go, so a stream's data lives in one
// arena at most twice its size; a slice handed out earlier (OnChunk) keeps
// its bytes, which are never modified.
func growArena(arena []byte, need int, chunks []record.Chunk) []byte {
	grown := make([]byte, len(arena), max(2*cap(arena), len(arena)+need, minArena))
	copy(grown, arena)
	off := 0
	for i := range chunks {
		n := len(chunks[i].Data)
		chunks[i].Data = grown[off : off+n : off+n]
		off += n
	}
	return grown
}

func (c *Client) putReader(sr *SSEReader) {
	sr.Reset(nil)
	// A reader that grew for a huge line would pin that memory in the pool.
	if cap(sr.buf) <= 1<<20 && cap(sr.data) <= 1<<20 {
		c.readers.Put(sr)
	}
}

// readBody reads a non-streaming body whole into one Chunk stamped when the
// last byte had been read.
func (c *Client) readBody(ctx, reqCtx context.Context, clk *clock.Clock, rec *record.Record, body io.Reader, size int64) {
	var buf []byte
	if size > 0 && size <= 64<<20 {
		buf = make([]byte, 0, size+1) // +1 lets the final Read see EOF without growing
	}
	buf, err := readAll(buf, body)
	if err != nil {
		c.fail(ctx, reqCtx, clk, rec, err, record.TypeStream)
		return
	}
	rec.End = clk.Now()
	rec.Chunks = append(rec.Chunks, record.Chunk{At: rec.End, Data: buf[:len(buf):len(buf)]})
}

// readAll is io.ReadAll appending to buf.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, 0, 4<<10)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// httpError records a non-2xx response with the start of its body.
func (c *Client) httpError(ctx, reqCtx context.Context, clk *clock.Clock, rec *record.Record, resp *http.Response, body io.Reader) {
	msg, err := io.ReadAll(io.LimitReader(body, MaxErrorBody))
	if err != nil && reqCtx.Err() != nil {
		c.fail(ctx, reqCtx, clk, rec, err, record.TypeStream)
		return
	}
	rec.End = clk.Now()
	text := validUTF8Prefix(msg)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// checkRedirect stopped here: a body saying "Found" would not
		// tell the user what to change.
		text = fmt.Sprintf("redirect to %q not followed: a %d would resend the POST as a GET; give the final URL with --url",
			resp.Header.Get("Location"), resp.StatusCode)
	}
	if h := plainToTLSHint(resp.StatusCode, msg); h != "" {
		text += " (" + h + ")"
	}
	rec.Error = record.HTTPError(resp.StatusCode, reasonPhrase(resp), text)
}

// fail records err, classifying it by what cancelled the request context:
// our own deadline, the caller, or neither (then fallback is the type).
func (c *Client) fail(ctx, reqCtx context.Context, clk *clock.Clock, rec *record.Record, err error, fallback string) {
	now := clk.Now()
	rec.End = now
	switch {
	case context.Cause(reqCtx) == errRequestTimeout:
		rec.Error = &record.ErrorDetails{
			Type:    record.TypeTimeout,
			Message: fmt.Sprintf("Request timed out after %.3f seconds", c.timeout.Seconds()),
		}
	case ctx.Err() != nil:
		rec.Cancelled = true
		rec.CancelledAt = now
		rec.Error = record.CancelledError(now - rec.Sent)
	default:
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // drop the repeated `Post "URL":` prefix
		}
		// net/http's wrapper of a broken exchange says nothing the cause
		// does not: both engines record the cause alone.
		msg := strings.TrimPrefix(stableMessage(withHint(err)), "net/http: HTTP/1.x transport connection broken: ")
		if strings.Contains(msg, "server response headers exceeded") {
			msg = fmt.Sprintf("the server's response headers exceeded %d bytes; aborted (%s sets the limit)", c.maxHead, HeaderLimitSetting)
		}
		rec.Error = &record.ErrorDetails{Type: fallback, Message: msg}
		var bad *badAnswer
		if errors.As(err, &bad) {
			// The status line was read: the record and its trace say what
			// the server answered, the message what was wrong after it.
			rec.Status, rec.Error.Code = bad.status, bad.status
		}
	}
}

// stableMessage is err's text without the local address of a network
// error: "read tcp 127.0.0.1:52024->127.0.0.1:8000: read: connection reset
// by peer" becomes "read tcp 127.0.0.1:8000: read: connection reset by
// peer". The ephemeral port differs on every connection, and error_summary
// groups records by message, so keeping it would give every failed request
// a row of its own.
func stableMessage(err error) string {
	msg := err.Error()
	var oerr *net.OpError
	if errors.As(err, &oerr) && oerr.Source != nil && oerr.Addr != nil {
		msg = strings.Replace(msg, oerr.Source.String()+"->", "", 1)
	}
	// Every network error in the chain (a write inside a readfrom)
	// names its source.
	for e := err; e != nil; e = errors.Unwrap(e) {
		if oerr, ok := e.(*net.OpError); ok && oerr.Source != nil && oerr.Addr != nil {
			msg = strings.Replace(msg, oerr.Source.String()+"->", "", 1)
		}
	}
	return msg
}

// sseError converts an `event: error` block as AIPerf does: the first
// comment is the message, otherwise the event itself is described.
func sseError(ev Event) *record.ErrorDetails {
	detail := string(ev.Comment)
	if len(ev.Comment) == 0 {
		detail = "Unknown error in SSE response: " + string(ev.Data)
	}
	return &record.ErrorDetails{
		Code:    SSEErrorCode,
		Type:    record.TypeServerReported,
		Message: "Error occurred in SSE response: " + detail,
	}
}

func isErrorEvent(typ string) bool {
	return len(typ) >= len("error") && strings.EqualFold(strings.TrimSpace(typ), "error")
}

// isEventStream reports whether a Content-Type names text/event-stream,
// ignoring parameters and case.
func isEventStream(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.EqualFold(strings.TrimSpace(ct), "text/event-stream")
}

// reasonPhrase returns the server's reason phrase (aiohttp's
// response.reason), falling back to the standard text for the code.
func reasonPhrase(resp *http.Response) string {
	code := strconv.Itoa(resp.StatusCode)
	if r, ok := strings.CutPrefix(resp.Status, code); ok {
		if r = strings.TrimSpace(r); r != "" {
			return r
		}
	}
	return http.StatusText(resp.StatusCode)
}

// validUTF8Prefix returns b as a string, dropping a rune cut in half by
// truncation and replacing other invalid bytes.
func validUTF8Prefix(b []byte) string {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				b = b[:len(b)-i]
			}
			break
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// stampSent stamps the record's Sent and tells the caller (OnSent).
func stampSent(clk *clock.Clock, req *Request, rec *record.Record) {
	rec.Sent = clk.Now()
	if req.OnSent != nil {
		req.OnSent(rec)
	}
}
