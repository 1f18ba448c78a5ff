package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// fixedTrace is a request that opened its connection (a lookup, then a
// TCP connect) and streamed a body in four reads, with every step at a
// round offset (µs):
//
//	GetConn 1000, DNS 1010-1030, connect 1040-1140, GotConn 1150,
//	WroteRequest 1200, body 21200..61200 (4 reads), 1,500 + 9,000 bytes.
func fixedTrace() record.HTTPTrace {
	return record.HTTPTrace{
		GetConn: dur(1000), DNSStart: dur(1010), DNSDone: dur(1030),
		ConnectStart: dur(1040), ConnectDone: dur(1140), GotConn: dur(1150),
		WroteHeaders: dur(1190), WroteRequest: dur(1200), FirstByte: dur(11200),
		BodyStart: dur(21200), BodyEnd: dur(61200),
		BytesSent: 1500, ChunksSent: 1, BytesReceived: 9000, ChunksReceived: 4,
		Dialed: true,
	}
}

// dur is a run offset in microseconds.
func dur(usec float64) time.Duration { return time.Duration(usec * 1e3) }

// TestHTTPTraceDerivations pins every http_req_* value of fixed
// timelines, in display units (ms, KB, count, ratio), through the
// processor that computes them for real records.
func TestHTTPTraceDerivations(t *testing.T) {
	t.Parallel()
	reused := fixedTrace()
	reused.Dialed, reused.Reused = false, true
	reused.DNSStart, reused.DNSDone, reused.ConnectStart, reused.ConnectDone = 0, 0, 0, 0
	reused.GotConn = dur(1005)
	pre := reused
	pre.Reused, pre.Preconnected = false, true
	oneRead := fixedTrace()
	oneRead.ChunksReceived, oneRead.BodyEnd = 1, oneRead.BodyStart
	noDNS := fixedTrace()
	noDNS.DNSStart, noDNS.DNSDone = 0, 0
	empty := fixedTrace()
	empty.BodyStart, empty.BodyEnd, empty.ChunksReceived, empty.BytesReceived = 0, 0, 0, 0

	nan := math.NaN()
	cases := []struct {
		name  string
		trace record.HTTPTrace
		// blocked, dns, connecting, sending, waiting, receiving,
		// overhead, duration, total (ms); reused; sent, received (KB);
		// chunks sent, received.
		want map[string]float64
	}{
		{"dialed with a lookup", fixedTrace(), map[string]float64{
			"http_req_blocked": 0.010, "http_req_dns_lookup": 0.020, "http_req_connecting": 0.100,
			"http_req_sending": 0.050, "http_req_waiting": 20.0, "http_req_receiving": 40.0,
			"http_req_connection_overhead": 0.130, "http_req_duration": 60.050, "http_req_total": 60.180,
			"http_req_connection_reused": 0, "http_req_data_sent": 1500.0 / 1024, "http_req_data_received": 9000.0 / 1024,
			"http_req_chunks_sent": 1, "http_req_chunks_received": 4,
		}},
		{"dialed, an IP address", noDNS, map[string]float64{
			"http_req_blocked": 0.040, "http_req_dns_lookup": 0, "http_req_connecting": 0.100,
			"http_req_connection_overhead": 0.140, "http_req_total": 60.190,
		}},
		{"reused", reused, map[string]float64{
			"http_req_blocked": 0.005, "http_req_dns_lookup": 0, "http_req_connecting": 0,
			"http_req_sending": 0.195, "http_req_connection_overhead": 0.005,
			"http_req_duration": 60.195, "http_req_total": 60.200, "http_req_connection_reused": 1,
		}},
		{"pre-connected: first use, no connect on its path", pre, map[string]float64{
			"http_req_blocked": 0.005, "http_req_connecting": 0, "http_req_connection_reused": 0,
		}},
		{"body in one read", oneRead, map[string]float64{
			"http_req_receiving": 0, "http_req_waiting": 20.0, "http_req_duration": 20.050, "http_req_chunks_received": 1,
		}},
		{"empty body: no waiting, receiving or duration", empty, map[string]float64{
			"http_req_waiting": nan, "http_req_receiving": nan, "http_req_duration": nan,
			"http_req_total": 0.180, "http_req_data_received": 0, "http_req_chunks_received": 0,
		}},
		{"untraced: nothing", record.HTTPTrace{}, map[string]float64{
			"http_req_blocked": nan, "http_req_connecting": nan, "http_req_connection_reused": nan,
			"http_req_total": nan, "http_req_data_sent": nan,
		}},
	}
	reg := Builtin()
	proc := newTestProcessor(t, reg, nil)
	for _, c := range cases {
		rec := streamRec(1, 1, 62, 63)
		rec.Trace = c.trace
		p := proc.Process(rec)
		for tag, want := range c.want {
			v, ok := valueOf(p, tag)
			switch {
			case math.IsNaN(want) && ok:
				t.Errorf("%s: %s = %v; want no value", c.name, tag, v.Scalar)
			case math.IsNaN(want):
			case !ok:
				t.Errorf("%s: %s has no value; want %v", c.name, tag, want)
			case !approx(v.Scalar, want):
				t.Errorf("%s: %s = %v; want %v", c.name, tag, v.Scalar, want)
			}
		}
	}
}

// The metrics carry AIPerf 0.13's units, display orders and flags.
func TestHTTPTraceMetricDefinitions(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	want := []struct {
		tag   string
		order int
		unit  Unit
	}{
		{"http_req_blocked", 2000, UnitMS}, {"http_req_dns_lookup", 2010, UnitMS},
		{"http_req_connecting", 2020, UnitMS}, {"http_req_sending", 2030, UnitMS},
		{"http_req_waiting", 2040, UnitMS}, {"http_req_receiving", 2050, UnitMS},
		{"http_req_connection_reused", 2060, UnitRatio}, {"http_req_data_sent", 2070, UnitKB},
		{"http_req_chunks_sent", 2080, UnitCount}, {"http_req_data_received", 2090, UnitKB},
		{"http_req_chunks_received", 2100, UnitCount}, {"http_req_connection_overhead", 2110, UnitMS},
		{"http_req_duration", 2120, UnitMS}, {"http_req_total", 2130, UnitMS},
	}
	for _, w := range want {
		m, ok := reg.Lookup(w.tag)
		if !ok {
			t.Errorf("%s missing", w.tag)
			continue
		}
		if m.Order != w.order || m.displayUnit() != w.unit || m.Flags != FlagHTTPTraceOnly || m.Group != GroupNone || m.Kind != KindRecord {
			t.Errorf("%s: order %d, unit %s, flags %b, group %d, kind %s; want %d, %s, HTTP_TRACE_ONLY, NONE, record",
				w.tag, m.Order, m.displayUnit(), m.Flags, m.Group, m.Kind, w.order, w.unit)
		}
	}
	if f, _ := scale(UnitBytes, UnitKB); f != 1.0/1024 {
		t.Errorf("B -> KB = %v; want 1/1024 (AIPerf's binary kilobyte)", f)
	}
}
