package export

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// RawWriter streams profile_export_raw.jsonl (--export-level raw): per
// request, the metadata of the records file, the raw response chunks with
// their timestamps, the error, and the request body that was sent. It is
// safe for concurrent use and never waits for the disk in Write.
//
// Differences from AIPerf 0.13, which has more on its record: no
// response_headers, no content_type on a non-streaming body, and
// start_perf_ns / perf_ns are run-clock offsets in nanoseconds (monotonic,
// the same base for both) rather than Python's perf_counter_ns.
// Differences between them are latencies either way.
type RawWriter struct {
	lw  *lineWriter
	opt LineOptions
}

// NewRawWriter creates (truncating) path and starts streaming to it.
func NewRawWriter(path string, o LineOptions) (*RawWriter, error) {
	if o.Clock == nil {
		return nil, errors.New("export: RawWriter needs a clock")
	}
	lw, err := newLineWriter(path, o.FlushEvery, o.FlushLines)
	if err != nil {
		return nil, err
	}
	return &RawWriter{lw: lw, opt: o}, nil
}

// Write queues the raw line for p, whose request body was payload.
func (w *RawWriter) Write(p *metrics.Processed, payload []byte) error {
	if p == nil || p.Record == nil {
		return errors.New("export: nil record")
	}
	return w.lw.add(func(dst []byte) []byte { return AppendRawLine(dst, p, payload, w.opt) })
}

// Close flushes every queued line and closes the file.
func (w *RawWriter) Close() error { return w.lw.close() }

// AppendRawLine appends the raw JSONL line (without its newline) for p:
// {metadata, start_perf_ns, request_headers, status, responses, error,
// payload}, in AIPerf's key order. A streamed chunk is {perf_ns, packets:[{name, value}]} with an
// "event" packet when the SSE event had a type and a "data" packet; a
// non-streamed body is {perf_ns, text}. The payload is spliced verbatim
// when it is valid JSON (compacted if it spans lines), and written as a
// string otherwise, so the line is always one valid JSON value.
func AppendRawLine(dst []byte, p *metrics.Processed, payload []byte, o LineOptions) []byte {
	r := p.Record
	w := jsonw{b: dst}
	w.open('{')
	w.key("metadata")
	writeMetadata(&w, r, p.ProcessorID, o)
	w.key("start_perf_ns")
	w.int(int64(r.Sent))
	if r.RequestHeader != nil {
		w.key("request_headers")
		writeRequestHeaders(&w, r.RequestHeader, o.SensitiveHeader, o.Scrub)
	}
	if r.Status != 0 {
		w.key("status")
		w.int(int64(r.Status))
	}
	w.key("responses")
	w.open('[')
	for i := range r.Chunks {
		writeRawChunk(&w, &r.Chunks[i], r.Streaming)
	}
	w.close(']')
	if r.Error != nil {
		w.key("error")
		writeErrorDetails(&w, r.Error)
	}
	if r.CacheBustMarker != "" {
		w.key("cache_bust_marker")
		w.str(r.CacheBustMarker)
		w.key("cache_bust_target")
		w.str(r.CacheBustTarget)
	}
	if payload != nil {
		w.key("payload")
		writeRawPayload(&w, payload)
	}
	w.close('}')
	return w.b
}

func writeRawChunk(w *jsonw, c *record.Chunk, streaming bool) {
	w.open('{')
	w.key("perf_ns")
	w.int(int64(c.At))
	if !streaming {
		w.key("text")
		w.str(string(c.Data))
		w.close('}')
		return
	}
	w.key("packets")
	w.open('[')
	if c.Event != "" {
		w.open('{')
		w.key("name")
		w.str("event")
		w.key("value")
		w.str(c.Event)
		w.close('}')
	}
	w.open('{')
	w.key("name")
	w.str("data")
	w.key("value")
	w.str(string(c.Data))
	w.close('}')
	w.close(']')
	w.close('}')
}

func writeRawPayload(w *jsonw, payload []byte) {
	v := jsontext.Value(payload)
	if !v.IsValid() {
		w.str(string(payload))
		return
	}
	if bytes.ContainsAny(payload, "\r\n") {
		v = v.Clone()
		if err := v.Compact(); err != nil {
			w.str(string(payload))
			return
		}
	}
	w.raw(v)
}

// writeRequestHeaders writes the headers as {name: value} in name order, a
// repeated header's values joined with ", " as HTTP allows, credentials
// redacted.
//
// scrub, when set, is applied to every other value: a credential the
// server echoed in a header it has no reason to be in.
func writeRequestHeaders(w *jsonw, h map[string][]string, sensitive func(string) bool, scrub func(string) string) {
	names := slices.Sorted(maps.Keys(h))
	w.open('{')
	for _, name := range names {
		if len(h[name]) == 0 {
			continue // net/http sends no line for a nil-valued header
		}
		w.key(name)
		switch {
		case sensitive != nil && sensitive(name):
			w.str("<redacted>")
		case scrub != nil:
			w.str(scrub(strings.Join(h[name], ", ")))
		default:
			w.str(strings.Join(h[name], ", "))
		}
	}
	w.close('}')
}
