package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// lean returns the lean transport under c's pooled client.
func lean(t *testing.T, c *Client) *leanTransport {
	t.Helper()
	lt, ok := c.hc.Transport.(*leanTransport)
	if !ok {
		t.Fatalf("the client runs %T, not the lean transport", c.hc.Transport)
	}
	return lt
}

func mustRequest(t testing.TB, method, rawURL, body string, h http.Header) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, rawURL, r)
	if err != nil {
		t.Fatal(err)
	}
	if h != nil {
		req.Header = h
	}
	return req
}

// encodeRequest is req on the wire as tr writes it.
func encodeRequest(t testing.TB, tr *leanTransport, req *http.Request) (*wireBuf, error) {
	t.Helper()
	m, err := messageOf(req)
	if err != nil {
		t.Fatal(err)
	}
	return tr.encode(m)
}

// TestLeanEncode: the request goes on the wire as net/http would write it
// (what a server reads back), with the headers net/http owns taken from
// the request's fields and valueless headers left out.
func TestLeanEncode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		req       *http.Request
		keepAlive bool
		wantLine  string
		want      map[string]string // header: value ("" = absent)
		body      string
	}{
		{"post", mustRequest(t, "POST", "http://h:1/v1/chat?x=1", `{"a":1}`, http.Header{
			"Content-Type": {"application/json"}, "Idempotency-Key": nil, "Content-Length": {"999"}, "X-Pad": {"  v \t"},
		}), true, "POST /v1/chat?x=1 HTTP/1.1", map[string]string{
			"Host": "h:1", "User-Agent": "Go-http-client/1.1", "Content-Length": "7", "Content-Type": "application/json",
			"Idempotency-Key": "", "Connection": "", "X-Pad": "v",
		}, `{"a":1}`},
		{"empty post", mustRequest(t, "POST", "http://h/", "", http.Header{"User-Agent": {"aiperf"}}), true, "POST / HTTP/1.1",
			map[string]string{"Host": "h", "User-Agent": "aiperf", "Content-Length": "0"}, ""},
		{"get", mustRequest(t, "GET", "http://h/v1/videos/1", "", http.Header{"User-Agent": {""}}), false, "GET /v1/videos/1 HTTP/1.1",
			map[string]string{"User-Agent": "", "Content-Length": "", "Connection": "close"}, ""},
	} {
		tr := &leanTransport{keepAlive: tc.keepAlive}
		w, err := encodeRequest(t, tr, tc.req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		wire := string(w.b)
		w.free()
		if line, _, _ := strings.Cut(wire, "\r\n"); line != tc.wantLine {
			t.Errorf("%s: request line %q; want %q", tc.name, line, tc.wantLine)
		}
		got, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire)))
		if err != nil {
			t.Fatalf("%s: the server cannot read %q: %v", tc.name, wire, err)
		}
		for k, v := range tc.want {
			if k == "Host" {
				if got.Host != v {
					t.Errorf("%s: Host %q; want %q", tc.name, got.Host, v)
				}
				continue
			}
			if g := got.Header.Get(k); g != v {
				t.Errorf("%s: %s %q; want %q in %q", tc.name, k, g, v, wire)
			}
		}
		if b, _ := io.ReadAll(got.Body); string(b) != tc.body {
			t.Errorf("%s: body %q; want %q", tc.name, b, tc.body)
		}
	}
	for _, h := range []http.Header{{"Bad Name": {"v"}}, {"X": {"a\r\nInjected: 1"}}, {"": {"v"}}} {
		if _, err := encodeRequest(t, &leanTransport{}, mustRequest(t, "POST", "http://h/", "b", h)); err == nil {
			t.Errorf("header %q was accepted; want the error net/http gives", h)
		}
	}
}

// FuzzLeanEncode: whatever the headers and body, the request is refused or
// written so that a server reads back the same method, path, headers and
// body.
func FuzzLeanEncode(f *testing.F) {
	f.Add("POST", "/v1/chat/completions", "Content-Type", "application/json", `{"model":"m"}`)
	f.Add("GET", "/v1/videos/x?y=1", "X-Request-Id", "r-1", "")
	f.Add("POST", "/", "User-Agent", "", "\x00\xff")
	f.Fuzz(func(t *testing.T, method, path, k, v, body string) {
		if method != "POST" && method != "GET" && method != "PUT" {
			return
		}
		u, err := url.Parse("http://h:1" + path)
		if err != nil || u.Host != "h:1" {
			return
		}
		req := mustRequest(t, method, u.String(), body, http.Header{http.CanonicalHeaderKey(k): {v}})
		w, err := encodeRequest(t, &leanTransport{keepAlive: true}, req)
		if err != nil {
			return
		}
		defer w.free()
		got, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(w.b)))
		if err != nil {
			t.Fatalf("the server cannot read %q: %v", w.b, err)
		}
		if got.Method != method || got.URL.RequestURI() != u.RequestURI() {
			t.Errorf("read %s %s; want %s %s", got.Method, got.URL.RequestURI(), method, u.RequestURI())
		}
		ck := http.CanonicalHeaderKey(k)
		if !skipHeader(ck) && ck != "User-Agent" && got.Header.Get(ck) != textproto.TrimString(v) {
			t.Errorf("header %s read %q; want %q", ck, got.Header.Get(ck), textproto.TrimString(v))
		}
		if b, _ := io.ReadAll(got.Body); string(b) != body {
			t.Errorf("body %q; want %q", b, body)
		}
	})
}

// scriptConn is a connection whose server side is fixed bytes: reads
// return them, writes are discarded.
type scriptConn struct {
	r io.Reader
	net.Conn
}

func (c *scriptConn) Read(p []byte) (int, error)      { return c.r.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error)     { return len(p), nil }
func (c *scriptConn) Close() error                    { return nil }
func (c *scriptConn) SetDeadline(time.Time) error     { return nil }
func (c *scriptConn) SetReadDeadline(time.Time) error { return nil }
func (c *scriptConn) LocalAddr() net.Addr             { return &net.TCPAddr{} }
func (c *scriptConn) RemoteAddr() net.Addr            { return &net.TCPAddr{} }

// FuzzLeanResponse: for any bytes a server may send, the lean transport
// reads the same status, headers and body as http.ReadResponse (net/http's
// parser) does, or fails where it fails, and never hangs or panics.
func FuzzLeanResponse(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n")
	f.Add("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")
	f.Add("HTTP/1.0 200 OK\r\n\r\nuntil the end")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
	f.Add("garbage")
	f.Add("HTTP/1.1 200\r\ncontent-type: a\r\nX-A: 1\r\nx-a:  2 \r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nabc")
	f.Add("HTTP/1.1 500 Oops\r\nContent-Length: 9\r\n\r\nshort")
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx")
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx")
	f.Add("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	f.Add("HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	f.Add("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray")
	f.Fuzz(func(t *testing.T, raw string) {
		req := mustRequest(t, "POST", "http://h:1/", "{}", nil)
		var want *http.Response
		var wantBody []byte
		var wantErr error
		br := bufio.NewReader(strings.NewReader(raw))
		for {
			want, wantErr = http.ReadResponse(br, req)
			if wantErr != nil || want.StatusCode < 100 || want.StatusCode > 199 || want.StatusCode == 101 {
				break
			}
		}
		if wantErr == nil {
			wantBody, wantErr = io.ReadAll(want.Body)
		}
		tr := newLeanTransport(func(context.Context, string, string) (net.Conn, error) {
			return &scriptConn{r: strings.NewReader(raw)}, nil
		}, Options{}, 4, true, nil)
		resp, err := tr.RoundTrip(req)
		var body []byte
		if err == nil {
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if (err == nil) != (wantErr == nil) && !(err != nil && raw == "") {
			t.Fatalf("lean: %v, net/http's parser: %v", err, wantErr)
		}
		if err == nil && (resp.StatusCode != want.StatusCode || resp.Status != want.Status || resp.ContentLength != want.ContentLength ||
			resp.Close != want.Close || !bytes.Equal(body, wantBody) || fmt.Sprint(resp.Header) != fmt.Sprint(want.Header)) {
			t.Errorf("lean read %q %d %v %q (close %v); net/http's parser %q %d %v %q (close %v)", resp.Status, resp.ContentLength, resp.Header, body, resp.Close,
				want.Status, want.ContentLength, want.Header, wantBody, want.Close)
		}
	})
}

// fakeConn is a pooled connection for the pool's own tests.
type fakeConn struct {
	scriptConn
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

func newFake(h *hostConns) *conn {
	fc := &fakeConn{scriptConn: scriptConn{r: strings.NewReader("")}}
	return &conn{Conn: fc, br: bufio.NewReader(fc), host: h}
}

// TestPoolLIFOAndIdleCap: the most recently returned connection is handed
// out first, and a full idle stack closes what comes back.
func TestPoolLIFOAndIdleCap(t *testing.T) {
	t.Parallel()
	p := newPool(2, 0, time.Hour, nil)
	key := hostKey{addr: "h:1"}
	got := map[int]*conn{}
	for i := range 3 {
		c, h, err := p.get(t.Context(), key)
		if err != nil || c != nil {
			t.Fatalf("get %d = %v, %v; want a slot to dial", i, c, err)
		}
		got[i] = newFake(h)
	}
	for i := range 3 {
		p.put(got[i])
	}
	if !got[2].Conn.(*fakeConn).closed || p.idleCount() != 2 {
		t.Fatalf("third connection closed %v, %d idle; want the stack full at 2", got[2].Conn.(*fakeConn).closed, p.idleCount())
	}
	for _, want := range []int{1, 0} {
		c, _, _ := p.get(t.Context(), key)
		if c != got[want] {
			t.Errorf("got %p; want connection %d (%p): last in, first out", c, want, got[want])
		}
	}
	if h := p.hosts[key]; h.open != 2 {
		t.Errorf("open %d; want the 2 handed out", h.open)
	}
}

// TestPoolIdleTimeout: a connection idle for longer than the timeout is
// closed when met, with every older one, and the caller dials.
func TestPoolIdleTimeout(t *testing.T) {
	t.Parallel()
	p := newPool(8, 0, time.Minute, nil)
	key := hostKey{addr: "h:1"}
	var cs []*conn
	for range 3 {
		_, h, _ := p.get(t.Context(), key)
		cs = append(cs, newFake(h))
	}
	for _, c := range cs {
		p.put(c)
	}
	cs[2].idleAt = time.Now().Add(-2 * time.Minute) // the top, and so all
	c, _, err := p.get(t.Context(), key)
	if c != nil || err != nil {
		t.Fatalf("get = %v, %v; want a slot to dial", c, err)
	}
	for i, c := range cs {
		if !c.Conn.(*fakeConn).closed {
			t.Errorf("connection %d left open", i)
		}
	}
	if h := p.hosts[key]; h.open != 1 || len(h.idle) != 0 {
		t.Errorf("open %d, idle %d; want 1 (the dial), 0", h.open, len(h.idle))
	}
}

// TestPoolCapWaitsInOrder: at the cap a request waits; a returned
// connection goes to the oldest waiter, a closed one gives it a slot to
// dial, and a waiter whose context ends leaves the queue.
func TestPoolCapWaitsInOrder(t *testing.T) {
	t.Parallel()
	p := newPool(8, 1, time.Hour, nil)
	key := hostKey{addr: "h:1"}
	_, h, _ := p.get(t.Context(), key)
	held := newFake(h)

	gone, cancel := context.WithCancel(t.Context())
	type result struct {
		c   *conn
		err error
	}
	results := make([]chan result, 3)
	for i := range results {
		results[i] = make(chan result, 1)
		ctx := t.Context()
		if i == 1 {
			ctx = gone
		}
		go func() {
			c, _, err := p.get(ctx, key)
			results[i] <- result{c, err}
		}()
		waitFor(t, func() bool { p.mu.Lock(); defer p.mu.Unlock(); return len(h.waiting) == i+1 })
	}
	cancel()
	if r := <-results[1]; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled waiter got %v, %v", r.c, r.err)
	}
	p.put(held)
	if r := <-results[0]; r.c != held {
		t.Fatalf("first waiter got %v, %v; want the returned connection", r.c, r.err)
	}
	p.close(held)
	if r := <-results[2]; r.c != nil || r.err != nil {
		t.Fatalf("last waiter got %v, %v; want a slot to dial", r.c, r.err)
	}
	if h.open != 1 {
		t.Errorf("open %d; want 1", h.open)
	}
}

// waitFor waits until cond holds (it is about another goroutine reaching
// a point, not about time); it fails after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		runtime.Gosched()
	}
}

// TestPeerClosed: an idle connection is usable while the server keeps it
// open, and not once the server closed it or sent bytes nobody asked for.
func TestPeerClosed(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pair := func() (client, server net.Conn) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return c, s
	}
	c, s := pair()
	defer c.Close()
	pc := newPeeker(c)
	if pc.peerClosed() {
		t.Fatal("an open idle connection reads as closed")
	}
	s.Close()
	waitFor(t, func() bool { return pc.peerClosed() })

	c2, s2 := pair()
	defer c2.Close()
	defer s2.Close()
	if _, err := s2.Write([]byte("HTTP/1.1 200 OK\r\n")); err != nil {
		t.Fatal(err)
	}
	pc2 := newPeeker(c2)
	waitFor(t, func() bool { return pc2.peerClosed() })
}

// TestLeanCapsConnections: MaxConnsPerHost holds many concurrent requests
// to that many connections, and every request succeeds.
func TestLeanCapsConnections(t *testing.T) {
	t.Parallel()
	url, _, conns := connServer(t)
	c := New(Options{MaxConnsPerHost: 2})
	t.Cleanup(c.Close)
	lean(t, c)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5 {
				if rec := send(c, url, fmt.Sprint(g, "-", i), ""); rec.Error != nil {
					t.Error(rec.Error)
				}
			}
		})
	}
	wg.Wait()
	if n := conns(); n > 2 {
		t.Errorf("%d connections; want at most 2", n)
	}
}

// TestLeanConnectionLife: a response read whole leaves its connection to
// the next request; one abandoned before its end, or one the server asked
// to close, does not.
func TestLeanConnectionLife(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/close" {
			w.Header().Set("Connection", "close")
		}
		io.WriteString(w, strings.Repeat("x", 100<<10)) // chunked, larger than a buffer
	}))
	t.Cleanup(srv.Close)
	c := New(Options{})
	t.Cleanup(c.Close)
	lt := lean(t, c)
	hc := &http.Client{Transport: lt}
	get := func(path string, readAll bool) (reused bool) {
		t.Helper()
		req := mustRequest(t, "GET", srv.URL+path, "", nil)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
		}))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if readAll {
			if b, _ := io.ReadAll(resp.Body); len(b) != 100<<10 {
				t.Fatalf("%s: body of %d bytes", path, len(b))
			}
		} else if _, err := resp.Body.Read(make([]byte, 10)); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return reused
	}
	for i, step := range []struct {
		path      string
		readAll   bool
		wantReuse bool
	}{
		{"/", true, false}, {"/", true, true}, {"/", false, true}, {"/", true, false},
		{"/close", true, true}, {"/", true, false},
	} {
		if got := get(step.path, step.readAll); got != step.wantReuse {
			t.Errorf("step %d %s: reused %v; want %v", i, step.path, got, step.wantReuse)
		}
	}
	if n := lt.pool.idleCount(); n != 1 {
		t.Errorf("%d idle connections; want 1", n)
	}
}

// TestLeanTLS: https goes over TLS with the handshake in the record's
// connect stamps, and the connection is reused.
func TestLeanTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.TLS == nil || r.ProtoMajor != 1 {
			http.Error(w, "want HTTP/1.1 over TLS", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	c := New(Options{InsecureSkipVerify: true})
	t.Cleanup(c.Close)
	lean(t, c)
	for i := range 2 {
		rec := send(c, srv.URL, fmt.Sprint(i), "")
		if rec.Error != nil || rec.Status != 200 {
			t.Fatalf("request %d: %d %+v", i, rec.Status, rec.Error)
		}
		checkTimeline(t, fmt.Sprint("request ", i), rec)
		if tr := rec.Trace; tr.Dialed != (i == 0) || tr.Reused != (i == 1) {
			t.Errorf("request %d: dialed %v, reused %v", i, tr.Dialed, tr.Reused)
		}
	}
	strict := New(Options{})
	t.Cleanup(strict.Close)
	if rec := send(strict, srv.URL, "x", ""); rec.Error == nil || rec.Error.Type != record.TypeConnect {
		t.Errorf("an unverified certificate gave %+v; want a connection error", rec.Error)
	}
}

// TestLeanNoGoroutinePerConnection: open streams cost the client their
// callers' goroutines only; net/http would add a read and a write loop
// per connection.
func TestLeanNoGoroutinePerConnection(t *testing.T) {
	const streams = 20
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(streams)
	url := rawServer(t, func(conn net.Conn, _ *bufio.Reader) {
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n")
		started.Done()
		<-release
	})
	c := New(Options{})
	defer c.Close()
	lean(t, c)
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			var rec record.Record
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-release; cancel() }()
			c.Do(ctx, clock.New(), &Request{URL: url, Body: []byte("{}"), Header: jsonHeader()}, &rec)
		})
	}
	started.Wait()
	// Callers, their cancellers and the server's handlers: 3 per stream.
	if n := runtime.NumGoroutine() - before; n > 3*streams+2 {
		t.Errorf("%d goroutines for %d open streams; want at most %d (no per-connection loops)", n, streams, 3*streams+2)
	}
	close(release)
	wg.Wait()
}

// TestDoRedirectAcrossHosts: a followed redirect names the last URL in
// Referer and keeps the credentials only on the same host, as http.Client;
// an endless chain stops after 10 hops.
func TestDoRedirectAcrossHosts(t *testing.T) {
	t.Parallel()
	type seen struct{ auth, referer string }
	var mu sync.Mutex
	got := map[string]seen{}
	handler := func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got[r.Host+r.URL.Path] = seen{r.Header.Get("Authorization"), r.Header.Get("Referer")}
		mu.Unlock()
		switch {
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusTemporaryRedirect)
		case strings.HasPrefix(r.URL.Path, "/to/"):
			http.Redirect(w, r, "http://"+strings.TrimPrefix(r.URL.Path, "/to/")+"/end", http.StatusPermanentRedirect)
		default:
			io.WriteString(w, "{}")
		}
	}
	other := httptest.NewServer(http.HandlerFunc(handler))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(handler))
	t.Cleanup(srv.Close)
	c := New(Options{})
	t.Cleanup(c.Close)
	otherHost := strings.Replace(strings.TrimPrefix(other.URL, "http://"), "127.0.0.1", "localhost", 1)
	for _, target := range []string{strings.TrimPrefix(srv.URL, "http://"), otherHost} {
		rec := &record.Record{}
		h := http.Header{"Authorization": {"Bearer k"}, "Content-Type": {"application/json"}}
		c.Do(context.Background(), clock.New(), &Request{URL: srv.URL + "/to/" + target, Body: []byte("{}"), Header: h}, rec)
		if rec.Error != nil || rec.Status != 200 {
			t.Fatalf("to %s: %d %+v", target, rec.Status, rec.Error)
		}
		mu.Lock()
		s := got[target+"/end"]
		mu.Unlock()
		wantAuth := "Bearer k"
		if target == otherHost {
			wantAuth = ""
		}
		if s.auth != wantAuth || s.referer != srv.URL+"/to/"+target {
			t.Errorf("to %s: Authorization %q, Referer %q; want %q, %q", target, s.auth, s.referer, wantAuth, srv.URL+"/to/"+target)
		}
	}
	rec := send(c, srv.URL+"/loop", "loop", "")
	if rec.Error == nil || !strings.Contains(rec.Error.Message, "stopped after 10 redirects") {
		t.Errorf("endless redirects gave %+v", rec.Error)
	}
}

// TestDoCallerTraceComposes: a caller that traces the request itself (the
// planned cancellation does) still gets its hooks, once per write, and the
// record its own complete timeline.
func TestDoCallerTraceComposes(t *testing.T) {
	t.Parallel()
	url, _, _ := connServer(t)
	c := New(Options{})
	t.Cleanup(c.Close)
	for i := range 3 {
		wrote := 0
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { wrote++ },
		})
		rec := &record.Record{}
		c.Do(ctx, clock.New(), &Request{URL: url, Body: []byte("{}"), Header: jsonHeader()}, rec)
		if rec.Error != nil || wrote != 1 {
			t.Fatalf("request %d: %+v, WroteRequest called %d times; want once", i, rec.Error, wrote)
		}
		checkTimeline(t, fmt.Sprint("request ", i), rec)
	}
}

// TestReadPlainHead: which heads the lean transport reads itself (the
// rest go to http.ReadResponse, untouched).
func TestReadPlainHead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw   string
		plain bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", true},
		{"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", false},
		{"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}", false},
		{"HTTP/1.1 200 OK\r\n\r\nuntil close", false},
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n folded\r\n\r\n{}", false},
		{"HTTP/1.1 200 OK\r\nX: caf\xc3\xa9\r\nContent-Length: 2\r\n\r\n{}", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", false}, // head not complete
	} {
		br := bufio.NewReader(strings.NewReader(tc.raw))
		br.Peek(1)
		before := br.Buffered()
		resp, ok := readPlainHead(br)
		if ok != tc.plain {
			t.Errorf("%q: plain %v; want %v", tc.raw, ok, tc.plain)
			continue
		}
		if !ok && br.Buffered() != before {
			t.Errorf("%q: the reader was consumed before the fallback", tc.raw)
		}
		if ok {
			var remaining = resp.ContentLength
			body, err := io.ReadAll(readerFunc(func(p []byte) (int, error) { return readRemaining(br, &remaining, p) }))
			if err != nil || int64(len(body)) != resp.ContentLength {
				t.Errorf("%q: body %q, %v", tc.raw, body, err)
			}
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestLeanSkipsClosedIdle: an idle connection is peeked before reuse, so
// one the server has closed meanwhile is not tried (no request fails on it
// and none is resent).
func TestLeanSkipsClosedIdle(t *testing.T) {
	t.Parallel()
	url := rawServer(t, func(conn net.Conn, _ *bufio.Reader) {
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		// rawServer closes the connection after the answer.
	})
	c := New(Options{})
	t.Cleanup(c.Close)
	lt := lean(t, c)
	idleClosed := func() bool {
		lt.pool.mu.Lock()
		defer lt.pool.mu.Unlock()
		for _, h := range lt.pool.hosts {
			if len(h.idle) == 1 {
				return h.idle[0].peek.peerClosed()
			}
		}
		return false
	}
	for i, want := range []struct{ retries int }{{0}, {0}, {0}, {0}} {
		if i > 0 {
			waitFor(t, idleClosed) // the server's close has reached us
		}
		rec := send(c, url, fmt.Sprint(i), "")
		if rec.Error != nil || rec.ConnectionRetries != want.retries || rec.Trace.Reused {
			t.Errorf("request %d: error %+v, %d resends, reused %v; want %d resends on a new connection", i, rec.Error, rec.ConnectionRetries, rec.Trace.Reused, want.retries)
		}
	}
}
