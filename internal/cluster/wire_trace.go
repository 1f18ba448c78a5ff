package cluster

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
	"github.com/aiperf-go/aiperf/internal/record"
)

// traceToWire converts a record's HTTP trace; nil for a request
// that was never traced, so an untraced record costs no bytes.
func traceToWire(t *record.HTTPTrace) *clusterpb.HTTPTrace {
	if *t == (record.HTTPTrace{}) {
		return nil
	}
	w := &clusterpb.HTTPTrace{
		GetConnNs: int64(t.GetConn), DnsStartNs: int64(t.DNSStart), DnsDoneNs: int64(t.DNSDone),
		ConnectStartNs: int64(t.ConnectStart), ConnectDoneNs: int64(t.ConnectDone), GotConnNs: int64(t.GotConn),
		WroteHeadersNs: int64(t.WroteHeaders), WroteRequestNs: int64(t.WroteRequest), FirstByteNs: int64(t.FirstByte),
		BodyStartNs: int64(t.BodyStart), BodyEndNs: int64(t.BodyEnd), FailedNs: int64(t.Failed),
		BytesSent: t.BytesSent, BytesReceived: t.BytesReceived, ChunksSent: t.ChunksSent, ChunksReceived: t.ChunksReceived,
		Reused: t.Reused, Dialed: t.Dialed, Preconnected: t.Preconnected,
	}
	if d := t.Detail; d != nil {
		w.Detail = &clusterpb.TraceDetail{
			RequestChunks: chunksToWire(d.RequestChunks), ResponseChunks: chunksToWire(d.ResponseChunks),
			RequestHeader: headersToWire(d.RequestHeader), ResponseHeader: headersToWire(d.ResponseHeader),
			Reason: d.Reason, LocalAddr: d.LocalAddr, RemoteAddr: d.RemoteAddr,
		}
	}
	return w
}

// traceFromWire is the inverse of traceToWire.
func traceFromWire(w *clusterpb.HTTPTrace) record.HTTPTrace {
	if w == nil {
		return record.HTTPTrace{}
	}
	d := func(ns int64) time.Duration { return time.Duration(ns) }
	t := record.HTTPTrace{
		GetConn: d(w.GetConnNs), DNSStart: d(w.DnsStartNs), DNSDone: d(w.DnsDoneNs),
		ConnectStart: d(w.ConnectStartNs), ConnectDone: d(w.ConnectDoneNs), GotConn: d(w.GotConnNs),
		WroteHeaders: d(w.WroteHeadersNs), WroteRequest: d(w.WroteRequestNs), FirstByte: d(w.FirstByteNs),
		BodyStart: d(w.BodyStartNs), BodyEnd: d(w.BodyEndNs), Failed: d(w.FailedNs),
		BytesSent: w.BytesSent, BytesReceived: w.BytesReceived, ChunksSent: w.ChunksSent, ChunksReceived: w.ChunksReceived,
		Reused: w.Reused, Dialed: w.Dialed, Preconnected: w.Preconnected,
	}
	if wd := w.Detail; wd != nil {
		t.Detail = &record.TraceDetail{
			RequestChunks: chunksFromWire(wd.RequestChunks), ResponseChunks: chunksFromWire(wd.ResponseChunks),
			RequestHeader: headersFromWire(wd.RequestHeader), ResponseHeader: headersFromWire(wd.ResponseHeader),
			Reason: wd.Reason, LocalAddr: wd.LocalAddr, RemoteAddr: wd.RemoteAddr,
		}
	}
	return t
}

func chunksToWire(cs []record.TraceChunk) []*clusterpb.TraceChunk {
	if cs == nil {
		return nil
	}
	out := make([]*clusterpb.TraceChunk, len(cs))
	for i, c := range cs {
		out[i] = &clusterpb.TraceChunk{AtNs: int64(c.At), Size: int32(c.Size)}
	}
	return out
}

func chunksFromWire(ws []*clusterpb.TraceChunk) []record.TraceChunk {
	if ws == nil {
		return nil
	}
	out := make([]record.TraceChunk, len(ws))
	for i, c := range ws {
		out[i] = record.TraceChunk{At: time.Duration(c.AtNs), Size: int(c.Size)}
	}
	return out
}

// headersToWire and headersFromWire carry a header map (nil stays nil).
func headersToWire(h map[string][]string) []*clusterpb.Header {
	if h == nil {
		return nil
	}
	out := make([]*clusterpb.Header, 0, len(h))
	for name, values := range h {
		out = append(out, &clusterpb.Header{Name: name, Values: values})
	}
	return out
}

func headersFromWire(ws []*clusterpb.Header) map[string][]string {
	if ws == nil {
		return nil
	}
	h := make(map[string][]string, len(ws))
	for _, w := range ws {
		h[w.Name] = w.Values
	}
	return h
}
