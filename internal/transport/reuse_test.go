package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// closingServer answers one request per connection with a complete
// keep-alive response (Content-Length, "Connection: keep-alive"), then
// waits for the next request's first bytes on that connection and closes it
// without answering: every reused connection is a stale one, found only
// after the request was written, as after llama-server's streamed
// responses. It returns its URL, the request ids it answered and the
// number of connections it accepted.
func closingServer(t *testing.T, linger time.Duration) (url string, answered func() []string, conns func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids []string
	var n int
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			n++
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				br := bufio.NewReader(conn)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				if _, ok := req.Header["Idempotency-Key"]; ok {
					fmt.Fprint(conn, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
					return
				}
				// Counted before answering: the client may check as soon as
				// it has the answer.
				mu.Lock()
				ids = append(ids, req.Header.Get("X-Request-Id"))
				mu.Unlock()
				body := "data: {\"x\":1}\n\ndata: [DONE]\n\n"
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				conn.SetReadDeadline(time.Now().Add(linger))
				br.Peek(1) // the next request was written on a connection about to close
			}()
		}
	}()
	answered = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), ids...)
	}
	conns = func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
	return "http://" + ln.Addr().String(), answered, conns
}

// staleLinger is how long closingServer waits for the next request on a
// connection it will close. It is long on purpose: the client always writes
// its next request well within it, so every reused connection is found
// stale only after the write. A short linger let the server close first
// when the machine was loaded, and the client then dialled a fresh
// connection without a resend (a flake of 18 resends instead of 19).
// The test's cleanup closes the client, which ends the wait.
const staleLinger = 10 * time.Second

func send(c *Client, url, id, session string) *record.Record {
	rec := &record.Record{}
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {id}}
	c.Do(context.Background(), clock.New(), &Request{URL: url, Body: []byte(`{"model":"m"}`), Header: h, Session: session}, rec)
	return rec
}

// TestDoResendsOnStaleConnection: a request written on a keep-alive
// connection the server then closes without answering is sent again on a
// new connection, counted in ConnectionRetries, and succeeds; the server
// never sees the idempotency key that makes net/http resend it.
func TestDoResendsOnStaleConnection(t *testing.T) {
	t.Parallel()
	for _, linger := range []time.Duration{0, staleLinger} {
		t.Run(fmt.Sprint("linger=", linger), func(t *testing.T) {
			t.Parallel()
			url, answered, _ := closingServer(t, linger)
			c := New(Options{Timeout: 30 * time.Second})
			t.Cleanup(c.Close)
			retries := 0
			for i := range 20 {
				rec := send(c, url, fmt.Sprint("r", i), "")
				if rec.Error != nil || rec.Status != 200 || len(rec.Chunks) != 2 {
					t.Fatalf("request %d: status %d, error %+v, %d chunks; want a good stream", i, rec.Status, rec.Error, len(rec.Chunks))
				}
				checkOrder(t, rec)
				retries += rec.ConnectionRetries
			}
			if got := answered(); len(got) != 20 {
				t.Errorf("server answered %d requests; want 20", len(got))
			}
			// With linger every reused connection is stale until the
			// client has learned that the server closes every connection
			// (learnAfter resends in a row); then it stops reusing them.
			// Without linger, the client may find the close first and
			// dial at once.
			if linger > 0 && retries != learnAfter {
				t.Errorf("ConnectionRetries sum to %d; want %d (then no reuse)", retries, learnAfter)
			}
			if h := c.ConnHealth(); linger > 0 && len(h.NotReused) != 1 {
				t.Errorf("servers not reused: %v; want this one", h.NotReused)
			}
			t.Logf("linger %v: %d resends for 20 requests", linger, retries)
		})
	}
}

// TestDoNoResendOnFreshConnection: a server that hangs up on a new
// connection did see the request; it is an error, sent once.
func TestDoNoResendOnFreshConnection(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := 0
	url := rawServer(t, func(conn net.Conn, _ *bufio.Reader) {
		mu.Lock()
		seen++
		mu.Unlock()
	})
	c := New(Options{})
	t.Cleanup(c.Close)
	rec := send(c, url, "r", "")
	if rec.Error == nil || rec.Error.Type != record.TypeConnect || rec.ConnectionRetries != 0 {
		t.Fatalf("error %+v, retries %d; want a ConnectionError without resend", rec.Error, rec.ConnectionRetries)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen != 1 {
		t.Errorf("server saw %d requests; want 1", seen)
	}
}

// TestStaleConnectionDecision is the decision table of the resend rule:
// only a reused connection, only when no response byte arrived and the
// connection ended as a close does, only when neither the caller nor the
// deadline ended the request.
func TestStaleConnectionDecision(t *testing.T) {
	t.Parallel()
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	eof := io.ErrUnexpectedEOF
	cases := []struct {
		name        string
		ctx, reqCtx context.Context
		reused      bool
		responded   bool
		err         error
		want        bool
	}{
		{"reused, broken", live, live, true, false, eof, true},
		{"reused, reset", live, live, true, false, syscall.ECONNRESET, true},
		{"reused, closed idle", live, live, true, false, errors.New("http: server closed idle connection"), true},
		{"reused, answered then broken", live, live, true, true, eof, false},
		{"reused, malformed answer", live, live, true, true, errors.New(`malformed HTTP response "garbage"`), false},
		{"reused, not a close", live, live, true, false, errors.New("tls: internal error"), false},
		{"fresh, broken", live, live, false, false, eof, false},
		{"caller cancelled", done, done, true, false, eof, false},
		{"deadline", live, done, true, false, eof, false},
		{"context error", live, live, true, false, context.DeadlineExceeded, false},
	}
	for _, c := range cases {
		if got := staleConnection(c.ctx, c.reqCtx, c.reused, c.responded, c.err); got != c.want {
			t.Errorf("%s: staleConnection = %v; want %v", c.name, got, c.want)
		}
	}
}

// connServer is an httptest server that tags every response with the
// number of the connection it came over, and records the connection of
// each request id.
func connServer(t *testing.T) (url string, connOf func(id string) string, conns func() int) {
	t.Helper()
	var mu sync.Mutex
	byID := map[string]string{}
	addrs := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		byID[r.Header.Get("X-Request-Id")] = r.RemoteAddr
		addrs[r.RemoteAddr] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(srv.Close)
	connOf = func(id string) string {
		mu.Lock()
		defer mu.Unlock()
		return byID[id]
	}
	conns = func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(addrs)
	}
	return srv.URL, connOf, conns
}

func TestDoReuseStrategies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reuse Reuse
		conns int
	}{{"pooled", ReusePooled, 1}, {"never", ReuseNever, 5}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, _, conns := connServer(t)
			c := New(Options{Reuse: tc.reuse})
			t.Cleanup(c.Close)
			for i := range 5 {
				if rec := send(c, url, fmt.Sprint(i), "s"); rec.Error != nil {
					t.Fatal(rec.Error)
				}
			}
			if n := conns(); n != tc.conns {
				t.Errorf("5 sequential requests used %d connections; want %d", n, tc.conns)
			}
		})
	}
	t.Run("sticky", func(t *testing.T) {
		t.Parallel()
		url, connOf, conns := connServer(t)
		c := New(Options{Reuse: ReuseSticky})
		t.Cleanup(c.Close)
		// Two sessions interleaved: each keeps its own connection.
		for i := range 3 {
			for _, s := range []string{"a", "b"} {
				if rec := send(c, url, fmt.Sprint(s, i), s); rec.Error != nil {
					t.Fatal(rec.Error)
				}
			}
		}
		for _, s := range []string{"a", "b"} {
			if connOf(s+"0") != connOf(s+"1") || connOf(s+"1") != connOf(s+"2") {
				t.Errorf("session %s used connections %s, %s, %s; want one", s, connOf(s+"0"), connOf(s+"1"), connOf(s+"2"))
			}
		}
		if connOf("a0") == connOf("b0") {
			t.Errorf("sessions a and b shared connection %s", connOf("a0"))
		}
		if got := c.Leased(); got != 2 {
			t.Errorf("Leased = %d; want 2", got)
		}
		c.EndSession("a")
		if got := c.Leased(); got != 1 {
			t.Errorf("Leased after EndSession = %d; want 1", got)
		}
		// A new conversation under the ended id starts a new connection.
		if rec := send(c, url, "a3", "a"); rec.Error != nil {
			t.Fatal(rec.Error)
		}
		if connOf("a3") == connOf("a2") {
			t.Errorf("ended session's connection %s was reused", connOf("a2"))
		}
		if n := conns(); n != 3 {
			t.Errorf("%d connections; want 3", n)
		}
	})
	t.Run("sticky resend", func(t *testing.T) {
		t.Parallel()
		url, answered, _ := closingServer(t, staleLinger)
		c := New(Options{Reuse: ReuseSticky})
		t.Cleanup(c.Close)
		for i := range 4 {
			rec := send(c, url, fmt.Sprint(i), "s")
			if rec.Error != nil {
				t.Fatalf("turn %d: %+v", i, rec.Error)
			}
			if want := min(i, 1); rec.ConnectionRetries != want {
				t.Errorf("turn %d: ConnectionRetries = %d; want %d", i, rec.ConnectionRetries, want)
			}
		}
		if len(answered()) != 4 {
			t.Errorf("answered %v; want 4", answered())
		}
	})
}

// TestDoRedirects: a redirect that would turn the POST into a GET is the
// request's error, naming the status and Location; 307 and 308 keep the
// method and body and are followed, and are not counted as resends.
func TestDoRedirects(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/found":
			http.Redirect(w, r, "/v1/models", http.StatusFound)
		case "/moved":
			http.Redirect(w, r, "/v1/models", http.StatusMovedPermanently)
		case "/temporary":
			http.Redirect(w, r, "/target", http.StatusTemporaryRedirect)
		case "/permanent":
			http.Redirect(w, r, "/target", http.StatusPermanentRedirect)
		case "/target":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	c := New(Options{})
	t.Cleanup(c.Close)
	for _, path := range []string{"/found", "/moved"} {
		rec := send(c, srv.URL+path, "r", "")
		if rec.Error == nil || rec.Error.Code != rec.Status || rec.Status/100 != 3 {
			t.Fatalf("%s: status %d, error %+v; want the redirect as the error", path, rec.Status, rec.Error)
		}
		if !strings.Contains(rec.Error.Message, "/v1/models") || !strings.Contains(rec.Error.Message, "redirect") {
			t.Errorf("%s: message %q; want it to name the redirect and its Location", path, rec.Error.Message)
		}
	}
	for _, path := range []string{"/temporary", "/permanent"} {
		rec := send(c, srv.URL+path, "r", "")
		if rec.Error != nil || rec.Status != 200 || rec.ConnectionRetries != 0 {
			t.Errorf("%s: status %d, error %+v, retries %d; want the target's 200", path, rec.Status, rec.Error, rec.ConnectionRetries)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bodies {
		if !strings.HasPrefix(b, "POST ") || !strings.HasSuffix(b, `{"model":"m"}`) {
			t.Errorf("server got %q; want every hop a POST with the body", b)
		}
	}
}

func TestRefusedBackoff(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]time.Duration{0: 0, 1: 10 * time.Millisecond, 2: 20 * time.Millisecond, 4: 80 * time.Millisecond, 7: 640 * time.Millisecond, 8: time.Second, 100: time.Second} {
		if got := refusedBackoff(n); got != want {
			t.Errorf("refusedBackoff(%d) = %v; want %v", n, got, want)
		}
	}
}
