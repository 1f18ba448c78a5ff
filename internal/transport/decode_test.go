package transport

import (
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// flushWriter is a compressor that can push what it holds to the wire.
type flushWriter interface {
	io.WriteCloser
	Flush() error
}

// compressors are the codings a test server may apply, by their
// Content-Encoding name.
var compressors = map[string]func(io.Writer) flushWriter{
	"gzip":         func(w io.Writer) flushWriter { return gzip.NewWriter(w) },
	"deflate":      func(w io.Writer) flushWriter { return zlib.NewWriter(w) },
	"deflate(raw)": func(w io.Writer) flushWriter { z, _ := flate.NewWriter(w, flate.DefaultCompression); return z },
	"br":           func(w io.Writer) flushWriter { return brotli.NewWriter(w) },
	"zstd":         func(w io.Writer) flushWriter { z, _ := zstd.NewWriter(w); return z },
}

// compressingServer answers JSON or, when the request asks for it, SSE
// compressed with coding, each event flushed on its own; it records the
// Accept-Encoding it was sent.
func compressingServer(t *testing.T, coding string, accept *sync2) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept.add(r.Header.Get("Accept-Encoding"))
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Encoding", strings.TrimSuffix(coding, "(raw)"))
		stream := strings.Contains(string(body), `"stream":true`)
		if stream {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		z := compressors[coding](w)
		if !stream {
			_, _ = z.Write([]byte(`{"choices":[{"text":"` + strings.Repeat("hello ", 200) + `"}]}`))
			_ = z.Close()
			return
		}
		for i := range 4 {
			fmt.Fprintf(z, "data: {\"i\":%d}\n\n", i)
			_ = z.Flush()
			w.(http.Flusher).Flush()
		}
		_, _ = z.Write([]byte("data: [DONE]\n\n"))
		_ = z.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCompressedResponses: gzip, deflate (zlib and raw), br and zstd
// bodies are decoded for JSON and SSE in both engines; no Accept-Encoding
// is sent unless the request's headers carry one; every SSE event is
// stamped with the arrival of its compressed bytes.
func TestCompressedResponses(t *testing.T) {
	for coding := range compressors {
		for _, e := range engines {
			t.Run(coding+"/"+e.name, func(t *testing.T) {
				var accept sync2
				srv := compressingServer(t, coding, &accept)
				c := New(Options{NetHTTP: e.netHTTP, TraceDetail: true})
				defer c.Close()
				for _, stream := range []bool{false, true} {
					rec := &record.Record{}
					body := `{"model":"m"}`
					if stream {
						body = `{"model":"m","stream":true}`
					}
					c.Do(t.Context(), clock.New(), &Request{URL: srv.URL, Body: []byte(body), Header: jsonHeader()}, rec)
					if rec.Error != nil {
						t.Fatalf("stream %v: %+v", stream, rec.Error)
					}
					checkOrder(t, rec)
					if !stream {
						if len(rec.Chunks) != 1 || !strings.Contains(string(rec.Chunks[0].Data), "hello hello") {
							t.Errorf("JSON body not decoded: %q", rec.Chunks)
						}
						if rec.End != rec.Trace.BodyEnd {
							t.Errorf("End %v; want the last compressed bytes' arrival %v", rec.End, rec.Trace.BodyEnd)
						}
						continue
					}
					var data []string
					for _, ch := range rec.Chunks {
						data = append(data, string(ch.Data))
					}
					if want := []string{`{"i":0}`, `{"i":1}`, `{"i":2}`, `{"i":3}`, "[DONE]"}; !slices.Equal(data, want) {
						t.Errorf("events %q; want %q", data, want)
					}
					arrivals := map[int64]bool{}
					for _, rc := range rec.Trace.Detail.ResponseChunks {
						arrivals[int64(rc.At)] = true
					}
					for i, ch := range rec.Chunks {
						if !arrivals[int64(ch.At)] {
							t.Errorf("event %d stamped %v, at no arrival of compressed bytes %v", i, ch.At, rec.Trace.Detail.ResponseChunks)
						}
					}
				}
				if got := accept.all(); slices.ContainsFunc(got, func(s string) bool { return s != "" }) {
					t.Errorf("Accept-Encoding sent %q; want none", got)
				}
				h := jsonHeader()
				h.Set("Accept-Encoding", "gzip, br, zstd")
				accept.reset()
				rec := &record.Record{}
				c.Do(t.Context(), clock.New(), &Request{URL: srv.URL, Body: []byte(`{}`), Header: h}, rec)
				if rec.Error != nil || accept.all()[0] != "gzip, br, zstd" {
					t.Errorf("asked for compression: %+v, server saw %q", rec.Error, accept.all())
				}
			})
		}
	}
}

// TestUndecodableEncoding: a coding the client cannot decode, or a body
// that is not what its coding says, is an error naming the coding.
func TestUndecodableEncoding(t *testing.T) {
	for _, tc := range []struct{ coding, body, want string }{
		{"compress", "\x1f\x9d\x90", `Content-Encoding "compress" is not supported`},
		{"gzip", "not gzip at all", "decoding the gzip response body"},
		{"br", "\xff\xff\xff\xff not brotli", "decoding the br response body"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", tc.coding)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(tc.body))
		}))
		for _, e := range engines {
			c := New(Options{NetHTTP: e.netHTTP})
			rec := do(t, c, t.Context(), srv.URL)
			c.Close()
			if rec.Error == nil || !strings.Contains(rec.Error.Message, tc.want) {
				t.Errorf("%s/%s: %+v; want an error saying %q", tc.coding, e.name, rec.Error, tc.want)
			}
		}
		srv.Close()
	}
}
