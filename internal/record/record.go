// Package record holds the central value type of a benchmark: one Record per
// request sent, from the moment it was due until its response was read.
//
// It is a leaf package: every stage of the pipeline imports it and it imports
// nothing internal. Time fields are offsets from the run's clock start
// (internal/clock), measured on the monotonic clock; they are never wall time.
package record

import "time"

// Phase is the benchmark phase a request belongs to.
type Phase uint8

const (
	// Profiling requests are measured and exported.
	Profiling Phase = iota
	// Warmup requests prime the server and are excluded from every result.
	Warmup
)

// String returns AIPerf's phase name ("profiling" or "warmup").
func (p Phase) String() string {
	if p == Warmup {
		return "warmup"
	}
	return "profiling"
}

// Chunk is one response event as it came off the wire.
//
// For a streaming (SSE) response there is one Chunk per event, stamped when
// the first byte of the event became readable, and Data is the event's data
// field (data lines joined with '\n'). For a non-streaming response there is
// one Chunk holding the whole body, stamped when the body had been read
// completely.
type Chunk struct {
	At    time.Duration // first byte of the event (streaming) or end of body
	Event string        // SSE event type; empty for the default "message"
	Data  []byte        // owned by the record; never reused
}

// Record is one request: what was due, when it was sent, and what came back.
//
// Invariants once the worker hands it on: Due <= Sent is not guaranteed (a
// closed-loop credit may be issued after its slot freed, so Due == Sent within
// the client's own overhead); Sent <= Ack <= End when the request got headers;
// Chunks are in arrival order with non-decreasing At. A failed request is data
// here (Error), never a Go error.
type Record struct {
	// Identity.
	Seq   uint64 // index of the credit within its phase (AIPerf session_num for single-turn)
	Phase Phase
	// PhaseName, PhaseIndex and ProfilingIndex place the record in a
	// multi-phase run (a config file's named phases: its phase's name,
	// its position in the run, and for profiling phases its position among
	// them). PhaseName is "" in the usual warmup + profiling run, where the
	// phase's kind names it.
	PhaseName      string
	PhaseIndex     int
	ProfilingIndex int
	ConversationID string
	TurnIndex      int
	XRequestID     string
	XCorrelationID string
	WorkerID       string
	URLIndex       int
	Model          string

	// Timing: offsets from the run clock's start, monotonic.
	Due         time.Duration // when the schedule meant the request to be sent
	Sent        time.Duration // just before the request was handed to the transport
	Ack         time.Duration // response headers received; 0 when none arrived
	End         time.Duration // response fully read, or the failure observed
	CancelledAt time.Duration // when the client cancelled it; valid when Cancelled
	// Scheduled reports that Due is an absolute time from a replayed trace
	// (fixed schedule), so Sent - Due measures replay fidelity; false for
	// rate, closed-loop and delay-driven continuation turns.
	Scheduled bool

	// Outcome.
	Status    int  // HTTP status; 0 when no response arrived
	Streaming bool // the response was read as an SSE stream
	Chunks    []Chunk
	Error     *ErrorDetails // nil on success
	Cancelled bool          // the client cancelled the request (grace expiry, cancellation)
	// ConnectionRetries counts the resends of this request after the
	// connection it was written on turned out to have been closed by the
	// server before answering (a stale keep-alive connection). Timing
	// stays the first send's.
	ConnectionRetries int
	// StreamIncomplete reports a streamed response that ended without
	// [DONE] and without any chunk giving a finish_reason: a connection
	// cut short may look like a clean end. Set by the metrics processor.
	StreamIncomplete bool
	// ContentType is the response's Content-Type header ("" when none
	// arrived), for error messages.
	ContentType string
	// Trace is the transport's timeline of the request (connection,
	// sending, waiting, receiving), from which the http_req_* metrics
	// come; see HTTPTrace.
	Trace HTTPTrace
	// Server is the server's own account of the request's time (queue,
	// prefill, decode), when the server gave one: llama.cpp's timings,
	// TGI's headers or vLLM's trace span (ServerTiming.Source says which).
	// See Decompose.
	Server ServerTiming
	// SpecDecode is the request's speculative-decoding acceptance, when
	// the server reported one (ReadSpecDecode).
	SpecDecode SpecDecode

	// What was asked, copied from the dataset turn.
	InputTexts    []string // the prompt texts; ISL counts " ".join(InputTexts)
	InputTokens   int      // client-side token count of the prompt; -1 when unknown
	RequestedOSL  int      // max output tokens requested; 0 when not set
	RequestBytes  int      // size of the request body sent
	ResponseBytes int      // bytes of response body read
	// RequestBody is the body sent when it was built at run time (a later
	// turn carrying its conversation's history); nil when it was the
	// dataset's precomputed body.
	RequestBody []byte
	// CacheBustMarker is the cache-bust marker text injected into this
	// request and CacheBustTarget where (--cache-bust); "" when none.
	CacheBustMarker, CacheBustTarget string
	// RequestHeader holds the request's headers as sent, kept only for the
	// raw export (profile_export_raw.jsonl's request_headers); nil
	// otherwise.
	RequestHeader map[string][]string

	// Images is the number of image content parts in the request body
	// (AIPerf's media_counts.images, history included); AudioSeconds is the
	// duration of the turn's first audio clip (0 when none or unknown).
	Images       int
	AudioSeconds float64
}

// Latency is the request's wall time on the monotonic clock, End - Sent.
func (r *Record) Latency() time.Duration { return r.End - r.Sent }

// Lag is how late the request went out relative to its schedule, Sent - Due.
func (r *Record) Lag() time.Duration { return r.Sent - r.Due }

// Failed reports whether the request ended in an error.
func (r *Record) Failed() bool { return r.Error != nil }
