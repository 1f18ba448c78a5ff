package export

import (
	"net"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// writeTraceData writes a record's HTTP trace as AIPerf 0.13's
// AioHttpTraceDataExport (--export-http-trace): wall-clock epoch
// nanoseconds, keys in AIPerf's order, unset ones left out (AIPerf dumps
// with exclude_none), then its computed durations. The trace_type stays
// "aiohttp" so AIPerf's own readers load the line; the timeline is
// net/http's (record.HTTPTrace), mapped onto aiohttp's hooks:
//
//   - request_send_start: the connection in hand (GotConn), so
//     duration_ns equals http_req_duration and excludes the connect;
//   - request_headers_sent / request_send_end: WroteHeaders / WroteRequest;
//   - response_headers_received: Record.Ack (headers parsed);
//   - response_receive_start / _end: the first and last body read;
//   - connection_pool_wait_start / _end: GetConn to the start of the
//     request's own dial, else GotConn (http_req_blocked);
//   - tcp_connect_start / _end: the dial of a connection opened for this
//     request (TLS included); connection_reused: GotConn on a reused one.
func writeTraceData(w *jsonw, r *record.Record, o LineOptions) {
	t := &r.Trace
	d := t.Detail
	wall := func(at time.Duration) int64 { return o.Clock.WallNanos(at) }
	stamp := func(key string, at time.Duration) {
		if at != 0 {
			w.key(key)
			w.int(wall(at))
		}
	}
	chunks := func(key string, cs []record.TraceChunk) {
		w.key(key)
		w.open('[')
		for _, c := range cs {
			w.open('[')
			w.int(wall(c.At))
			w.int(int64(c.Size))
			w.close(']')
		}
		w.close(']')
	}
	span := func(key string, from, to time.Duration) {
		if from != 0 && to != 0 {
			w.key(key)
			w.int(int64(to - from))
		}
	}
	poolEnd := t.GotConn
	if t.Dialed {
		poolEnd = t.ConnectStart
		if t.DNSStart != 0 {
			poolEnd = t.DNSStart
		}
	}
	w.open('{')
	w.key("trace_type")
	w.str("aiohttp")
	stamp("request_send_start_ns", t.GotConn)
	if d.RequestHeader != nil {
		w.key("request_headers")
		writeRequestHeaders(w, d.RequestHeader, o.SensitiveHeader, o.Scrub)
	}
	stamp("request_headers_sent_ns", t.WroteHeaders)
	chunks("request_chunks", d.RequestChunks)
	stamp("request_send_end_ns", t.WroteRequest)
	w.key("request_chunks_count")
	w.int(int64(t.ChunksSent))
	w.key("request_bytes_total")
	w.int(t.BytesSent)
	if r.Status != 0 {
		w.key("response_status_code")
		w.int(int64(r.Status))
	}
	if d.Reason != "" {
		w.key("response_reason")
		w.str(d.Reason)
	}
	stamp("response_receive_start_ns", t.BodyStart)
	if d.ResponseHeader != nil {
		w.key("response_headers")
		writeRequestHeaders(w, d.ResponseHeader, o.SensitiveHeader, o.Scrub)
	}
	stamp("response_headers_received_ns", r.Ack)
	chunks("response_chunks", d.ResponseChunks)
	w.key("response_chunks_count")
	w.int(int64(t.ChunksReceived))
	w.key("response_bytes_total")
	w.int(t.BytesReceived)
	stamp("response_receive_end_ns", t.BodyEnd)
	stamp("error_timestamp_ns", t.Failed)
	stamp("connection_pool_wait_start_ns", t.GetConn)
	stamp("connection_pool_wait_end_ns", poolEnd)
	if t.Dialed {
		stamp("tcp_connect_start_ns", t.ConnectStart)
		stamp("tcp_connect_end_ns", t.ConnectDone)
	}
	if t.Reused {
		stamp("connection_reused_ns", t.GotConn)
	}
	if t.Dialed {
		stamp("dns_lookup_start_ns", t.DNSStart)
		stamp("dns_lookup_end_ns", t.DNSDone)
	}
	addr := func(ipKey, portKey, hostPort string) {
		host, port, err := net.SplitHostPort(hostPort)
		if err != nil {
			return
		}
		w.key(ipKey)
		w.str(host)
		if p, err := strconv.Atoi(port); err == nil {
			w.key(portKey)
			w.int(int64(p))
		}
	}
	addr("local_ip", "local_port", d.LocalAddr)
	addr("remote_ip", "remote_port", d.RemoteAddr)
	span("sending_ns", t.GotConn, t.WroteRequest)
	span("waiting_ns", t.WroteRequest, t.BodyStart)
	switch {
	case t.ChunksReceived == 1:
		w.key("receiving_ns")
		w.int(0)
	case t.ChunksReceived > 1:
		span("receiving_ns", t.BodyStart, t.BodyEnd)
	}
	span("duration_ns", t.GotConn, t.BodyEnd)
	span("blocked_ns", t.GetConn, poolEnd)
	if t.Dialed {
		span("dns_lookup_ns", t.DNSStart, t.DNSDone)
		span("connecting_ns", t.ConnectStart, t.ConnectDone)
	}
	w.close('}')
}
