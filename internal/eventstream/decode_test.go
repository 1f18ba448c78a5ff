package eventstream_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/eventstream"
)

// botocoreCases is testdata/botocore.json: streams built by a Python
// script and what botocore's decoder made of each (botocore_gen.py).
type botocoreCases struct {
	Cases []struct {
		Name     string `json:"name"`
		Stream   string `json:"stream"`
		Messages []struct {
			Headers map[string]map[string]any `json:"headers"`
			Payload string                    `json:"payload"`
		} `json:"messages"`
		Error string `json:"error"`
	} `json:"cases"`
}

// headerJSON is how the golden file spells a decoded header value.
func headerJSON(h eventstream.Header) map[string]any {
	v := h.Value
	switch h.Type {
	case eventstream.TypeTrue:
		return map[string]any{"bool": true}
	case eventstream.TypeFalse:
		return map[string]any{"bool": false}
	case eventstream.TypeByte:
		return map[string]any{"int": float64(int8(v[0]))}
	case eventstream.TypeShort:
		return map[string]any{"int": float64(int16(binary.BigEndian.Uint16(v)))}
	case eventstream.TypeInt:
		return map[string]any{"int": float64(int32(binary.BigEndian.Uint32(v)))}
	case eventstream.TypeLong, eventstream.TypeTimestamp:
		return map[string]any{"int": float64(int64(binary.BigEndian.Uint64(v)))}
	case eventstream.TypeString:
		return map[string]any{"string": string(v)}
	}
	return map[string]any{"hex": hex.EncodeToString(v)}
}

// TestDecodeMatchesBotocore decodes each golden stream whole and one
// byte at a time, and checks the messages (or the error's kind) against
// botocore's.
func TestDecodeMatchesBotocore(t *testing.T) {
	raw, err := os.ReadFile("testdata/botocore.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden botocoreCases
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	for _, c := range golden.Cases {
		stream, _ := hex.DecodeString(c.Stream)
		for _, step := range []int{len(stream), 1, 7} {
			var d eventstream.Decoder
			var got []map[string]any
			var gotErr error
			for off := 0; off < len(stream) && gotErr == nil; off += step {
				_, _ = d.Write(stream[off:min(off+step, len(stream))])
				for {
					m, ok, err := d.Next()
					if err != nil {
						gotErr = err
						break
					}
					if !ok {
						break
					}
					hs := map[string]map[string]any{}
					for _, h := range m.Headers {
						hs[h.Name] = headerJSON(h)
					}
					got = append(got, map[string]any{"headers": hs, "payload": hex.EncodeToString(m.Payload)})
				}
			}
			var want []map[string]any
			for _, m := range c.Messages {
				want = append(want, map[string]any{"headers": m.Headers, "payload": m.Payload})
			}
			if wj, gj := mustJSON(want), mustJSON(got); wj != gj {
				t.Errorf("%s (reads of %d): messages\n got %s\nwant %s", c.Name, step, gj, wj)
			}
			var fe *eventstream.FrameError
			switch {
			case c.Error == "" && gotErr != nil:
				t.Errorf("%s: unexpected error %v", c.Name, gotErr)
			case c.Error != "" && (!errors.As(gotErr, &fe) || fe.Kind != c.Error):
				t.Errorf("%s: error %v, botocore raises %s", c.Name, gotErr, c.Error)
			}
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	var norm any
	_ = json.Unmarshal(b, &norm)
	b, _ = json.Marshal(norm)
	return string(b)
}

// TestLines checks the response lines recovered from PayloadParts cut
// at every byte, the data: prefix, the last line without a newline,
// exceptions with the partial line, and a stream cut inside a frame.
func TestLines(t *testing.T) {
	var stream []byte
	for _, p := range []string{"data: {\"a\":", "1}\n\ndata: {\"b\":2}\n", "{\"c\":3}\n{\"d\"", ":4}"} {
		stream = eventstream.PayloadPart(stream, []byte(p))
	}
	stream = eventstream.Append(stream, []eventstream.Header{eventstream.StringHeader(":message-type", "event"), eventstream.StringHeader(":event-type", "Other")}, []byte("ignored\n"))
	want := []string{`{"a":1}`, `{"b":2}`, `{"c":3}`, `{"d":4}`}
	for cut := 1; cut <= len(stream); cut++ {
		var l eventstream.Lines
		var got []string
		emit := func(b []byte) { got = append(got, string(b)) }
		for off := 0; off < len(stream); off += cut {
			if err := l.Feed(stream[off:min(off+cut, len(stream))], emit); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(emit); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("reads of %d: lines %q, want %q", cut, got, want)
		}
	}

	var l eventstream.Lines
	fail := eventstream.Exception(eventstream.PayloadPart(nil, []byte(`{"half`)), "ModelStreamError", "container died")
	err := l.Feed(fail, func([]byte) {})
	var se *eventstream.StreamError
	if !errors.As(err, &se) || se.Type != "ModelStreamError" || !strings.Contains(se.Message, `AWS eventstream exception (ModelStreamError): {"Message":"container died"}`) || !strings.Contains(se.Message, `partial line buffered at failure: "{\"half"`) {
		t.Errorf("exception: %#v", err)
	}

	var cutShort eventstream.Lines
	whole := eventstream.PayloadPart(nil, []byte("x\n"))
	if err := cutShort.Feed(whole[:len(whole)-2], func([]byte) {}); err != nil {
		t.Fatal(err)
	}
	if err := cutShort.Close(func([]byte) {}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("incomplete frame: %d trailing byte(s)", len(whole)-2)) {
		t.Errorf("cut short: %v", err)
	}

	var bad eventstream.Lines
	if err := bad.Feed(eventstream.PayloadPart(nil, []byte("\xff\xfe\n")), func([]byte) {}); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("non-UTF-8 line: %v", err)
	}
}

// FuzzDecoder feeds arbitrary bytes in arbitrary reads: the decoder must
// not panic, must give the same messages whatever the reads, and every
// message it accepts must encode back to the bytes it came from.
func FuzzDecoder(f *testing.F) {
	f.Add(eventstream.PayloadPart(nil, []byte("data: {}\n")), uint8(3))
	f.Add(eventstream.Exception(nil, "ModelStreamError", "x"), uint8(1))
	f.Add([]byte{0, 0, 0, 16, 0, 0, 0, 0, 0x05, 0xc2, 0x48, 0xeb, 0x7d, 0x98, 0xc8, 0xff}, uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		whole := decodeAll(data, len(data)+1)
		parts := decodeAll(data, int(step)+1)
		if !reflect.DeepEqual(whole, parts) {
			t.Fatalf("reads of %d give %v, one read gives %v", int(step)+1, parts, whole)
		}
		off := 0
		for _, m := range whole {
			n := int(binary.BigEndian.Uint32(data[off:]))
			if re := eventstream.Append(nil, m.Headers, m.Payload); !bytes.Equal(re, data[off:off+n]) {
				t.Fatalf("message at %d re-encodes to %x, was %x", off, re, data[off:off+n])
			}
			off += n
		}
		var l eventstream.Lines
		_ = l.Feed(data, func([]byte) {})
		_ = l.Close(func([]byte) {})
	})
}

func decodeAll(data []byte, step int) []eventstream.Message {
	var d eventstream.Decoder
	var out []eventstream.Message
	for off := 0; off < len(data); off += step {
		_, _ = d.Write(data[off:min(off+step, len(data))])
		for {
			m, ok, err := d.Next()
			if err != nil || !ok {
				break
			}
			m.Payload = bytes.Clone(m.Payload)
			for i := range m.Headers {
				m.Headers[i].Value = bytes.Clone(m.Headers[i].Value)
			}
			out = append(out, m)
		}
	}
	return out
}
