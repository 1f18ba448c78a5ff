package transport

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// ev is the comparable part of an Event.
type ev struct {
	Type, Data, Comment string
}

func collect(t *testing.T, r io.Reader) ([]ev, error) {
	t.Helper()
	sr := NewSSEReader(r, clock.New())
	var got []ev
	for sr.Next() {
		e := sr.Event()
		got = append(got, ev{Type: e.Type, Data: string(e.Data), Comment: string(e.Comment)})
	}
	return got, sr.Err()
}

// readers returns the ways a stream may be chopped into reads.
func readers(s string) map[string]func() io.Reader {
	return map[string]func() io.Reader{
		"whole":   func() io.Reader { return strings.NewReader(s) },
		"onebyte": func() io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":    func() io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
		"dataerr": func() io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
}

func TestSSEReaderParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"openai", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []ev{{Data: `{"a":1}`}, {Data: "[DONE]"}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []ev{{Data: "a"}, {Data: "b"}}},
		{"cr", "data: a\r\rdata: b\r\r", []ev{{Data: "a"}, {Data: "b"}}},
		{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n", []ev{{Data: "a\nb\nc"}}},
		{"no space", "data:a\n\n", []ev{{Data: "a"}}},
		{"only one space stripped", "data:  a \n\n", []ev{{Data: " a "}}},
		{"multi data", "data: a\ndata: b\ndata:\n\n", []ev{{Data: "a\nb\n"}}},
		{"empty data dispatched", "data\n\n", []ev{{Data: ""}}},
		{"comment ignored", ": keep-alive\n\ndata: x\n\n", []ev{{Data: "x"}}},
		{"comment kept on event", ": hi there\ndata: x\n: second\n\n", []ev{{Data: "x", Comment: "hi there"}}},
		{"event type", "event: message_start\ndata: {}\n\nevent: ping\ndata: 1\n\n", []ev{
			{Type: "message_start", Data: "{}"}, {Type: "ping", Data: "1"},
		}},
		{"type resets per event", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{Type: "a", Data: "1"}, {Data: "2"}}},
		{"typed event without data", "event: error\n: overloaded\n\n", []ev{{Type: "error", Comment: "overloaded"}}},
		{"no data no type dropped", "id: 7\nretry: 10\n\n: c\n\n", nil},
		{"id and retry ignored", "id: 1\nretry: 5\ndata: x\n\n", []ev{{Data: "x"}}},
		{"unknown field ignored", "foo: bar\ndata: x\n\n", []ev{{Data: "x"}}},
		{"field name is exact", "data : x\nDATA: y\n\n", nil},
		{"value keeps colons", "data: a: b\n\n", []ev{{Data: "a: b"}}},
		{"leading blank lines", "\n\n\r\ndata: x\n\n", []ev{{Data: "x"}}},
		{"bom", "\xef\xbb\xbfdata: x\n\n", []ev{{Data: "x"}}},
		{"bom only once", "\xef\xbb\xbf\xef\xbb\xbfdata: x\n\n", nil},
		{"eof without blank line", "data: a\n\ndata: b\n", []ev{{Data: "a"}, {Data: "b"}}},
		{"eof without newline", "data: a\n\ndata: b", []ev{{Data: "a"}, {Data: "b"}}},
		{"eof after cr", "data: b\r", []ev{{Data: "b"}}},
		{"empty", "", nil},
		{"only newlines", "\n\n\n", nil},
	}
	for _, tt := range tests {
		for rname, mk := range readers(tt.in) {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				t.Parallel()
				got, err := collect(t, mk())
				if err != nil {
					t.Fatalf("Err() = %v; want nil", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events for %q (-want +got):\n%s", tt.in, diff)
				}
			})
		}
	}
}

func TestSSEReaderLongLines(t *testing.T) {
	t.Parallel()
	for _, n := range []int{64<<10 + 1, 1 << 20, 3<<20 + 17} {
		long := strings.Repeat("x", n)
		in := "data: a\n\ndata: " + long + "\ndata: z\n\ndata: b\n\n"
		for rname, mk := range map[string]func() io.Reader{
			"whole": func() io.Reader { return strings.NewReader(in) },
			"half":  func() io.Reader { return iotest.HalfReader(strings.NewReader(in)) },
		} {
			got, err := collect(t, mk())
			if err != nil {
				t.Fatalf("%d/%s: Err() = %v", n, rname, err)
			}
			want := []ev{{Data: "a"}, {Data: long + "\nz"}, {Data: "b"}}
			if !cmp.Equal(want, got) {
				t.Errorf("%d/%s: got %d events (lens %v); want the long one intact", n, rname, len(got), lens(got))
			}
		}
	}
}

func lens(evs []ev) []int {
	var out []int
	for _, e := range evs {
		out = append(out, len(e.Data))
	}
	return out
}

func TestSSEReaderReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: partial"), iotest.ErrReader(boom))
	got, err := collect(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("Err() = %v; want %v", err, boom)
	}
	// The broken-off event is not dispatched; the complete one is.
	if want := []ev{{Data: "a"}}; !cmp.Equal(want, got) {
		t.Errorf("events = %v; want %v", got, want)
	}
}

func TestSSEReaderNoProgress(t *testing.T) {
	t.Parallel()
	_, err := collect(t, zeroReader{})
	if !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("Err() = %v; want io.ErrNoProgress", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// chunkReader delivers each chunk in its own Read after waiting the given
// (fake, synctest) delay.
type chunkReader struct {
	chunks []string
	delays []time.Duration
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	time.Sleep(c.delays[0]) // synctest fake time: advances instantly and exactly
	n := copy(p, c.chunks[0])
	if n < len(c.chunks[0]) {
		c.chunks[0] = c.chunks[0][n:]
		c.delays[0] = 0
		return n, nil
	}
	c.chunks, c.delays = c.chunks[1:], c.delays[1:]
	return n, nil
}

// TestSSEReaderStampsFirstByte checks that each event carries the arrival
// time of the read that delivered its first byte, even when the rest of the
// event arrives later or the consumer is slow. The clock runs in a synctest
// bubble, so the times are exact.
func TestSSEReaderStampsFirstByte(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		clk := clock.New()
		r := &chunkReader{
			chunks: []string{"data: a\n\ndata: b", "\n\n", ": c\ndata: c\n\ndata: d\n", "\n"},
			delays: []time.Duration{time.Millisecond, 4 * time.Millisecond, 4 * time.Millisecond, 10 * time.Millisecond},
		}
		sr := NewSSEReader(r, clk)
		var got []time.Duration
		for sr.Next() {
			got = append(got, sr.Event().At)
			time.Sleep(100 * time.Millisecond) // a slow consumer must not shift later stamps
		}
		if sr.Err() != nil {
			t.Fatal(sr.Err())
		}
		ms := time.Millisecond
		// a and b: first bytes in read 1 (1 ms), though b completes only
		// with read 2 (at 1+100+4 ms, after the consumer's first pause). c
		// (from its comment line) and d: read 3, issued after the second
		// pause and returning 4 ms later: 105+100+4 ms.
		want := []time.Duration{ms, ms, 209 * ms, 209 * ms}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("At (-want +got):\n%s", diff)
		}
	})
}

func TestSSEReaderCommentsDoNotStamp(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		r := &chunkReader{
			chunks: []string{": ping\n", ": ping\n", "data: x\n\n"},
			delays: []time.Duration{time.Millisecond, time.Millisecond, 5 * time.Millisecond},
		}
		sr := NewSSEReader(r, clock.New())
		if !sr.Next() {
			t.Fatalf("no event; Err() = %v", sr.Err())
		}
		if e := sr.Event(); e.At != 7*time.Millisecond || string(e.Comment) != "ping" {
			t.Errorf("At = %v, Comment = %q; want 7ms (the data line), \"ping\"", e.At, e.Comment)
		}
	})
}

// refParse is an independent, whole-input reading of the same rules, used
// as the oracle in FuzzSSEReader.
func refParse(in string) []ev {
	in = strings.TrimPrefix(in, "\xef\xbb\xbf")
	in = strings.ReplaceAll(in, "\r\n", "\n")
	in = strings.ReplaceAll(in, "\r", "\n")
	var out []ev
	var cur ev
	var hasData, hasComment bool
	flush := func() {
		if hasData || cur.Type != "" {
			out = append(out, cur)
		}
		cur, hasData, hasComment = ev{}, false, false
	}
	lines := strings.Split(in, "\n")
	for _, l := range lines {
		if l == "" {
			flush()
			continue
		}
		name, value, found := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch {
		case found && name == "":
			if !hasComment {
				cur.Comment, hasComment = value, true
			}
		case name == "data":
			if hasData {
				cur.Data += "\n"
			}
			cur.Data += value
			hasData = true
		case name == "event":
			cur.Type = value
		}
	}
	flush() // EOF dispatches what is pending, as AIPerf does
	return out
}

func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\ndata: [DONE]\n\n",
		"data: a\r\n\r\nevent: x\r\ndata: b\r\r",
		": c\nevent: error\n\n",
		"\xef\xbb\xbfdata: x",
		"data:\ndata\n\n\r\r\n",
		"data: a\rdata: b\n\rdata: c\r\n\n",
	} {
		f.Add(s, uint8(1))
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, in string, chunk uint8) {
		want := refParse(in)
		for _, r := range []io.Reader{
			strings.NewReader(in),
			&sizedReader{s: in, n: int(chunk%32) + 1},
		} {
			sr := NewSSEReader(r, clock.New())
			var got []ev
			var last time.Duration
			for sr.Next() {
				e := sr.Event()
				if e.At < last {
					t.Fatalf("At went backwards: %v after %v", e.At, last)
				}
				last = e.At
				if bytes.ContainsAny(e.Data, "\r") {
					t.Fatalf("data %q contains a line terminator", e.Data)
				}
				got = append(got, ev{Type: e.Type, Data: string(e.Data), Comment: string(e.Comment)})
			}
			if sr.Err() != nil {
				t.Fatalf("Err() = %v", sr.Err())
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("events for %q (chunk %d) (-ref +got):\n%s", in, chunk, diff)
			}
		}

		// A well-formed stream built from the input dispatches exactly the
		// values, never the raw "data:" field prefix.
		value := strings.Map(func(r rune) rune {
			if r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, in)
		stream := "data: " + value + "\n\nevent: t\ndata: " + value + "\n\n"
		sr := NewSSEReader(&sizedReader{s: stream, n: int(chunk%32) + 1}, clock.New())
		var got []ev
		for sr.Next() {
			e := sr.Event()
			got = append(got, ev{Type: e.Type, Data: string(e.Data)})
		}
		if want := []ev{{Data: value}, {Type: "t", Data: value}}; !cmp.Equal(want, got) {
			t.Fatalf("well-formed stream %q: events %q; want %q", stream, got, want)
		}
	})
}

// sizedReader returns at most n bytes per Read.
type sizedReader struct {
	s string
	n int
}

func (r *sizedReader) Read(p []byte) (int, error) {
	if len(r.s) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.s)
	r.s = r.s[k:]
	return k, nil
}

// typicalStream is a vLLM-shaped chat stream of n content chunks.
func typicalStream(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1749678185,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for range n {
		b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func BenchmarkSSEReader(b *testing.B) {
	stream := typicalStream(256)
	clk := clock.New()
	br := bytes.NewReader(stream)
	sr := NewSSEReader(br, clk)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(stream)
		sr.Reset(br)
		n := 0
		for sr.Next() {
			n++
		}
		if n != 258 || sr.Err() != nil {
			b.Fatalf("events = %d, err = %v", n, sr.Err())
		}
	}
}
