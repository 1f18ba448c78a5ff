package export

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Wall converts run-clock offsets into Unix epoch nanoseconds; a
// *clock.Clock is one. Tests pass a fixed one so lines are reproducible.
type Wall interface {
	WallNanos(d time.Duration) int64
}

var _ Wall = (*clock.Clock)(nil)

// LineOptions say how per-request lines are stamped.
type LineOptions struct {
	// Clock converts the record's run offsets into epoch nanoseconds.
	// Required.
	Clock Wall
	// WarmupFirst reports that a warmup phase ran before profiling, which
	// makes the profiling phase's phase_index 1 (AIPerf numbers phases in
	// run order).
	WarmupFirst bool
	// FlushEvery and FlushLines bound how long a written line may stay in
	// memory: it reaches the file within FlushEvery, or as soon as
	// FlushLines lines are pending. Zero picks 100 ms and 256 lines.
	FlushEvery time.Duration
	FlushLines int
	// SensitiveHeader reports a request header whose value the raw export
	// writes as "<redacted>" (credentials); nil redacts nothing.
	SensitiveHeader func(name string) bool
	// Scrub, when set, removes the run's credentials from the other
	// header values written (request and response headers alike: a
	// server may echo a key or a Basic credential in any header).
	Scrub func(string) string
}

// RecordWriter streams profile_export.jsonl: one line per request, in the
// order Write is called, shaped exactly like AIPerf 0.13's MetricRecordInfo
// lines ({metadata, metrics, error}). It is safe for concurrent use; Write
// never waits for the disk (see lineWriter).
type RecordWriter struct {
	lw  *lineWriter
	opt LineOptions
	// members is written only by the line encoder, which lineWriter.add
	// runs under its lock, one line at a time.
	members memberCache
}

// NewRecordWriter creates (truncating) path and starts streaming to it.
func NewRecordWriter(path string, o LineOptions) (*RecordWriter, error) {
	if o.Clock == nil {
		return nil, errors.New("export: RecordWriter needs a clock")
	}
	lw, err := newLineWriter(path, o.FlushEvery, o.FlushLines)
	if err != nil {
		return nil, err
	}
	return &RecordWriter{lw: lw, opt: o}, nil
}

// Write queues the line for one processed record. It returns an error only
// for a nil record, after Close, or when an earlier flush failed.
func (w *RecordWriter) Write(p *metrics.Processed) error {
	if p == nil || p.Record == nil {
		return errors.New("export: nil record")
	}
	return w.lw.add(func(dst []byte) []byte { return appendRecordLine(dst, p, w.opt, &w.members) })
}

// Close flushes every queued line and closes the file. After Close the
// file holds exactly the lines written, each complete.
func (w *RecordWriter) Close() error { return w.lw.close() }

// AppendRecordLine appends the JSONL line (without its newline) for p.
// Hidden metrics and NO_INDIVIDUAL_RECORDS metrics are left out, and so are
// non-finite values. Fields AIPerf leaves out when unset are left out here
// too: request_ack_ns without response headers, cancellation_time_ns unless
// cancelled, error on success, the error code when there is none.
func AppendRecordLine(dst []byte, p *metrics.Processed, o LineOptions) []byte {
	return appendRecordLine(dst, p, o, nil)
}

// appendRecordLine is AppendRecordLine with the metrics' member names
// taken from members when it is not nil.
func appendRecordLine(dst []byte, p *metrics.Processed, o LineOptions, members *memberCache) []byte {
	w := jsonw{b: dst}
	w.open('{')
	w.rawKey(`"metadata":`)
	writeMetadata(&w, p.Record, p.ProcessorID, o)
	w.rawKey(`"metrics":`)
	w.open('{')
	for i, v := range p.Values {
		if m := members.at(i, v.Metric); m != nil && !v.Metric.List {
			// The common case from the cache: a scalar member whose
			// name and unit were quoted once for the run.
			if stats.Finite(v.Scalar) {
				w.sep()
				w.b = append(w.b, m.head...)
				w.b = appendRecordNumber(w.b, v.Metric, v.Scalar)
				w.b = append(w.b, m.tail...)
			}
			continue
		}
		writeRecordValue(&w, v)
	}
	w.close('}')
	if p.Record.Trace.Detail != nil {
		w.rawKey(`"trace_data":`)
		writeTraceData(&w, p.Record, o)
	}
	if e := p.Record.Error; e != nil {
		w.rawKey(`"error":`)
		writeErrorDetails(&w, e)
	}
	w.close('}')
	return w.b
}

// writeMetadata writes AIPerf 0.13's MetricRecordMetadata, in its key
// order. Timestamps are wall-clock epoch nanoseconds; credit_issued_ns is
// when the request was due.
func writeMetadata(w *jsonw, r *record.Record, processorID string, o LineOptions) {
	wall := func(d time.Duration) int64 { return o.Clock.WallNanos(d) }
	w.open('{')
	w.rawKey(`"session_num":`)
	w.int(int64(r.Seq))
	if r.XRequestID != "" {
		w.rawKey(`"x_request_id":`)
		w.str(r.XRequestID)
	}
	if r.XCorrelationID != "" {
		w.rawKey(`"x_correlation_id":`)
		w.str(r.XCorrelationID)
	}
	if r.ConversationID != "" {
		w.rawKey(`"conversation_id":`)
		w.str(r.ConversationID)
	}
	w.rawKey(`"turn_index":`)
	w.int(int64(r.TurnIndex))
	w.rawKey(`"credit_issued_ns":`)
	w.int(wall(r.Due))
	w.rawKey(`"request_start_ns":`)
	w.int(wall(r.Sent))
	if r.Ack != 0 {
		w.rawKey(`"request_ack_ns":`)
		w.int(wall(r.Ack))
	}
	w.rawKey(`"request_end_ns":`)
	w.int(wall(r.End))
	w.rawKey(`"worker_id":`)
	w.str(r.WorkerID)
	w.rawKey(`"record_processor_id":`)
	w.str(processorID)
	w.rawKey(`"benchmark_phase":`)
	w.str(r.Phase.String())
	phaseIndex, profilingIndex, name := 0, 0, r.Phase.String()
	if r.Phase == record.Profiling && o.WarmupFirst {
		phaseIndex = 1
	}
	if r.PhaseName != "" { // a named phase of a multi-phase run
		phaseIndex, profilingIndex, name = r.PhaseIndex, r.ProfilingIndex, r.PhaseName
	}
	w.rawKey(`"phase_index":`)
	w.int(int64(phaseIndex))
	if r.Phase == record.Profiling {
		w.rawKey(`"profiling_index":`)
		w.int(int64(profilingIndex))
	}
	w.rawKey(`"phase_name":`)
	w.str(name)
	w.rawKey(`"phase_kind":`)
	w.str(r.Phase.String())
	w.rawKey(`"was_cancelled":`)
	w.bool(r.Cancelled)
	if r.Cancelled {
		w.rawKey(`"cancellation_time_ns":`)
		w.int(wall(r.CancelledAt))
	}
	if r.StreamIncomplete {
		// Not an AIPerf key either; only on a flagged record.
		w.rawKey(`"stream_incomplete":`)
		w.bool(true)
	}
	if r.ConnectionRetries > 0 {
		// Not an AIPerf key: written only when a resend happened, so the
		// lines of an ordinary run keep AIPerf's shape.
		w.rawKey(`"connection_retries":`)
		w.int(int64(r.ConnectionRetries))
	}
	w.rawKey(`"context_overflow_skip":`)
	w.bool(false)
	w.rawKey(`"agent_depth":`)
	w.int(0)
	if r.XCorrelationID != "" {
		w.rawKey(`"root_correlation_id":`)
		w.str(r.XCorrelationID)
	}
	w.close('}')
}

// memberCache holds the quoted pieces of each metric's JSONL member by
// its position among a record's values. Records of a run carry the same
// metrics in the same (dependency) order, so a position nearly always
// holds the metric it held in the line before, and quoting and checking
// some thirty names and units per line becomes one pointer compare each.
// A position whose metric differs (a failed record's values) is quoted
// anew and replaces the entry.
type memberCache struct {
	byPos []member
}

// member is one metric's quoted pieces: head `"tag":{"value":`, tail
// `,"unit":"u"}`; skip marks a metric not written per record.
type member struct {
	m          *metrics.Metric
	head, tail []byte
	skip       bool
}

// at returns the pieces for metric m at position i, nil when c is nil or
// m is not written per record (writeRecordValue then decides).
func (c *memberCache) at(i int, m *metrics.Metric) *member {
	if c == nil || m == nil {
		return nil
	}
	for len(c.byPos) <= i {
		c.byPos = append(c.byPos, member{})
	}
	e := &c.byPos[i]
	if e.m != m {
		*e = member{m: m, skip: m.Hidden() || m.Flags&metrics.FlagNoIndividualRecord != 0}
		e.head = append(appendQuoted(nil, m.Tag), `:{"value":`...)
		e.tail = append(appendQuoted([]byte(`,"unit":`), unitOf(m)), '}')
	}
	if e.skip {
		return nil
	}
	return e
}

// writeRecordValue writes "tag": {"value": v, "unit": u} unless the metric
// is not exported per record or its value is not finite. A list keeps its
// finite elements.
func writeRecordValue(w *jsonw, v metrics.Value) {
	m := v.Metric
	if m == nil || m.Hidden() || m.Flags&metrics.FlagNoIndividualRecord != 0 {
		return
	}
	if !m.List && !stats.Finite(v.Scalar) {
		return
	}
	if !m.List {
		// The common case in one go: the member is complete and fixed in
		// shape, so only its comma needs jsonw's bookkeeping.
		w.sep()
		w.b = appendQuoted(w.b, m.Tag)
		w.b = append(w.b, `:{"value":`...)
		w.b = appendRecordNumber(w.b, m, v.Scalar)
		w.b = append(w.b, `,"unit":`...)
		w.b = appendQuoted(w.b, unitOf(m))
		w.b = append(w.b, '}')
		return
	}
	w.key(m.Tag)
	w.open('{')
	w.rawKey(`"value":`)
	w.open('[')
	for _, x := range v.List {
		if stats.Finite(x) {
			w.sep()
			w.b = appendRecordNumber(w.b, m, x)
		}
	}
	w.close(']')
	w.rawKey(`"unit":`)
	w.str(unitOf(m))
	w.close('}')
}

// maxExactInt is the largest magnitude below which every integer is exact
// in a float64.
const maxExactInt = 1 << 53

// appendRecordNumber writes an integer-typed metric's whole value as an int
// (AIPerf's "value":100 for token counts) and anything else as a float. A
// value converted to another display unit is a float in AIPerf (80.0 ms
// from integer nanoseconds), so only unconverted integer metrics qualify.
func appendRecordNumber(dst []byte, m *metrics.Metric, x float64) []byte {
	unconverted := m.DisplayUnit == "" || m.DisplayUnit == m.Unit
	if m.Integer && unconverted && x == math.Trunc(x) && math.Abs(x) < maxExactInt {
		return strconv.AppendInt(dst, int64(x), 10)
	}
	return appendJSONNumber(dst, x)
}

// writeErrorDetails writes {code, type, message}, leaving out a zero code
// and an empty type as AIPerf leaves out None.
func writeErrorDetails(w *jsonw, e *record.ErrorDetails) {
	w.open('{')
	if e.Code != 0 {
		w.rawKey(`"code":`)
		w.int(int64(e.Code))
	}
	if e.Type != "" {
		w.rawKey(`"type":`)
		w.str(e.Type)
	}
	w.rawKey(`"message":`)
	w.str(e.Message)
	w.close('}')
}
