package transport

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// MaxSSELine is the longest SSE line the reader buffers. A longer line is a
// broken or hostile stream, not a response: Next stops with ErrSSELineTooLong
// rather than growing without bound. 64 MiB leaves room for base64 images
// sent as one data line.
const MaxSSELine = 64 << 20

// ErrSSELineTooLong is reported by SSEReader.Err when a line exceeds MaxSSELine.
var ErrSSELineTooLong = errors.New("sse: line too long")

const (
	// sseInitialBuffer holds several typical LLM chunks (~250 B each); it
	// grows for longer lines. Every stream in flight holds one, so it is
	// kept small: 100,000 streams hold 100 MB of them.
	sseInitialBuffer = 1 << 10
	sseMinRead       = 256 // compact or grow when less free space than this remains
	sseMaxEmptyReads = 100 // io.Reader returning (0, nil) this often is broken
)

// Event is one dispatched server-sent event.
//
// Data and Comment alias the reader's buffers: they are valid only until the
// next call to Next. Callers that keep them must copy.
type Event struct {
	// At is when the event's first byte became readable: the clock reading
	// taken right after the Read call that returned that byte. Reading later
	// (because earlier events were still being processed) does not move it.
	// Comment lines do not count: a keep-alive comment that precedes the
	// event's fields without a blank line does not backdate it.
	At time.Duration
	// Type is the event field's value; empty for the default "message"
	// type. Repeated types reuse one string, so typed streams do not
	// allocate per event.
	Type string
	// Data is the event's data lines joined with '\n'.
	Data []byte
	// Comment is the text of the event's first comment line (after ':' and
	// one optional space). AIPerf reports it as the message of an
	// `event: error` block, so it is kept even though WHATWG discards
	// comments.
	Comment []byte
}

// stamp records that the buffered bytes before end arrived at time at.
type stamp struct {
	end int
	at  time.Duration
}

// SSEReader parses a text/event-stream body incrementally, in the
// bufio.Scanner idiom: call Next until it returns false, then check Err.
//
// Parsing follows the WHATWG event-stream rules: lines end in LF, CR or
// CRLF; a leading UTF-8 BOM is dropped; "field: value" loses one leading
// space of its value; lines starting with ':' are comments; a line without
// a colon is a field with an empty value; data lines join with '\n'; the
// event field sets the type; a blank line dispatches the event. Two
// deliberate departures, both for parity with AIPerf 0.13:
//   - at EOF a pending event (and an unterminated last line) is still
//     dispatched, because some servers omit the final blank line;
//   - an event with no data lines is dispatched when it names a type, so
//     that `event: error` blocks whose message sits in a comment surface.
//     Events with neither data nor type are dropped.
//
// An SSEReader is not safe for concurrent use. Steady-state parsing does
// not allocate: buffers are reused across events and, through Reset, across
// streams.
type SSEReader struct {
	r   io.Reader
	clk *clock.Clock
	// arrival, when r decodes a compressed body, stamps bytes with the
	// arrival of the compressed bytes they came from.
	arrival arrivalStamper

	buf        []byte // unread bytes are buf[rpos:wpos]
	rpos, wpos int
	stamps     []stamp // arrival times of buf[:wpos], in increasing end order
	eof        bool
	err        error
	skipLF     bool // the last line ended in a lone CR at the buffer's end
	bomChecked bool

	// Current event under construction.
	started    bool
	at         time.Duration
	data       []byte
	hasData    bool
	typ        []byte
	comment    []byte
	hasComment bool
	stale      bool // the buffers above still back the last returned Event

	lastType string // interned Event.Type
	ev       Event
	done     bool
}

// NewSSEReader returns a reader that parses r and stamps events with clk.
func NewSSEReader(r io.Reader, clk *clock.Clock) *SSEReader {
	s := &SSEReader{clk: clk, buf: make([]byte, sseInitialBuffer)}
	s.Reset(r)
	return s
}

// Reset discards all state and reads a new stream from r, keeping the
// reader's buffers so that pooled readers do not reallocate.
//
// It is not inlined: its composite literal would otherwise sit in the
// frame of the caller, which stays on the stack of every stream in flight
// while it reads (see Client.readStream).
//
//go:noinline
func (s *SSEReader) Reset(r io.Reader) {
	*s = SSEReader{
		r:        r,
		clk:      s.clk,
		buf:      s.buf,
		stamps:   s.stamps[:0],
		data:     s.data[:0],
		typ:      s.typ[:0],
		comment:  s.comment[:0],
		lastType: s.lastType,
	}
	s.arrival, _ = r.(arrivalStamper)
}

// Event returns the event found by the last successful Next.
func (s *SSEReader) Event() Event { return s.ev }

// Err returns the first read or parse error, or nil when the stream ended
// with a clean EOF.
func (s *SSEReader) Err() error { return s.err }

// Next advances to the next event and reports whether there is one.
func (s *SSEReader) Next() bool {
	if s.done {
		return false
	}
	if s.stale {
		s.resetEvent()
	}
	for {
		line, ok := s.readLine()
		if !ok {
			s.done = true
			// A stream that broke off leaves its last event incomplete;
			// only a clean EOF dispatches what is pending.
			if s.err == nil && s.dispatchable() {
				s.dispatch()
				return true
			}
			return false
		}
		if len(line.text) == 0 {
			if s.dispatchable() {
				s.dispatch()
				return true
			}
			s.resetEvent()
			continue
		}
		if !s.started && line.text[0] != ':' {
			// Comments (keep-alives) do not start the clock: an event is
			// stamped by its first field line.
			s.started = true
			s.at = line.at
		}
		s.field(line.text)
	}
}

func (s *SSEReader) dispatchable() bool { return s.hasData || len(s.typ) > 0 }

func (s *SSEReader) dispatch() {
	s.ev = Event{At: s.at, Data: s.data, Type: s.internType()}
	if s.hasComment {
		s.ev.Comment = s.comment
	}
	s.stale = true
}

func (s *SSEReader) resetEvent() {
	s.started = false
	s.data = s.data[:0]
	s.hasData = false
	s.typ = s.typ[:0]
	s.comment = s.comment[:0]
	s.hasComment = false
	s.stale = false
}

func (s *SSEReader) internType() string {
	if len(s.typ) == 0 {
		return ""
	}
	if string(s.typ) != s.lastType {
		s.lastType = string(s.typ)
	}
	return s.lastType
}

// field applies one non-empty line to the event under construction.
func (s *SSEReader) field(line []byte) {
	colon := bytes.IndexByte(line, ':')
	if colon == 0 {
		if !s.hasComment {
			s.hasComment = true
			s.comment = append(s.comment[:0], trimOneSpace(line[1:])...)
		}
		return
	}
	name, value := line, []byte(nil)
	if colon > 0 {
		name, value = line[:colon], trimOneSpace(line[colon+1:])
	}
	switch string(name) {
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.hasData = true
		s.data = append(s.data, value...)
	case "event":
		s.typ = append(s.typ[:0], value...)
	}
	// id and retry only matter to reconnecting EventSource clients; an
	// OpenAI stream is one POST and one response. Unknown fields are
	// ignored, as WHATWG requires.
}

func trimOneSpace(b []byte) []byte {
	if len(b) > 0 && b[0] == ' ' {
		return b[1:]
	}
	return b
}

// line is one line without its terminator, and the arrival time of its
// first byte. text aliases the buffer until the next readLine.
type line struct {
	text []byte
	at   time.Duration
}

// readLine returns the next line. At EOF an unterminated final line is
// returned as a line; after that, or on error, ok is false.
func (s *SSEReader) readLine() (l line, ok bool) {
	scanned := 0 // bytes of buf[rpos:] already searched for a terminator
	for {
		if s.rpos < s.wpos {
			if s.skipLF {
				s.skipLF = false
				if s.buf[s.rpos] == '\n' {
					s.rpos++
					continue
				}
			}
			if !s.bomChecked && !s.checkBOM() {
				if !s.fill() {
					return s.tail()
				}
				continue
			}
			unread := s.buf[s.rpos:s.wpos]
			if i := bytes.IndexAny(unread[scanned:], "\r\n"); i >= 0 {
				i += scanned
				l = line{text: unread[:i:i], at: s.stampAt(s.rpos)}
				s.rpos += i + 1
				if unread[i] == '\r' {
					if s.rpos < s.wpos {
						if s.buf[s.rpos] == '\n' {
							s.rpos++
						}
					} else {
						// Do not wait for the next byte: dispatching must
						// not depend on the server's following write.
						s.skipLF = true
					}
				}
				return l, true
			}
			scanned = len(unread)
		}
		if !s.fill() {
			return s.tail()
		}
	}
}

// checkBOM drops a leading UTF-8 byte order mark. It reports false when the
// buffered bytes are a proper prefix of a BOM and more are needed to decide.
func (s *SSEReader) checkBOM() bool {
	const bom = "\xef\xbb\xbf"
	unread := s.buf[s.rpos:s.wpos]
	if len(unread) < len(bom) && !s.eof && bytes.HasPrefix([]byte(bom), unread) {
		return false
	}
	s.bomChecked = true
	if bytes.HasPrefix(unread, []byte(bom)) {
		s.rpos += len(bom)
	}
	return true
}

// tail returns the unterminated remainder at a clean EOF as a final line.
func (s *SSEReader) tail() (line, bool) {
	if s.err != nil || s.rpos == s.wpos {
		return line{}, false
	}
	unread := s.buf[s.rpos:s.wpos]
	l := line{text: unread[:len(unread):len(unread)], at: s.stampAt(s.rpos)}
	s.rpos = s.wpos
	return l, true
}

// stampAt returns the arrival time of the buffered byte at pos, dropping
// stamps of bytes already consumed.
func (s *SSEReader) stampAt(pos int) time.Duration {
	drop := 0
	for drop < len(s.stamps)-1 && s.stamps[drop].end <= pos {
		drop++
	}
	if drop > 0 {
		s.stamps = append(s.stamps[:0], s.stamps[drop:]...)
	}
	return s.stamps[0].at
}

// fill reads more bytes into the buffer, compacting or growing it first
// when little room is left. It reports false at EOF or on error.
func (s *SSEReader) fill() bool {
	if s.eof || s.err != nil {
		return false
	}
	if s.rpos == s.wpos {
		s.rpos, s.wpos = 0, 0
		s.stamps = s.stamps[:0]
	}
	if len(s.buf)-s.wpos < sseMinRead {
		if s.rpos > 0 {
			n := copy(s.buf, s.buf[s.rpos:s.wpos])
			for i := range s.stamps {
				s.stamps[i].end -= s.rpos
			}
			s.dropConsumedStamps()
			s.rpos, s.wpos = 0, n
		}
		if len(s.buf)-s.wpos < sseMinRead {
			if len(s.buf) >= MaxSSELine {
				s.err = ErrSSELineTooLong
				return false
			}
			grown := make([]byte, min(max(2*len(s.buf), sseInitialBuffer), MaxSSELine+sseMinRead))
			copy(grown, s.buf[:s.wpos])
			s.buf = grown
		}
	}
	for range sseMaxEmptyReads {
		n, err := s.r.Read(s.buf[s.wpos:])
		if n > 0 {
			s.wpos += n
			at := s.clk.Now()
			if s.arrival != nil {
				at = s.arrival.arrival()
			}
			s.stamps = append(s.stamps, stamp{end: s.wpos, at: at})
		}
		if err != nil {
			if err == io.EOF {
				s.eof = true
			} else {
				s.err = err
			}
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.err = io.ErrNoProgress
	return false
}

func (s *SSEReader) dropConsumedStamps() {
	keep := s.stamps[:0]
	for _, st := range s.stamps {
		if st.end > 0 {
			keep = append(keep, st)
		}
	}
	s.stamps = keep
}
