package transport

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// readPlainHead parses a response head that is plain, the shape of nearly
// every non-streamed inference answer: HTTP/1.1, a final status that has a
// body (not 1xx, 204 or 304), one Content-Length, no Transfer-Encoding,
// Trailer or "Connection: close", printable ASCII only, and the whole head
// already in br's buffer. It reads it with one allocation for the head's
// text and one for the header's values, and the body needs no reader of
// its own (see leanBody.remaining). For anything else it returns ok false
// and leaves br untouched, and the caller reads the response with
// http.ReadResponse, so every other shape is read exactly as net/http
// reads it (FuzzLeanResponse compares the two on any bytes).
func readPlainHead(br *bufio.Reader) (resp *http.Response, ok bool) {
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 || !plainASCII(buf[:end+2]) {
		return nil, false
	}
	head := string(buf[:end+2]) // every line with its CRLF
	line, rest, _ := strings.Cut(head, "\r\n")
	status, code, ok := plainStatus(line)
	if !ok {
		return nil, false
	}
	h, size, ok := plainHeader(rest)
	if !ok {
		return nil, false
	}
	if _, err := br.Discard(end + 4); err != nil {
		return nil, false
	}
	return &http.Response{
		Status: status, StatusCode: code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, ContentLength: size,
	}, true
}

// plainASCII reports whether raw holds only printable ASCII, tab, CR and LF.
func plainASCII(raw []byte) bool {
	for _, c := range raw {
		if (c < ' ' && c != '\r' && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// plainStatus reads an HTTP/1.1 status line whose final status has a body
// (not 1xx, 204 or 304).
func plainStatus(line string) (status string, code int, ok bool) {
	status, found := strings.CutPrefix(line, "HTTP/1.1 ")
	if !found || strings.ContainsAny(status, "\r\n") {
		// Not HTTP/1.1, or a bare CR or LF, where net/http's line reader
		// would end the status line and read the rest differently.
		return "", 0, false
	}
	status = strings.TrimLeft(status, " ")
	code, ok = statusCode(status)
	if !ok || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		return "", 0, false
	}
	return status, code, true
}

// plainHeader reads the header lines of a plain head (each ending in CRLF):
// exactly one valid Content-Length, no Transfer-Encoding or Trailer, no
// Connection other than keep-alive, no folding and no bare CR or LF. All
// values share one backing slice, so the header costs two allocations.
func plainHeader(rest string) (h http.Header, size int64, ok bool) {
	lines := strings.Count(rest, "\r\n")
	h = make(http.Header, lines)
	values := make([]string, 0, lines)
	size = -1
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\r\n")
		k, v, ok := plainHeaderLine(line)
		if !ok {
			return nil, 0, false
		}
		switch k {
		case "Transfer-Encoding", "Trailer":
			return nil, 0, false
		case "Connection":
			if !strings.EqualFold(v, "keep-alive") {
				return nil, 0, false
			}
		case "Content-Length":
			n, ok := parseLength(v)
			if !ok || size >= 0 {
				return nil, 0, false // malformed, or more than one
			}
			size = n
		}
		values = append(values, v)
		if vs, dup := h[k]; dup {
			h[k] = append(vs, v)
		} else {
			h[k] = values[len(values)-1 : len(values) : len(values)]
		}
	}
	return h, size, size >= 0
}

// plainHeaderLine splits one header line into its canonical key and trimmed
// value; ok is false for obsolete line folding, a bare CR or LF, a line
// without a colon or an invalid field name.
func plainHeaderLine(line string) (k, v string, ok bool) {
	if line == "" || line[0] == ' ' || line[0] == '\t' || strings.IndexByte(line, '\r') >= 0 || strings.IndexByte(line, '\n') >= 0 {
		return "", "", false
	}
	k, v, found := strings.Cut(line, ":")
	if !found || !httpguts.ValidHeaderFieldName(k) {
		return "", "", false
	}
	return textproto.CanonicalMIMEHeaderKey(k), textproto.TrimString(v), true
}

// statusCode is the three-digit code that starts a status ("200 OK").
func statusCode(status string) (int, bool) {
	if len(status) < 3 || (len(status) > 3 && status[3] != ' ') {
		return 0, false
	}
	code := 0
	for _, c := range []byte(status[:3]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		code = code*10 + int(c-'0')
	}
	return code, code >= 100
}

// parseLength is a Content-Length value: decimal digits only, as net/http
// accepts them.
func parseLength(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// readRemaining reads a Content-Length body from br: at most remaining
// bytes, then io.EOF; a connection that ends before is
// io.ErrUnexpectedEOF, as net/http reports it.
func readRemaining(br *bufio.Reader, remaining *int64, p []byte) (int, error) {
	if *remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > *remaining {
		p = p[:*remaining]
	}
	n, err := br.Read(p)
	*remaining -= int64(n)
	if *remaining == 0 {
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// badAnswer is a response whose status line was read but whose head or
// framing was not valid HTTP (a malformed header, a duplicate or invalid
// Content-Length, a head past the limit): Do records the status on the
// record and its error, with err's text as the message.
type badAnswer struct {
	status int
	err    error
}

func (e *badAnswer) Error() string { return e.err.Error() }
func (e *badAnswer) Unwrap() error { return e.err }

// maxStatusLine bounds the status line bufferedStatus looks for.
const maxStatusLine = 1 << 10

// bufferedStatus is the status code of the response head that starts
// br's buffer ("HTTP/x.y NNN", as http.ReadResponse accepts it), or 0
// when the buffer holds no whole status line, or a malformed one. It
// reads nothing from the connection and allocates nothing: it runs before
// every head that readPlainHead does not take (every streamed response).
func bufferedStatus(br *bufio.Reader) int {
	buf, _ := br.Peek(min(br.Buffered(), maxStatusLine))
	end := bytes.IndexByte(buf, '\n')
	if end < 0 {
		return 0
	}
	line := bytes.TrimSuffix(buf[:end], []byte("\r"))
	if len(line) < len("HTTP/1.1 ") || string(line[:5]) != "HTTP/" || !isDigit(line[5]) || line[6] != '.' || !isDigit(line[7]) || line[8] != ' ' {
		return 0
	}
	status := bytes.TrimLeft(line[9:], " ")
	if len(status) < 3 || (len(status) > 3 && status[3] != ' ') || !isDigit(status[0]) || !isDigit(status[1]) || !isDigit(status[2]) {
		return 0
	}
	code := int(status[0]-'0')*100 + int(status[1]-'0')*10 + int(status[2]-'0')
	if code < 100 {
		return 0
	}
	return code
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// headerValue is h.Get(key) for a key given in canonical form: both
// response parsers store every key canonicalised, so a plain map index
// finds what Get finds, without canonicalising the constant key again on
// every request.
func headerValue(h http.Header, canonicalKey string) string {
	if v := h[canonicalKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}
