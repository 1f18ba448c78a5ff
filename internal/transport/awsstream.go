package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/eventstream"
	"github.com/aiperf-go/aiperf/internal/record"
)

// SigningErrorType is the error type of a request that could not be
// signed (Options.Sign failed: no credentials, a failed refresh).
const SigningErrorType = "SigningError"

// signed is req with a copy of its headers signed by c.sign: Do must
// not modify the caller's.
func (c *Client) signed(req *Request) (*Request, error) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	h := req.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	if err := c.sign(method, req.URL, h, req.Body); err != nil {
		return nil, err
	}
	r := *req
	r.Header = h
	return &r, nil
}

// isAWSEventStream reports whether a Content-Type names AWS's binary
// event stream (SageMaker's streamed responses).
func isAWSEventStream(ct string) bool {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.EqualFold(strings.TrimSpace(ct), eventstream.ContentType)
}

// awsReadSize is the read buffer of an event stream body.
const awsReadSize = 32 << 10

// readAWSEventStream reads an AWS event stream body, one Chunk per line
// of the response its PayloadParts carry (eventstream.Lines). Every line
// completed by one network read is stamped with that read's time, as
// readStream stamps SSE events: lines that arrived together did arrive
// together, and stamping them as they are decoded would add decoding
// time to the inter-token latencies. Nothing after a [DONE] line counts;
// an error or exception message fails the request with AWS's label as
// its type.
func (c *Client) readAWSEventStream(ctx, reqCtx context.Context, clk *clock.Clock, rec *record.Record, body io.Reader, onChunk func([]byte)) {
	var (
		lines eventstream.Lines
		arena []byte
		at    time.Duration
		done  bool
	)
	first := len(rec.Chunks)
	emit := func(line []byte) {
		if done {
			return
		}
		if cap(arena)-len(arena) < len(line) {
			arena = growArena(arena, len(line), rec.Chunks[first:])
		}
		done = bytes.Equal(line, []byte("[DONE]"))
		start := len(arena)
		arena = append(arena, line...)
		data := arena[start:len(arena):len(arena)]
		rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Data: data})
		if onChunk != nil {
			onChunk(data)
		}
	}
	buf := make([]byte, awsReadSize)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			at = clk.Now()
			if ferr := lines.Feed(buf[:n], emit); ferr != nil {
				rec.End = clk.Now()
				rec.Error = awsStreamError(ferr)
				return
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			c.fail(ctx, reqCtx, clk, rec, err, record.TypeStream)
			return
		}
	}
	at = clk.Now()
	if err := lines.Close(emit); err != nil {
		rec.End = clk.Now()
		rec.Error = awsStreamError(err)
		return
	}
	rec.End = clk.Now()
}

// awsStreamError is the record error of a failed event stream: AWS's
// label (ModelStreamError, ...) or botocore's name of a framing error
// (ChecksumMismatch, ...) as the type, as AIPerf reports them.
func awsStreamError(err error) *record.ErrorDetails {
	var se *eventstream.StreamError
	if errors.As(err, &se) {
		return &record.ErrorDetails{Type: se.Type, Message: se.Message}
	}
	var fe *eventstream.FrameError
	if errors.As(err, &fe) {
		return &record.ErrorDetails{Type: fe.Kind, Message: fe.Error()}
	}
	return &record.ErrorDetails{Type: record.TypeStream, Message: err.Error()}
}
