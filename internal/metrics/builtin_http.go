package metrics

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Tags of the HTTP trace metrics that others depend on.
const (
	tagHTTPBlocked    = "http_req_blocked"
	tagHTTPDNS        = "http_req_dns_lookup"
	tagHTTPConnecting = "http_req_connecting"
	tagHTTPSending    = "http_req_sending"
	tagHTTPWaiting    = "http_req_waiting"
	tagHTTPReceiving  = "http_req_receiving"
)

// httpTraceMetrics are AIPerf 0.13's fourteen http_req_* metrics (k6's
// names), computed from Record.Trace for every valid request, written by
// default into the summary and the per-request lines, and shown in the
// console only with --show-trace-timing (they are HTTP_TRACE_ONLY, console
// group NONE). Tags, headers, units and display orders are AIPerf's.
//
// The phases, each from the transport's timeline (record.HTTPTrace):
//
//		GetConn ─blocked─ [DNSStart─dns─DNSDone] [ConnectStart─connecting─ConnectDone]
//		  GotConn ─sending─ WroteRequest ─waiting─ BodyStart ─receiving─ BodyEnd
//
//	  - blocked: waiting for a connection: from GetConn to the start of the
//	    request's own DNS lookup or dial when it opened one, else to GotConn
//	    (the pool's wait for an idle connection, or for a dial another
//	    request started).
//	  - dns_lookup and connecting: the lookup and the TCP (and TLS) connect
//	    of a connection opened for this request (HTTPTrace.Dialed); 0 on a
//	    reused, pre-opened or borrowed connection.
//	  - sending: GotConn to WroteRequest, headers and body on the wire.
//	  - waiting (TTFB): WroteRequest to the first body read with data, as
//	    AIPerf's response_receive_start; not the first header byte.
//	  - receiving: first to last body read; 0 for a body read in one go.
//	  - duration: GotConn to the last body read (send start to receive end,
//	    the connection set-up excluded, as its header says).
//	  - total: the sum of the six phases; connection_overhead the sum of the
//	    first three.
//
// One departure from AIPerf, whose aiohttp trace starts "sending" before
// the connection is acquired: here sending starts when the connection is
// in hand, so a new connection's set-up is in connecting (and blocked),
// never in sending, duration or waiting (k6's and HAR's definitions).
func httpTraceMetrics() []*Metric {
	d := func(tag, header, short string, order int, f func(t *record.HTTPTrace) (time.Duration, bool)) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagHTTPTraceOnly, Group: GroupNone, Order: order,
			record: func(c *recordContext) (float64, bool) {
				t := &c.rec.Trace
				if !t.Traced() {
					return 0, false
				}
				v, ok := f(t)
				if !ok || v < 0 {
					return 0, false
				}
				return float64(v), true
			},
		}
	}
	n := func(tag, header, short string, order int, unit, display Unit, f func(t *record.HTTPTrace) float64) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindRecord, Unit: unit, DisplayUnit: display, Integer: true,
			Flags: FlagHTTPTraceOnly, Group: GroupNone, Order: order,
			record: func(c *recordContext) (float64, bool) {
				if !c.rec.Trace.Traced() {
					return 0, false
				}
				return f(&c.rec.Trace), true
			},
		}
	}
	sum := func(tag, header, short string, order int, parts ...string) *Metric {
		return &Metric{
			Tag: tag, Header: header, ShortHeader: short,
			Kind: KindRecord, Unit: UnitNS, DisplayUnit: UnitMS, Integer: true,
			Flags: FlagHTTPTraceOnly, Group: GroupNone, Order: order, Optional: parts,
			record: func(c *recordContext) (float64, bool) {
				if !c.rec.Trace.Traced() {
					return 0, false
				}
				// As AIPerf: a phase without a value counts as 0.
				total := 0.0
				for _, p := range parts {
					v, _ := c.value(p)
					total += v
				}
				return total, true
			},
		}
	}
	return []*Metric{
		d(tagHTTPBlocked, "HTTP Blocked", "Blocked", 2000, HTTPBlocked),
		d(tagHTTPDNS, "HTTP DNS Lookup", "DNS", 2010, HTTPDNSLookup),
		d(tagHTTPConnecting, "HTTP Connecting", "Connecting", 2020, HTTPConnecting),
		d(tagHTTPSending, "HTTP Sending", "Sending", 2030, HTTPSending),
		d(tagHTTPWaiting, "HTTP Waiting (TTFB)", "TTFB", 2040, HTTPWaiting),
		d(tagHTTPReceiving, "HTTP Receiving", "Receiving", 2050, HTTPReceiving),
		n("http_req_connection_reused", "HTTP Connection Reused", "Conn Reused", 2060, UnitRatio, "", func(t *record.HTTPTrace) float64 {
			if t.Reused {
				return 1
			}
			return 0
		}),
		n("http_req_data_sent", "HTTP Data Sent", "Sent", 2070, UnitBytes, UnitKB, func(t *record.HTTPTrace) float64 { return float64(t.BytesSent) }),
		n("http_req_chunks_sent", "HTTP Chunks Sent", "Chunks Sent", 2080, UnitCount, "", func(t *record.HTTPTrace) float64 { return float64(t.ChunksSent) }),
		n("http_req_data_received", "HTTP Data Received", "Received", 2090, UnitBytes, UnitKB, func(t *record.HTTPTrace) float64 { return float64(t.BytesReceived) }),
		n("http_req_chunks_received", "HTTP Chunks Received", "Chunks Recv", 2100, UnitCount, "", func(t *record.HTTPTrace) float64 { return float64(t.ChunksReceived) }),
		sum("http_req_connection_overhead", "HTTP Connection Overhead", "Conn Overhead", 2110, tagHTTPBlocked, tagHTTPDNS, tagHTTPConnecting),
		d("http_req_duration", "HTTP Duration (excl. conn)", "Dur (excl)", 2120, HTTPDuration),
		sum("http_req_total", "HTTP Total Time", "Total", 2130,
			tagHTTPBlocked, tagHTTPDNS, tagHTTPConnecting, tagHTTPSending, tagHTTPWaiting, tagHTTPReceiving),
	}
}

// HTTPBlocked is the time t waited for its connection: from GetConn to the
// start of its own lookup or dial when it opened the connection, else to
// GotConn. false without a connection.
func HTTPBlocked(t *record.HTTPTrace) (time.Duration, bool) {
	if t.GotConn == 0 {
		return 0, false
	}
	end := t.GotConn
	if t.Dialed {
		end = t.ConnectStart
		if t.DNSStart != 0 {
			end = t.DNSStart
		}
	}
	return end - t.GetConn, true
}

// HTTPDNSLookup is the host lookup of the connection t opened; 0 when it
// looked nothing up (an IP address, or a connection it did not open).
func HTTPDNSLookup(t *record.HTTPTrace) (time.Duration, bool) {
	if !t.Dialed || t.DNSStart == 0 {
		return 0, t.GotConn != 0
	}
	return t.DNSDone - t.DNSStart, true
}

// HTTPConnecting is the TCP (and TLS) connect of the connection t opened;
// 0 when it used one it did not open.
func HTTPConnecting(t *record.HTTPTrace) (time.Duration, bool) {
	if !t.Dialed {
		return 0, t.GotConn != 0
	}
	return t.ConnectDone - t.ConnectStart, true
}

// HTTPSending is from having the connection to the request written.
func HTTPSending(t *record.HTTPTrace) (time.Duration, bool) {
	if t.GotConn == 0 || t.WroteRequest == 0 {
		return 0, false
	}
	return t.WroteRequest - t.GotConn, true
}

// HTTPWaiting is from the request written to the first body read with
// data; false without a body, or when the answer came before the request
// was fully written.
func HTTPWaiting(t *record.HTTPTrace) (time.Duration, bool) {
	if t.WroteRequest == 0 || t.BodyStart == 0 {
		return 0, false
	}
	return t.BodyStart - t.WroteRequest, true
}

// HTTPReceiving is from the first to the last body read with data: 0 for a
// body read at once, false without a body.
func HTTPReceiving(t *record.HTTPTrace) (time.Duration, bool) {
	switch {
	case t.ChunksReceived == 0:
		return 0, false
	case t.ChunksReceived == 1:
		return 0, true
	}
	return t.BodyEnd - t.BodyStart, true
}

// HTTPDuration is from having the connection to the last body read: the
// exchange without its connection set-up.
func HTTPDuration(t *record.HTTPTrace) (time.Duration, bool) {
	if t.GotConn == 0 || t.BodyEnd == 0 {
		return 0, false
	}
	return t.BodyEnd - t.GotConn, true
}
