package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

func TestParseResponse(t *testing.T) {
	const cl = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 5\r\n\r\nhello"
	const ch = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n!\r\n0\r\nTrailer: t\r\n\r\n"
	const e503 = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"
	cases := []struct {
		name   string
		in     string
		n      int
		status int
		err    string // "" ok, "incomplete", or a substring of the error
	}{
		{"content-length", cl, len(cl), 200, ""},
		{"two pipelined: the first", cl + cl, len(cl), 200, ""},
		{"body cut short", cl[:len(cl)-1], 0, 0, "incomplete"},
		{"header cut short", cl[:20], 0, 0, "incomplete"},
		{"chunked with trailer", ch, len(ch), 200, ""},
		{"chunked cut in the last chunk", ch[:len(ch)-2], 0, 0, "incomplete"},
		{"chunked cut in a chunk", ch[:50], 0, 0, "incomplete"},
		{"error status", e503, len(e503), 503, ""},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\n", 27, 204, ""},
		{"bad status line", "HTTP/2 200\r\n\r\n", 0, 0, "bad status line"},
		{"bad content-length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, 0, "bad Content-Length"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, 0, "bad chunk size"},
		{"chunk without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", 0, 0, "not followed by CRLF"},
		{"gzip coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, 0, "unsupported Transfer-Encoding"},
		{"read until close", "HTTP/1.1 200 OK\r\n\r\nabc", 0, 0, "without Content-Length"},
		{"header line without colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", 0, 0, "bad header line"},
	}
	for _, c := range cases {
		n, status, err := parseResponse([]byte(c.in))
		switch {
		case c.err == "incomplete":
			if !errors.Is(err, errIncomplete) {
				t.Errorf("%s: err = %v; want incomplete", c.name, err)
			}
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err = %v; want one containing %q", c.name, err, c.err)
			}
		case err != nil || n != c.n || status != c.status:
			t.Errorf("%s: = %d, %d, %v; want %d, %d, nil", c.name, n, status, err, c.n, c.status)
		}
	}
}

func FuzzParseResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, _, err := parseResponse(b)
		if err == nil && (n <= 0 || n > len(b)) {
			t.Fatalf("parseResponse consumed %d of %d bytes", n, len(b))
		}
	})
}

// runOpenLoop runs openLoopMain against url and returns its output fields.
// The servers run in the test's own process, and the reference holds its
// P while it waits (openLoop): give them one of their own.
func runOpenLoop(t *testing.T, args ...string) []float64 {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	var out strings.Builder
	if err := openLoopMain(args, &out); err != nil {
		t.Fatalf("openloop %v: %v", args, err)
	}
	f := strings.Fields(out.String())
	if len(f) != 12 {
		t.Fatalf("output %q: want 12 fields", out.String())
	}
	v := make([]float64, len(f))
	for i := range f {
		if _, err := fmt.Sscan(f[i], &v[i]); err != nil {
			t.Fatalf("field %d of %q: %v", i, out.String(), err)
		}
	}
	return v
}

func TestOpenLoopAgainstTheMock(t *testing.T) {
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	// 400 requests at 4,000/s (Poisson) over 4 connections.
	v := runOpenLoop(t, "-url", ts.URL+"/v1/chat/completions", "-rate", "4000", "-duration", "100ms", "-conns", "4", "-arrival", "poisson")
	asked, achieved, p50, p99, mx, cpu, ok, bad := v[0], v[1], v[2], v[3], v[4], v[5], v[8], v[9]
	if asked != 4000 || ok != 400 || bad != 0 {
		t.Fatalf("asked %v ok %v errors %v; want 4000, 400, 0 (output %v)", asked, ok, bad, v)
	}
	if achieved <= 0 || cpu <= 0 {
		t.Errorf("achieved %v, cpu/req %v; want both > 0", achieved, cpu)
	}
	if p50 < 0 || p99 < p50 || mx < p99 {
		t.Errorf("lag p50 %v p99 %v max %v: want 0 <= p50 <= p99 <= max (never early)", p50, p99, mx)
	}
}

// With a quantum the timer wakes at most once per quantum, however late
// the machine runs it; everything is still sent and never early.
func TestOpenLoopQuantumBatches(t *testing.T) {
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	ts := httptest.NewServer(mockserver.New(cfg))
	defer ts.Close()
	// 200 requests 50 µs apart (10 ms), a 1 ms quantum: at most 11 wake-ups.
	v := runOpenLoop(t, "-url", ts.URL+"/v1/chat/completions", "-rate", "20000", "-duration", "10ms", "-conns", "8", "-quantum", "1ms")
	p50, ok, bad, wakes := v[2], v[8], v[9], v[11]
	if ok != 200 || bad != 0 {
		t.Fatalf("ok %v errors %v; want 200 and 0 (output %v)", ok, bad, v)
	}
	if wakes > 11 {
		t.Errorf("%v timer wake-ups in 10 ms with a 1 ms quantum; want at most 11", wakes)
	}
	if p50 < 0 {
		t.Errorf("lag p50 %v < 0: a request went out early", p50)
	}
}

func TestDueTimes(t *testing.T) {
	c := dueTimes("constant", 4, 3, 1)
	if !slices.Equal(c, []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond}) {
		t.Errorf("constant dues = %v", c)
	}
	p := dueTimes("poisson", 1000, 20000, 7)
	if !slices.IsSorted(p) || p[0] != 0 {
		t.Fatalf("poisson dues not sorted from 0: %v...", p[:5])
	}
	// 19,999 exponential gaps of mean 1 ms: the mean is within 3 %
	// (about 4 standard errors), and the seed makes it one fixed draw.
	if mean := p[len(p)-1] / time.Duration(len(p)-1); mean < 970*time.Microsecond || mean > 1030*time.Microsecond {
		t.Errorf("poisson mean gap %v; want about 1 ms", mean)
	}
	if !slices.Equal(p, dueTimes("poisson", 1000, 20000, 7)) {
		t.Error("the same seed gave another schedule")
	}
}

func TestOpenLoopChunkedAndErrors(t *testing.T) {
	var n int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++ // the test server serves one connection at a time here (-conns 1)
		if n%2 == 0 {
			http.Error(w, "no", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("part"))
		w.(http.Flusher).Flush() // chunked
		_, _ = w.Write([]byte("rest"))
	}))
	defer ts.Close()
	v := runOpenLoop(t, "-url", ts.URL+"/x", "-rate", "1000", "-duration", "20ms", "-conns", "1")
	if ok, bad := v[8], v[9]; ok != 10 || bad != 10 {
		t.Fatalf("ok %v errors %v; want 10 and 10 (output %v)", ok, bad, v)
	}
}

// A server that drops every connection unanswered: the run still ends (at
// the schedule's end plus -grace) and counts every request as an error.
func TestOpenLoopServerGone(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, _, _ := w.(http.Hijacker).Hijack()
		_ = hj.Close() // no response at all
	}))
	defer ts.Close()
	v := runOpenLoop(t, "-url", ts.URL+"/x", "-rate", "1000", "-duration", "5ms", "-conns", "2", "-grace", "200ms")
	if ok, bad := v[8], v[9]; ok != 0 || bad != 5 {
		t.Fatalf("ok %v errors %v; want 0 and 5 (output %v)", ok, bad, v)
	}
}

func TestOpenLoopFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-rate", "100"},
		{"-url", "https://x/", "-rate", "100"},
		{"-url", "http://127.0.0.1:1/", "-rate", "0"},
		{"-url", "http://127.0.0.1:1/", "-conns", "0"},
		{"-url", "http://127.0.0.1:1/", "-quantum", "-1ms"},
		{"-url", "http://127.0.0.1:1/", "-arrival", "gamma"},
	} {
		if err := openLoopMain(args, new(strings.Builder)); err == nil {
			t.Errorf("openloop %v: no error", args)
		}
	}
}
