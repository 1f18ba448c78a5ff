package transport

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Content codings a response body may carry. The client never asks for
// one (it sends no Accept-Encoding unless the user's --header does), but
// a server or gateway may compress anyway, and AIPerf's aiohttp decodes
// what it gets.
const supportedEncodings = "gzip, deflate, br, zstd"

// contentCodings parses a Content-Encoding value into the codings to
// undo, last applied first; identity is dropped. An unknown coding is an
// error naming it.
func contentCodings(header string) ([]string, error) {
	var out []string
	for _, c := range strings.Split(header, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		switch c {
		case "", "identity":
			continue
		case "x-gzip":
			c = "gzip"
		case "gzip", "deflate", "br", "zstd":
		default:
			return nil, fmt.Errorf("the response's Content-Encoding %q is not supported (%s are); drop Accept-Encoding from --header, or ask the server not to compress", c, supportedEncodings)
		}
		out = append([]string{c}, out...)
	}
	return out, nil
}

// decodedBody reads a compressed body through its decoders, built on the
// first Read (a gzip reader reads its header when built: building it
// when the response arrives would wait for body bytes there). Its
// arrival is the time the last compressed bytes came off the connection,
// the time SSE events and the body's end are stamped with, so that
// decoding never shows in a latency.
type decodedBody struct {
	src       io.Reader // the connection's (traced) body
	codings   []string
	r         io.Reader // the decoded stream, once built
	closers   []func()
	err       error
	arrivedAt func() time.Duration
}

func (d *decodedBody) Read(p []byte) (int, error) {
	if d.r == nil && d.err == nil {
		d.r, d.err = d.build()
	}
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decoding the %s response body: %w", strings.Join(d.codings, "+"), err)
	}
	return n, err
}

func (d *decodedBody) arrival() time.Duration { return d.arrivedAt() }

// close releases the decoders (zstd's holds buffers until closed).
func (d *decodedBody) close() {
	for _, c := range d.closers {
		c()
	}
	d.closers = nil
}

func (d *decodedBody) build() (io.Reader, error) {
	r := d.src
	for _, c := range d.codings {
		var err error
		switch c {
		case "gzip":
			var z *gzip.Reader
			if z, err = gzip.NewReader(r); err == nil {
				r = z
			}
		case "deflate":
			r, err = deflateReader(r)
		case "br":
			r = brotli.NewReader(r)
		case "zstd":
			var z *zstd.Decoder
			if z, err = zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)); err == nil {
				d.closers = append(d.closers, z.Close)
				r = z
			}
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF // an empty body cannot be a valid stream
			}
			return nil, fmt.Errorf("decoding the %s response body: %w", c, err)
		}
	}
	return r, nil
}

// deflateReader reads HTTP's "deflate", which RFC 9110 defines as zlib
// but which some servers send as a raw deflate stream: a zlib header
// (compression method 8, header checksum a multiple of 31) tells them
// apart.
func deflateReader(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	if h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// arrivalStamper is a reader whose bytes are stamped with the time they
// arrived rather than the time they were read (decodedBody).
type arrivalStamper interface{ arrival() time.Duration }

// decoded is body as Do reads it: decoded when the response carries a
// Content-Encoding, else body itself. An encoding the client cannot
// decode is an error for a 2xx answer; an error status keeps its raw
// body (its status is the record's news).
func decoded(resp *http.Response, body io.Reader, rec *record.Record) (io.Reader, error) {
	ce := headerValue(resp.Header, "Content-Encoding")
	if ce == "" {
		return body, nil
	}
	codings, err := contentCodings(ce)
	if err != nil {
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return body, nil
		}
		return nil, err
	}
	if len(codings) == 0 {
		return body, nil
	}
	return &decodedBody{src: body, codings: codings, arrivedAt: func() time.Duration { return rec.Trace.BodyEnd }}, nil
}
