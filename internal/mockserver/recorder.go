package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// recorderQueue is how many encoded lines may wait for the writer goroutine
// before handlers block. Handlers never drop a line: the file is ground
// truth, so a full queue slows the server rather than losing a request.
const recorderQueue = 8192

// Recorder writes the server-side ground truth of every request it sees:
// one JSON line per request (see RecordedRequest for the fields) to an
// io.Writer, from one writer goroutine, so that a benchmark client's own
// timestamps can be checked against when the server really received the
// request and really wrote each chunk.
//
// Timestamps are wall-clock Unix nanoseconds (time.Now().UnixNano() at the
// moment of the event), the same clock the client's profile_export.jsonl
// uses, so that both files can be joined on one machine without an offset.
//
// Use Wrap to put it in front of a handler and Close to flush. Lines are in
// the order requests finished. A Recorder is safe for concurrent use.
type Recorder struct {
	mu     sync.RWMutex // guards closed against sends racing Close
	closed bool
	lines  chan []byte
	done   chan struct{} // closed when the writer goroutine has returned
	w      *bufio.Writer
	err    error // first write error, read after done
}

// NewRecorder starts a Recorder writing to w. The caller keeps ownership of
// w (Close flushes but does not close it).
func NewRecorder(w io.Writer) *Recorder {
	r := &Recorder{
		lines: make(chan []byte, recorderQueue),
		done:  make(chan struct{}),
		w:     bufio.NewWriterSize(w, 256<<10),
	}
	go r.run()
	return r
}

// run is the writer goroutine: it writes lines until Close, remembering the
// first error and discarding lines after it.
func (r *Recorder) run() {
	defer close(r.done)
	for line := range r.lines {
		if r.err == nil {
			_, r.err = r.w.Write(line)
		}
	}
	if r.err == nil {
		r.err = r.w.Flush()
	}
}

// Close stops accepting lines, writes every queued line, flushes, and
// returns the first write error. Requests that finish after Close are not
// recorded. Idempotent.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.lines)
	}
	r.mu.Unlock()
	<-r.done
	if r.err != nil {
		return fmt.Errorf("mock server: request record: %w", r.err)
	}
	return nil
}

// send queues one line; after Close it drops it.
func (r *Recorder) send(line []byte) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if !r.closed {
		r.lines <- line
	}
}

// Wrap returns a handler that serves h and records each request.
func (r *Recorder) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rw := &recordingWriter{w: w, received: time.Now().UnixNano()}
		var body *bodyCapture
		if req.Body != nil && req.Body != http.NoBody {
			body = &bodyCapture{rc: req.Body}
			req.Body = body
		}
		h.ServeHTTP(rw, req)
		rw.finish()
		var raw []byte
		if body != nil {
			raw = body.buf
		}
		r.send(appendRecordedLine(nil, req, raw, rw))
	})
}

// Chunk kinds: what one flushed write carried. The kinds of a streamed
// chat response are role, token..., finish, [usage], done; a completions
// stream has no role chunk; a non-streaming answer is one body chunk.
const (
	chunkRole   = "role"   // chat's first chunk, the assistant role only
	chunkToken  = "token"  // content tokens (what TTFT and ICL count)
	chunkFinish = "finish" // the chunk carrying finish_reason
	chunkUsage  = "usage"  // the usage chunk (stream_options.include_usage)
	chunkDone   = "done"   // data: [DONE]
	chunkBody   = "body"   // a whole non-streamed body, or anything else
)

// chunkKind classifies the bytes of one write by the mock's own SSE layout
// (stream.go's constants), so the ground-truth tool can tell the content
// chunks a client times from the framing around them.
func chunkKind(b []byte) string {
	switch {
	case !bytes.HasPrefix(b, []byte("data: ")):
		return chunkBody
	case bytes.Equal(b, []byte(sseDone)):
		return chunkDone
	case bytes.Contains(b, []byte(`"choices":[],"usage":`)):
		return chunkUsage
	case bytes.Contains(b, []byte(chatRoleChoice)):
		return chunkRole
	case bytes.Contains(b, []byte(`"finish_reason":"`)):
		return chunkFinish
	case bytes.Contains(b, []byte(chatTokenPrefix)), bytes.Contains(b, []byte(textTokenPrefix)):
		return chunkToken
	case bytes.Contains(b, []byte(chatReasoningPrefix)):
		return ChunkReasoning
	case bytes.Contains(b, []byte(chatToolPrefix)):
		return ChunkTool
	}
	return chunkBody
}

// recordedChunk is one flushed write.
type recordedChunk struct {
	write int64 // wall-clock ns when the handler began writing it
	ns    int64 // wall-clock ns right after the flush returned
	bytes int
	kind  string
}

// recordingWriter stamps the moments a response reaches the connection. A
// chunk is stamped when the handler starts writing it and again when it is
// flushed (the bytes are then in the kernel); whatever is still buffered
// when the handler returns is flushed and stamped by finish.
type recordingWriter struct {
	w        http.ResponseWriter
	received int64 // handler entry
	headers  int64 // first flush after the header was written; 0 if none
	end      int64 // after the handler returned and the rest was flushed
	status   int   // 0 until WriteHeader or the first Write
	pending  int   // bytes written since the last flush
	writeNs  int64 // when the first of the pending bytes was written
	kind     string
	chunks   []recordedChunk
	written  int // total response body bytes
}

var _ http.ResponseWriter = (*recordingWriter)(nil)

// Header returns the wrapped writer's header map.
func (w *recordingWriter) Header() http.Header { return w.w.Header() }

// WriteHeader records the status and passes it on.
func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.w.WriteHeader(code)
}

// Write classifies the first write since the last flush and passes b on.
func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.pending == 0 {
		w.writeNs = time.Now().UnixNano()
		w.kind = chunkKind(b)
	}
	n, err := w.w.Write(b)
	w.pending += n
	w.written += n
	return n, err
}

// FlushError flushes the wrapped writer and stamps what it carried.
// http.ResponseController prefers this method, so the mock's SSE writer
// reaches it.
func (w *recordingWriter) FlushError() error {
	err := http.NewResponseController(w.w).Flush()
	w.stamp(time.Now().UnixNano())
	return err
}

// Flush implements http.Flusher for handlers that type-assert it.
func (w *recordingWriter) Flush() { _ = w.FlushError() }

// Hijack passes through to the wrapped writer, so fault injection that
// takes over the connection still works behind a Recorder.
func (w *recordingWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.w).Hijack()
}

// Unwrap gives http.ResponseController the wrapped writer for the
// features this type does not implement (deadlines, full duplex).
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.w }

// stamp records a flush at ns: the header time if it is the first one,
// and a chunk if bytes were pending.
func (w *recordingWriter) stamp(ns int64) {
	if w.headers == 0 && w.status != 0 {
		w.headers = ns
	}
	if w.pending > 0 {
		w.chunks = append(w.chunks, recordedChunk{write: w.writeNs, ns: ns, bytes: w.pending, kind: w.kind})
		w.pending = 0
	}
}

// finish flushes what the handler left buffered (a non-streamed body) and
// stamps the end. A handler that hijacked the connection leaves nothing to
// flush; the error is then ignored.
func (w *recordingWriter) finish() {
	if w.pending > 0 || w.headers == 0 {
		_ = http.NewResponseController(w.w).Flush()
	}
	w.end = time.Now().UnixNano()
	w.stamp(w.end)
}

// bodyCapture keeps a copy of the request body as the handler reads it, so
// recording costs no second read and the handler sees the body unchanged.
type bodyCapture struct {
	rc  io.ReadCloser
	buf []byte
}

// Read reads from the body and keeps what it read (up to maxBodyBytes).
func (b *bodyCapture) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 && len(b.buf) < maxBodyBytes {
		b.buf = append(b.buf, p[:min(n, maxBodyBytes-len(b.buf))]...)
	}
	return n, err
}

// Close closes the body.
func (b *bodyCapture) Close() error { return b.rc.Close() }

// redacted replaces credential-like header values in the record.
const redacted = "[REDACTED]"

// sensitiveHeader reports whether a header may carry a credential: the
// authorization and cookie headers and any name mentioning a key, token,
// secret, password or auth.
func sensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	for _, s := range []string{"key", "token", "secret", "password", "auth"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// redact returns the recorded form of a sensitive header value: the
// authentication scheme is kept ("Bearer [REDACTED]") so a test can still
// check which scheme a client used; everything else is replaced.
func redact(name, value string) string {
	if strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization") {
		if scheme, _, ok := strings.Cut(value, " "); ok && scheme != "" {
			return scheme + " " + redacted
		}
	}
	return redacted
}

// RecordedRequest is the schema of one line of a request record, for
// readers (tests, the ground-truth tool). All times are wall-clock Unix
// nanoseconds.
type RecordedRequest struct {
	RecordedHead
	// Body is the request body when it is JSON (byte for byte unless it
	// spanned lines, then compacted); BodyText holds any other body.
	// BodyBytes is the size received, before any compaction.
	Body      json.RawMessage `json:"body,omitempty"`
	BodyText  *string         `json:"body_text,omitempty"`
	BodyBytes int             `json:"body_bytes"`
	// Status is the HTTP status answered (0 when the handler wrote none).
	Status int `json:"status"`
	// ReceivedNs is handler entry; HeadersNs the first flush after the
	// response header was written (0 when nothing was written); EndNs
	// after the handler returned and its output was flushed.
	ReceivedNs int64 `json:"received_ns"`
	HeadersNs  int64 `json:"headers_ns"`
	// Chunks are the flushed writes in order: a streamed response has one
	// per SSE event, a non-streamed one a single "body" chunk.
	Chunks        []RecordedChunk `json:"chunks"`
	EndNs         int64           `json:"end_ns"`
	ResponseBytes int             `json:"response_bytes"`
}

// RecordedChunk is one flushed write of a response.
type RecordedChunk struct {
	// WriteNs is when the handler began writing the chunk, Ns when the
	// flush returned (the bytes were in the kernel). A client cannot see
	// the chunk before WriteNs; it may see it before Ns when the server
	// goroutine is descheduled between its write and the timestamp.
	WriteNs int64 `json:"write_ns"`
	Ns      int64 `json:"ns"`
	Bytes   int   `json:"bytes"`
	// Kind is role, token, reasoning, tool, finish, usage, done or body.
	Kind string `json:"kind"`
}

// appendRecordedLine appends the JSON line of one request, newline
// included. It is written by hand so the body keeps its exact bytes.
func appendRecordedLine(dst []byte, req *http.Request, body []byte, w *recordingWriter) []byte {
	hdr := make(http.Header, len(req.Header))
	for name, vals := range req.Header {
		out := make([]string, len(vals))
		for i, v := range vals {
			if sensitiveHeader(name) {
				v = redact(name, v)
			}
			out[i] = v
		}
		hdr[name] = out
	}
	line := RecordedHead{
		RequestID:     req.Header.Get("X-Request-ID"),
		CorrelationID: req.Header.Get("X-Correlation-ID"),
		Method:        req.Method,
		Path:          req.URL.Path,
		Query:         req.URL.RawQuery,
		Host:          req.Host,
		Proto:         req.Proto,
		Remote:        req.RemoteAddr,
		Headers:       hdr,
	}
	head, _ := json.Marshal(line) // strings and string maps always marshal
	dst = append(dst, head[:len(head)-1]...)
	bodyBytes := len(body)
	switch {
	case len(body) == 0:
	case json.Valid(body):
		dst = append(dst, `,"body":`...)
		if bytes.ContainsAny(body, "\r\n") {
			var c bytes.Buffer
			_ = json.Compact(&c, body) // valid JSON always compacts
			body = c.Bytes()
		}
		dst = append(dst, body...)
	default:
		t, _ := json.Marshal(string(body))
		dst = append(dst, `,"body_text":`...)
		dst = append(dst, t...)
	}
	dst = appendIntField(dst, "body_bytes", int64(bodyBytes))
	dst = appendIntField(dst, "status", int64(w.status))
	dst = appendIntField(dst, "received_ns", w.received)
	dst = appendIntField(dst, "headers_ns", w.headers)
	dst = append(dst, `,"chunks":[`...)
	for i, c := range w.chunks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"write_ns":`...)
		dst = strconv.AppendInt(dst, c.write, 10)
		dst = appendIntField(dst, "ns", c.ns)
		dst = appendIntField(dst, "bytes", int64(c.bytes))
		dst = append(dst, `,"kind":"`...)
		dst = append(dst, c.kind...)
		dst = append(dst, `"}`...)
	}
	dst = append(dst, ']')
	dst = appendIntField(dst, "end_ns", w.end)
	dst = appendIntField(dst, "response_bytes", int64(w.written))
	return append(dst, "}\n"...)
}

// RecordedHead is who sent a recorded request and what it asked for: the
// leading part of each line, which the recorder marshals with
// encoding/json (the rest, body and timings, it writes by hand to keep the
// body's bytes).
type RecordedHead struct {
	// RequestID and CorrelationID are the X-Request-ID and
	// X-Correlation-ID headers ("" when absent).
	RequestID     string `json:"request_id"`
	CorrelationID string `json:"correlation_id"`
	Method        string `json:"method"`
	// Path is the URL path; Query the raw query string.
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	Host   string `json:"host"`
	Proto  string `json:"proto"`
	Remote string `json:"remote"`
	// Headers are the request headers, credential-like values redacted.
	Headers http.Header `json:"headers"`
}

// appendIntField appends ,"key":v.
func appendIntField(dst []byte, key string, v int64) []byte {
	dst = append(dst, `,"`...)
	dst = append(dst, key...)
	dst = append(dst, `":`...)
	return strconv.AppendInt(dst, v, 10)
}

// recordFile is a Recorder writing to a file it owns (--record-requests).
type recordFile struct {
	*Recorder
	f *os.File
}

// createRecordFile creates (truncating) path and records into it.
func createRecordFile(path string) (*recordFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("mock server: --record-requests: %w", err)
	}
	return &recordFile{NewRecorder(f), f}, nil
}

// close flushes the record and closes the file; nil-safe, so Running can
// call it whether or not recording was asked for.
func (r *recordFile) close() error {
	if r == nil {
		return nil
	}
	err := r.Recorder.Close()
	if cerr := r.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("mock server: --record-requests: %w", cerr)
	}
	return err
}

// registerRecordFlag binds --record-requests (see Config.RecordRequests).
func (c *Config) registerRecordFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.RecordRequests, "record-requests", c.RecordRequests,
		"write one JSON line per request to this file: ids, headers (credentials redacted), body, and the server's wall-clock ns at receipt, headers, each chunk and end (ground truth for client timing)")
}
