package transport

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/record"
)

// faultDo sends one streaming chat request to m with the fault forced.
func faultDo(t *testing.T, c *Client, url string, fault mockserver.Fault) *record.Record {
	t.Helper()
	h := jsonHeader()
	h.Set(mockserver.FaultHeader, string(fault))
	body := `{"model":"m","stream":true,"max_tokens":8,"ignore_eos":true,"messages":[{"role":"user","content":"a b c d"}]}`
	rec := &record.Record{}
	c.Do(context.Background(), clock.New(), &Request{URL: url + "/v1/chat/completions", Body: []byte(body), Header: h}, rec)
	checkOrder(t, rec)
	return rec
}

// TestDoMockFaults checks what the transport itself records for each fault
// of the mock server that concerns it; JSON and content problems are the
// metrics processor's and are tested with whole runs in internal/benchmark.
func TestDoMockFaults(t *testing.T) {
	t.Parallel()
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	cfg.FaultDelay = 20 * time.Millisecond
	srv := httptest.NewServer(mockserver.New(cfg))
	t.Cleanup(srv.Close)
	// A patient client for the faults that end on their own (a loaded
	// machine must not turn them into timeouts); the stall, which only the
	// request timeout ends, gets impatient ones.
	c := New(Options{Timeout: 30 * time.Second})
	t.Cleanup(c.Close)

	t.Run("reset_before_headers", func(t *testing.T) {
		a := faultDo(t, c, srv.URL, mockserver.FaultResetBeforeHeaders)
		b := faultDo(t, c, srv.URL, mockserver.FaultResetBeforeHeaders)
		if a.Error == nil || a.Error.Type != record.TypeConnect || a.Ack != 0 || a.Status != 0 {
			t.Fatalf("record %+v, error %+v; want a ConnectionError before headers", a, a.Error)
		}
		if *a.Error != *b.Error || strings.Contains(a.Error.Message, "->") {
			t.Errorf("messages %q and %q; want one message without the local address", a.Error.Message, b.Error.Message)
		}
	})
	t.Run("reset_mid_stream", func(t *testing.T) {
		a := faultDo(t, c, srv.URL, mockserver.FaultResetMidStream)
		b := faultDo(t, c, srv.URL, mockserver.FaultResetMidStream)
		if a.Error == nil || a.Error.Type != record.TypeStream || a.Status != 200 {
			t.Fatalf("error %+v, status %d; want a StreamError after a 200", a.Error, a.Status)
		}
		if *a.Error != *b.Error || strings.Contains(a.Error.Message, "->") {
			t.Errorf("messages %q and %q; want one message without the local address", a.Error.Message, b.Error.Message)
		}
	})
	t.Run("stall", func(t *testing.T) {
		rec := stallDo(t, srv.URL)
		if rec.Error == nil || rec.Error.Type != record.TypeTimeout || len(rec.Chunks) == 0 {
			t.Fatalf("error %+v with %d chunks; want a TimeoutError keeping the chunks before the stall", rec.Error, len(rec.Chunks))
		}
	})
	t.Run("truncated_stream", func(t *testing.T) {
		rec := faultDo(t, c, srv.URL, mockserver.FaultTruncatedStream)
		if rec.Error != nil || len(rec.Chunks) == 0 {
			t.Fatalf("error %+v with %d chunks; want a clean end (the processor decides)", rec.Error, len(rec.Chunks))
		}
		if last := rec.Chunks[len(rec.Chunks)-1].Data; string(last) == "[DONE]" {
			t.Errorf("last chunk is [DONE]; want the stream cut before it")
		}
	})
	t.Run("huge_chunk", func(t *testing.T) {
		rec := faultDo(t, c, srv.URL, mockserver.FaultHugeChunk)
		longest := 0
		for _, ch := range rec.Chunks {
			longest = max(longest, len(ch.Data))
		}
		if rec.Error != nil || longest <= 1<<20 || string(rec.Chunks[len(rec.Chunks)-1].Data) != "[DONE]" {
			t.Fatalf("error %+v, longest chunk %d; want the > 1 MiB chunk read whole and the stream to [DONE]", rec.Error, longest)
		}
	})
	t.Run("invalid_utf8", func(t *testing.T) {
		rec := faultDo(t, c, srv.URL, mockserver.FaultInvalidUTF8)
		invalid := 0
		for _, ch := range rec.Chunks {
			if !utf8.Valid(ch.Data) {
				invalid++
			}
		}
		if rec.Error != nil || invalid != 1 {
			t.Fatalf("error %+v, %d invalid chunks; want the bytes kept as sent in one chunk", rec.Error, invalid)
		}
	})
	t.Run("wrong_content_type", func(t *testing.T) {
		rec := faultDo(t, c, srv.URL, mockserver.FaultWrongContentType)
		if rec.Error != nil || rec.Streaming || len(rec.Chunks) != 1 || !bytes.HasPrefix(rec.Chunks[0].Data, []byte("<html>")) {
			t.Fatalf("error %+v, streaming %v, %d chunks; want the page read as one body", rec.Error, rec.Streaming, len(rec.Chunks))
		}
	})
	t.Run("slow_headers", func(t *testing.T) {
		rec := faultDo(t, c, srv.URL, mockserver.FaultSlowHeaders)
		// A lower bound set by the server, not a bound on our own speed.
		if rec.Error != nil || rec.Ack-rec.Sent < cfg.FaultDelay {
			t.Fatalf("error %+v, headers after %v; want a good record, headers after >= %v", rec.Error, rec.Ack-rec.Sent, cfg.FaultDelay)
		}
	})
}

// stallDo sends a request the server stalls halfway. The stall's answer
// starts at once, but a loaded machine can take longer than a short
// request timeout to dial, schedule the handler and read the headers;
// such a timeout says nothing about what the transport keeps from a stream
// it did read, so the request is sent again with twice the timeout until
// the headers come in before it (from 300 ms to 19.2 s). A record with
// the headers is returned as it is.
func stallDo(t *testing.T, url string) *record.Record {
	t.Helper()
	var rec *record.Record
	for timeout := 300 * time.Millisecond; timeout <= 20*time.Second; timeout *= 2 {
		impatient := New(Options{Timeout: timeout})
		rec = faultDo(t, impatient, url, mockserver.FaultStall)
		impatient.Close()
		if rec.Status != 0 || rec.Error == nil || rec.Error.Type != record.TypeTimeout {
			break
		}
		t.Logf("timed out after %v before the headers came; sending again with twice the timeout", timeout)
	}
	return rec
}

func TestStableMessage(t *testing.T) {
	t.Parallel()
	src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 52024}
	dst := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8000}
	reset := &net.OpError{Op: "read", Net: "tcp", Source: src, Addr: dst,
		Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{reset, "read tcp 127.0.0.1:8000: read: connection reset by peer"},
		{errors.Join(errors.New("wrapped"), reset), "wrapped\nread tcp 127.0.0.1:8000: read: connection reset by peer"},
		{&net.OpError{Op: "dial", Net: "tcp", Addr: dst, Err: syscall.ECONNREFUSED}, "dial tcp 127.0.0.1:8000: connection refused"},
		{errors.New("unexpected EOF"), "unexpected EOF"},
		{&net.OpError{Op: "readfrom", Net: "tcp", Addr: dst, Err: reset}, "readfrom tcp 127.0.0.1:8000: read tcp 127.0.0.1:8000: read: connection reset by peer"},
	} {
		if got := stableMessage(tc.err); got != tc.want {
			t.Errorf("stableMessage(%q) = %q; want %q", tc.err, got, tc.want)
		}
	}
}

// TestSSEReaderLongLine reads a data line of 3 MiB delivered in small
// reads: the reader must grow for it, not fail or split it.
func TestSSEReaderLongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3<<20)
	in := "data: a\n\ndata: " + long + "\n\ndata: [DONE]\n\n"
	sr := NewSSEReader(&sizedReader{s: in, n: 4093}, clock.New())
	var got []string
	for sr.Next() {
		got = append(got, string(sr.Event().Data))
	}
	if sr.Err() != nil || len(got) != 3 || got[1] != long || got[2] != "[DONE]" {
		t.Fatalf("err %v, %d events; want 3 with the long line whole", sr.Err(), len(got))
	}
}
