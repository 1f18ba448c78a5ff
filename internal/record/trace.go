package record

import "time"

// HTTPTrace is the transport's timeline of one request, in the phases k6
// and HAR name (blocked, DNS, connecting, sending, waiting, receiving),
// from which AIPerf 0.13's http_req_* metrics are derived.
//
// Every time is a run-clock offset like Record's own (monotonic, from the
// run's start). Zero means the step did not happen: the run clock starts
// before any request can be sent, so no real step is stamped at offset 0.
//
// The timeline is that of the attempt that got the response: when the
// transport resends a request after a stale keep-alive connection (see
// Record.ConnectionRetries), or follows a 307/308 redirect, the connection
// fields, counts and body stamps describe the last attempt; Record.Sent
// stays the first attempt's.
//
// Invariants of a request that got a response: GetConn <= GotConn <=
// WroteRequest, GotConn <= FirstByte <= BodyStart <= BodyEnd (BodyStart
// and BodyEnd are 0 when the body was empty), and when the connection was
// dialed for this request (Dialed): GetConn <= ConnectStart <=
// ConnectDone <= GotConn. WroteRequest may come after FirstByte when the
// server answered before reading the whole body.
//
// The struct holds no pointers but Detail, so a Record stays cheap to copy
// and to ship between processes; Detail is only set when the run exports
// trace data (--export-http-trace).
type HTTPTrace struct {
	// GetConn is when the request asked the connection pool for a
	// connection: the start of k6's "blocked".
	GetConn time.Duration
	// DNSStart and DNSDone bracket the host lookup of a connection dialed
	// for this request (none for an IP address or a reused connection).
	DNSStart, DNSDone time.Duration
	// ConnectStart and ConnectDone bracket the TCP connect of a connection
	// dialed for this request; for https ConnectDone is the end of the TLS
	// handshake.
	ConnectStart, ConnectDone time.Duration
	// GotConn is when the request had its connection and started writing:
	// k6's and HAR's "sending" starts here.
	GotConn time.Duration
	// WroteHeaders and WroteRequest are when the request headers, then the
	// whole request, had been written (the end of "sending").
	WroteHeaders, WroteRequest time.Duration
	// FirstByte is when the first byte of the response (the status line)
	// arrived: Record.Ack is when the headers had been parsed.
	FirstByte time.Duration
	// BodyStart and BodyEnd are the first and the last read of the
	// response body that returned data (AIPerf's response_receive_start and
	// response_receive_end): "waiting" ends at BodyStart, "receiving" runs
	// to BodyEnd.
	BodyStart, BodyEnd time.Duration
	// Failed is when the transport reported the request's failure (AIPerf's
	// error_timestamp); 0 on success.
	Failed time.Duration

	// BytesSent and ChunksSent are the request body bytes written and the
	// writes they took; BytesReceived and ChunksReceived the response body
	// bytes read and the reads that returned data (transport reads, not
	// SSE events).
	BytesSent, BytesReceived   int64
	ChunksSent, ChunksReceived int32

	// Reused reports that the connection had served a request before.
	Reused bool
	// Dialed reports that the connection was opened for this request, so
	// its connect time is on this request's path. A new connection that
	// another request dialed, or one opened before the run
	// (Preconnected), is neither Reused nor Dialed.
	Dialed bool
	// Preconnected reports a connection opened before the first request
	// (--pre-connect), serving its first request now.
	Preconnected bool

	// Detail is the per-request trace export; nil unless the run exports
	// HTTP trace data.
	Detail *TraceDetail
}

// Traced reports whether the transport recorded a timeline for the
// request (it reached the point of asking for a connection).
func (t *HTTPTrace) Traced() bool { return t.GetConn != 0 }

// TraceDetail is what --export-http-trace adds to a record beyond the
// timeline: every body read and write, the headers and the socket.
type TraceDetail struct {
	// RequestChunks and ResponseChunks are each body write and each body
	// read that returned data, in order.
	RequestChunks, ResponseChunks []TraceChunk
	// RequestHeader is the request's headers as sent, credentials
	// redacted; ResponseHeader the response's.
	RequestHeader, ResponseHeader map[string][]string
	// Reason is the response's reason phrase ("OK").
	Reason string
	// LocalAddr and RemoteAddr are the connection's "ip:port" ends.
	LocalAddr, RemoteAddr string
}

// TraceChunk is one transport read or write: when and how many bytes.
type TraceChunk struct {
	At   time.Duration
	Size int
}
