package transport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

func jsonHeader() http.Header {
	return http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r-1"}}
}

func do(t *testing.T, c *Client, ctx context.Context, url string) *record.Record {
	t.Helper()
	rec := &record.Record{}
	c.Do(ctx, clock.New(), &Request{URL: url, Body: []byte(`{"model":"m"}`), Header: jsonHeader()}, rec)
	return rec
}

// checkOrder asserts the record's timing invariants: Sent <= Ack <= chunks
// (non-decreasing) <= End.
func checkOrder(t *testing.T, rec *record.Record) {
	t.Helper()
	if rec.Sent <= 0 || rec.End < rec.Sent {
		t.Errorf("Sent = %v, End = %v; want 0 < Sent <= End", rec.Sent, rec.End)
	}
	if rec.Ack != 0 && (rec.Ack < rec.Sent || rec.Ack > rec.End) {
		t.Errorf("Ack = %v not in [Sent %v, End %v]", rec.Ack, rec.Sent, rec.End)
	}
	prev := rec.Sent
	for i, ch := range rec.Chunks {
		if ch.At < prev || ch.At > rec.End {
			t.Errorf("chunk %d At = %v; want in [%v, End %v]", i, ch.At, prev, rec.End)
		}
		prev = ch.At
	}
}

func TestDoStreaming(t *testing.T) {
	t.Parallel()
	var gotHeader http.Header
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHeader = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		gotBody = string(b)
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		fl := w.(http.Flusher)
		for i := range 5 {
			fmt.Fprintf(w, "data: {\"i\":%d}\n\n", i)
			fl.Flush() // each event leaves in its own write
		}
		fmt.Fprint(w, ": keep-alive\n\nevent: ping\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()

	rec := do(t, c, t.Context(), srv.URL)
	if rec.Error != nil {
		t.Fatalf("Error = %+v", rec.Error)
	}
	if !rec.Streaming || rec.Status != 200 {
		t.Errorf("Streaming, Status = %v, %d; want true, 200", rec.Streaming, rec.Status)
	}
	var data []string
	for _, ch := range rec.Chunks {
		data = append(data, string(ch.Data))
	}
	want := `{"i":0}|{"i":1}|{"i":2}|{"i":3}|{"i":4}|[DONE]`
	if got := strings.Join(data, "|"); got != want {
		t.Errorf("chunks = %s; want %s", got, want)
	}
	checkOrder(t, rec)
	if rec.RequestBytes != len(`{"model":"m"}`) || gotBody != `{"model":"m"}` {
		t.Errorf("RequestBytes = %d, server got %q", rec.RequestBytes, gotBody)
	}
	if rec.ResponseBytes == 0 {
		t.Errorf("ResponseBytes = 0")
	}
	if gotHeader.Get("X-Request-Id") != "r-1" || gotHeader.Get("Accept-Encoding") != "" {
		t.Errorf("server saw headers %v; want ours and no Accept-Encoding", gotHeader)
	}
}

// TestDoStreamingArrivalOrder has the server wait for the client to have
// read each event before writing the next, so events are stamped at
// distinct moments; stamps must follow the write order.
func TestDoStreamingArrivalOrder(t *testing.T) {
	t.Parallel()
	const n = 4
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range n {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			if i < n-1 {
				<-next
			}
		}
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()
	// Release the server one event at a time while Do reads, so the events
	// leave the server in separate writes at separate moments.
	rec := &record.Record{}
	clk := clock.New()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Do(t.Context(), clk, &Request{URL: srv.URL, Header: jsonHeader()}, rec)
	}()
	for range n - 1 {
		next <- struct{}{}
	}
	<-done
	if rec.Error != nil || len(rec.Chunks) != n {
		t.Fatalf("Error = %+v, %d chunks; want nil, %d", rec.Error, len(rec.Chunks), n)
	}
	for i, ch := range rec.Chunks {
		if string(ch.Data) != fmt.Sprint(i) {
			t.Errorf("chunk %d = %q", i, ch.Data)
		}
	}
	checkOrder(t, rec)
	if rec.Chunks[0].At < rec.Ack {
		t.Errorf("first chunk At %v before Ack %v", rec.Chunks[0].At, rec.Ack)
	}
}

func TestDoNonStreaming(t *testing.T) {
	t.Parallel()
	body := `{"object":"chat.completion","choices":[{"message":{"content":"hi"}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()
	rec := do(t, c, t.Context(), srv.URL)
	if rec.Error != nil || rec.Streaming || len(rec.Chunks) != 1 {
		t.Fatalf("Error = %+v, Streaming = %v, %d chunks; want nil, false, 1", rec.Error, rec.Streaming, len(rec.Chunks))
	}
	if got := string(rec.Chunks[0].Data); got != body {
		t.Errorf("body = %q; want %q", got, body)
	}
	if rec.Chunks[0].At != rec.End || rec.ResponseBytes != len(body) {
		t.Errorf("chunk At = %v, End = %v, ResponseBytes = %d; want At == End, %d", rec.Chunks[0].At, rec.End, rec.ResponseBytes, len(body))
	}
	checkOrder(t, rec)
}

func TestDoHTTPError(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 2000) // 2 bytes each: truncation cuts a rune
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/short":
			http.Error(w, `{"error":"model not found"}`, http.StatusNotFound)
		case "/long":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "x"+long)
		}
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()

	rec := do(t, c, t.Context(), srv.URL+"/short")
	want := record.ErrorDetails{Code: 404, Type: "Not Found", Message: "{\"error\":\"model not found\"}\n"}
	if rec.Error == nil || *rec.Error != want || rec.Status != 404 || len(rec.Chunks) != 0 {
		t.Errorf("Error = %+v, Status = %d, %d chunks; want %+v, 404, 0", rec.Error, rec.Status, len(rec.Chunks), want)
	}
	checkOrder(t, rec)

	rec = do(t, c, t.Context(), srv.URL+"/long")
	if rec.Error == nil || rec.Error.Code != 500 || rec.Error.Type != "Internal Server Error" {
		t.Fatalf("Error = %+v; want 500 Internal Server Error", rec.Error)
	}
	if m := rec.Error.Message; len(m) > MaxErrorBody || !strings.HasPrefix(m, "xéé") || strings.ContainsRune(m, '\uFFFD') {
		t.Errorf("message has %d bytes (max %d), prefix %q, or a replacement rune", len(m), MaxErrorBody, m[:5])
	}
}

// rawServer answers every connection with the handler's raw bytes.
func rawServer(t *testing.T, handle func(conn net.Conn, br *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				handle(conn, br)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

func TestDoReasonPhrase(t *testing.T) {
	t.Parallel()
	url := rawServer(t, func(conn net.Conn, _ *bufio.Reader) {
		io.WriteString(conn, "HTTP/1.1 503 Engine Overloaded\r\nContent-Length: 4\r\n\r\nbusy")
	})
	c := New(Options{})
	defer c.Close()
	rec := do(t, c, t.Context(), url)
	want := record.ErrorDetails{Code: 503, Type: "Engine Overloaded", Message: "busy"}
	if rec.Error == nil || *rec.Error != want {
		t.Errorf("Error = %+v; want %+v", rec.Error, want)
	}
}

func TestDoConnectRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	c := New(Options{})
	defer c.Close()
	rec := do(t, c, t.Context(), url)
	if rec.Error == nil || rec.Error.Type != record.TypeConnect || rec.Error.Code != 0 {
		t.Fatalf("Error = %+v; want %s with code 0", rec.Error, record.TypeConnect)
	}
	if !strings.Contains(rec.Error.Message, "refused") || strings.Contains(rec.Error.Message, "Post ") {
		t.Errorf("message = %q; want the dial error without the url.Error prefix", rec.Error.Message)
	}
	if rec.Status != 0 || rec.Ack != 0 || rec.Cancelled {
		t.Errorf("Status = %d, Ack = %v, Cancelled = %v; want zero", rec.Status, rec.Ack, rec.Cancelled)
	}
	checkOrder(t, rec)
}

// blockingServer streams the given prefix, then holds the response open
// until the test ends. started is closed once the prefix was flushed.
func blockingServer(t *testing.T, headers bool, prefix string) (url string, started chan struct{}) {
	t.Helper()
	started = make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headers {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, prefix)
			w.(http.Flusher).Flush()
		}
		once.Do(func() { close(started) })
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL, started
}

func TestDoTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		headers bool
		chunks  int
	}{
		{"before headers", false, 0},
		{"mid stream", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, _ := blockingServer(t, tc.headers, "data: first\n\n")
			// A configured 50 ms request timeout; nothing here measures it.
			c := New(Options{Timeout: 50 * time.Millisecond})
			defer c.Close()
			rec := do(t, c, t.Context(), url)
			if rec.Error == nil || rec.Error.Type != record.TypeTimeout || rec.Error.Code != 0 {
				t.Fatalf("Error = %+v; want %s", rec.Error, record.TypeTimeout)
			}
			if rec.Cancelled {
				t.Errorf("Cancelled = true; a timeout is not a cancellation")
			}
			if len(rec.Chunks) != tc.chunks {
				t.Errorf("%d chunks; want %d kept", len(rec.Chunks), tc.chunks)
			}
			checkOrder(t, rec)
		})
	}
}

func TestDoCallerCancel(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		headers bool
	}{
		{"before headers", false},
		{"mid stream", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, started := blockingServer(t, tc.headers, "data: first\n\n")
			// A long configured timeout must not be mistaken for the cause.
			c := New(Options{Timeout: time.Hour})
			defer c.Close()
			ctx, cancel := context.WithCancel(t.Context())
			go func() { <-started; cancel() }()
			rec := do(t, c, ctx, url)
			if rec.Error == nil || rec.Error.Code != record.CancelledCode || rec.Error.Type != record.TypeCancelled {
				t.Fatalf("Error = %+v; want 499 %s", rec.Error, record.TypeCancelled)
			}
			if !rec.Cancelled || rec.CancelledAt < rec.Sent || rec.CancelledAt != rec.End {
				t.Errorf("Cancelled = %v, CancelledAt = %v (Sent %v, End %v)", rec.Cancelled, rec.CancelledAt, rec.Sent, rec.End)
			}
			if !strings.HasPrefix(rec.Error.Message, "Request was cancelled after ") {
				t.Errorf("message = %q", rec.Error.Message)
			}
			if len(rec.Chunks) > 1 {
				t.Errorf("%d chunks; at most the one sent", len(rec.Chunks))
			}
			checkOrder(t, rec)
		})
	}
}

func TestDoStreamBrokenOff(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: one\n\ndata: two\n\n")
		w.(http.Flusher).Flush()
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		// Drop the connection without the chunked terminator.
		buf.Flush()
		conn.Close()
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()
	rec := do(t, c, t.Context(), srv.URL)
	if rec.Error == nil || rec.Error.Type != record.TypeStream || rec.Error.Code != 0 {
		t.Fatalf("Error = %+v; want %s", rec.Error, record.TypeStream)
	}
	if len(rec.Chunks) != 2 || string(rec.Chunks[1].Data) != "two" {
		t.Errorf("chunks = %d; want the 2 received kept", len(rec.Chunks))
	}
	if rec.Status != 200 || rec.Cancelled {
		t.Errorf("Status = %d, Cancelled = %v", rec.Status, rec.Cancelled)
	}
	checkOrder(t, rec)
}

func TestDoSSEErrorEvent(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: one\n\nevent: error\n: engine died\ndata: {}\n\ndata: never\n\n")
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()
	rec := do(t, c, t.Context(), srv.URL)
	want := record.ErrorDetails{Code: SSEErrorCode, Type: record.TypeServerReported, Message: "Error occurred in SSE response: engine died"}
	if rec.Error == nil || *rec.Error != want {
		t.Fatalf("Error = %+v; want %+v", rec.Error, want)
	}
	if len(rec.Chunks) != 1 {
		t.Errorf("%d chunks; want the one before the error", len(rec.Chunks))
	}
}

// TestDoConcurrentStreams holds 2,000 streams open at once against one
// server: every handler waits until all have arrived, so a connection cap
// or a per-request client limit would deadlock rather than pass.
func TestDoConcurrentStreams(t *testing.T) {
	t.Parallel()
	const n = 2000
	var arrived atomic.Int32
	all := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == n {
			close(all)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: a\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-all:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: b\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c := New(Options{Timeout: time.Minute})
	defer c.Close()
	clk := clock.New()
	recs := make([]record.Record, n)
	var wg sync.WaitGroup
	for i := range recs {
		wg.Go(func() {
			c.Do(t.Context(), clk, &Request{URL: srv.URL, Body: []byte("{}"), Header: jsonHeader()}, &recs[i])
		})
	}
	wg.Wait()
	errs := 0
	for i := range recs {
		if recs[i].Error != nil || len(recs[i].Chunks) != 3 {
			errs++
			if errs < 5 {
				t.Errorf("record %d: Error = %+v, %d chunks", i, recs[i].Error, len(recs[i].Chunks))
			}
		}
	}
	if errs > 0 {
		t.Fatalf("%d of %d streams failed; want 0", errs, n)
	}
}

func TestIsEventStream(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]bool{
		"text/event-stream":                 true,
		"Text/Event-Stream; charset=utf-8":  true,
		" text/event-stream ;charset=utf-8": true,
		"application/json":                  false,
		"text/event-streams":                false,
		"":                                  false,
	} {
		if got := isEventStream(ct); got != want {
			t.Errorf("isEventStream(%q) = %v; want %v", ct, got, want)
		}
	}
}

// TestDoStreamingGrowsOneArena streams events of growing sizes, past
// several doublings of the record's arena (and of the SSE reader's
// buffer): every chunk keeps its own bytes, and the earlier chunks end up
// in the same arena as the last (the old arenas are let go).
func TestDoStreamingGrowsOneArena(t *testing.T) {
	t.Parallel()
	var want []string
	for i := range 60 {
		want = append(want, fmt.Sprintf(`{"i":%d,"pad":"%s"}`, i, strings.Repeat("x", i*37)))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range want {
			fmt.Fprintf(w, "data: %s\n\n", d)
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()
	var seen []string
	rec := &record.Record{}
	c.Do(t.Context(), clock.New(), &Request{URL: srv.URL, Body: []byte(`{}`), Header: jsonHeader(),
		OnChunk: func(d []byte) { seen = append(seen, string(d)) }}, rec)
	if rec.Error != nil || len(rec.Chunks) != len(want) {
		t.Fatalf("Error = %+v, %d chunks; want none, %d", rec.Error, len(rec.Chunks), len(want))
	}
	total := 0
	for i, ch := range rec.Chunks {
		if string(ch.Data) != want[i] || seen[i] != want[i] {
			t.Fatalf("chunk %d = %q (OnChunk saw %q); want %q", i, ch.Data, seen[i], want[i])
		}
		total += len(ch.Data)
	}
	// One arena: the chunks lie back to back from the first chunk's start.
	first, last := rec.Chunks[0].Data, rec.Chunks[len(rec.Chunks)-1].Data
	if gap := uintptr(unsafe.Pointer(unsafe.SliceData(last))) - uintptr(unsafe.Pointer(unsafe.SliceData(first))); gap != uintptr(total-len(last)) {
		t.Errorf("the last chunk starts %d bytes after the first, want %d: not one arena", gap, total-len(last))
	}
}
