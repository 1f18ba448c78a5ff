// Package eventstream decodes and encodes AWS's binary event stream
// framing (application/vnd.amazon.eventstream), what SageMaker's
// InvokeEndpointWithResponseStream (and Bedrock's streaming calls) answer
// with instead of SSE.
//
// A message is a 12-byte prelude (total length, headers length, CRC-32 of
// those 8 bytes), the headers, the payload and a CRC-32 of everything
// before it; all integers are big-endian. The decoder is incremental: it
// is fed network reads as they arrive and yields each message as soon as
// its last byte is in, so the caller can stamp every message decoded from
// one read with that read's arrival time.
package eventstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// ContentType is the media type of an event stream body.
const ContentType = "application/vnd.amazon.eventstream"

// Limits of one message, botocore's: a frame announcing more is refused
// before it is buffered, so a hostile length cannot grow the client.
const (
	preludeLen    = 12
	crcLen        = 4
	MinMessageLen = preludeLen + crcLen
	MaxHeadersLen = 128 << 10
	MaxPayloadLen = 24 << 20
)

// Header value types of the wire format.
const (
	TypeTrue      = 0
	TypeFalse     = 1
	TypeByte      = 2
	TypeShort     = 3
	TypeInt       = 4
	TypeLong      = 5
	TypeBytes     = 6
	TypeString    = 7
	TypeTimestamp = 8
	TypeUUID      = 9
)

// Header is one message header. Value holds a string's or byte array's
// bytes, a UUID's 16 bytes, or an integer's big-endian bytes as sent;
// booleans have none (Type says which).
type Header struct {
	Name  string
	Type  byte
	Value []byte
}

// Message is one decoded message.
type Message struct {
	Headers []Header
	Payload []byte
	// Len is the message's length on the wire, prelude and CRC included.
	Len int
}

// String returns the value of the string header name ("" when absent or
// not a string).
func (m *Message) String(name string) string {
	for _, h := range m.Headers {
		if h.Name == name && h.Type == TypeString {
			return string(h.Value)
		}
	}
	return ""
}

// ErrCorrupt is wrapped by every framing error.
var ErrCorrupt = errors.New("malformed AWS eventstream frame")

// FrameError is a framing error. Kind is botocore's name for it
// (ChecksumMismatch, InvalidHeadersLength, InvalidPayloadLength,
// ParserError), which AIPerf reports as the error's type, so failures
// group the same way in both tools' error tables.
type FrameError struct {
	Kind string
	msg  string
}

func (e *FrameError) Error() string { return ErrCorrupt.Error() + ": " + e.Kind + ": " + e.msg }
func (e *FrameError) Unwrap() error { return ErrCorrupt }

// Decoder decodes a stream of messages from the bytes fed to it.
type Decoder struct {
	buf []byte
	off int // start of the first undecoded byte in buf
	err error
}

// Write appends a network read to the decoder's buffer. It never fails;
// framing errors come from Next.
func (d *Decoder) Write(p []byte) (int, error) {
	if d.off > 0 && d.off == len(d.buf) {
		d.buf, d.off = d.buf[:0], 0
	} else if d.off > 0 && d.off >= cap(d.buf)/2 {
		n := copy(d.buf, d.buf[d.off:])
		d.buf, d.off = d.buf[:n], 0
	}
	d.buf = append(d.buf, p...)
	return len(p), nil
}

// Buffered is the number of bytes fed but not yet decoded: at the end of
// the body, a non-zero count is a message cut short.
func (d *Decoder) Buffered() int { return len(d.buf) - d.off }

// Next returns the next complete message, or ok false when more bytes
// are needed. After an error the decoder stays failed. The message's
// Payload and header values alias the decoder's buffer: they are valid
// until the next Write.
func (d *Decoder) Next() (m Message, ok bool, err error) {
	if d.err != nil {
		return Message{}, false, d.err
	}
	b := d.buf[d.off:]
	if len(b) < preludeLen {
		return Message{}, false, nil
	}
	total := binary.BigEndian.Uint32(b[0:4])
	hlen := binary.BigEndian.Uint32(b[4:8])
	if hlen > MaxHeadersLen {
		return d.fail("InvalidHeadersLength", "headers length %d exceeds %d", hlen, MaxHeadersLen)
	}
	if total < MinMessageLen || uint64(hlen) > uint64(total)-MinMessageLen {
		return d.fail("ParserError", "total length %d cannot hold a %d-byte prelude, %d bytes of headers and a checksum", total, preludeLen, hlen)
	}
	if plen := uint64(total) - MinMessageLen - uint64(hlen); plen > MaxPayloadLen {
		return d.fail("InvalidPayloadLength", "payload length %d exceeds %d", plen, MaxPayloadLen)
	}
	if got, want := crc32.ChecksumIEEE(b[:8]), binary.BigEndian.Uint32(b[8:12]); got != want {
		return d.fail("ChecksumMismatch", "prelude checksum mismatch: computed 0x%08x, frame says 0x%08x", got, want)
	}
	if uint64(len(b)) < uint64(total) {
		return Message{}, false, nil
	}
	msg := b[:total]
	if got, want := crc32.ChecksumIEEE(msg[:total-crcLen]), binary.BigEndian.Uint32(msg[total-crcLen:]); got != want {
		return d.fail("ChecksumMismatch", "message checksum mismatch: computed 0x%08x, frame says 0x%08x", got, want)
	}
	headers, err := parseHeaders(msg[preludeLen : preludeLen+hlen])
	if err != nil {
		return d.fail("ParserError", "%v", err)
	}
	d.off += int(total)
	return Message{Headers: headers, Payload: msg[preludeLen+hlen : total-crcLen], Len: int(total)}, true, nil
}

func (d *Decoder) fail(kind, format string, args ...any) (Message, bool, error) {
	d.err = &FrameError{Kind: kind, msg: fmt.Sprintf(format, args...)}
	return Message{}, false, d.err
}

// valueLen is the fixed length of each header value type; -1 is a
// 2-byte length prefix (bytes, string).
var valueLen = [...]int{TypeTrue: 0, TypeFalse: 0, TypeByte: 1, TypeShort: 2, TypeInt: 4, TypeLong: 8, TypeBytes: -1, TypeString: -1, TypeTimestamp: 8, TypeUUID: 16}

func parseHeaders(b []byte) ([]Header, error) {
	var hs []Header
	for len(b) > 0 {
		n := int(b[0])
		if n == 0 || len(b) < 1+n+1 {
			return nil, fmt.Errorf("header name of %d bytes overruns the headers", n)
		}
		h := Header{Name: string(b[1 : 1+n]), Type: b[1+n]}
		b = b[2+n:]
		if int(h.Type) >= len(valueLen) {
			return nil, fmt.Errorf("header %q has unknown value type %d", h.Name, h.Type)
		}
		vl := valueLen[h.Type]
		if vl < 0 {
			if len(b) < 2 {
				return nil, fmt.Errorf("header %q value length overruns the headers", h.Name)
			}
			vl = int(binary.BigEndian.Uint16(b))
			b = b[2:]
		}
		if len(b) < vl {
			return nil, fmt.Errorf("header %q value of %d bytes overruns the headers", h.Name, vl)
		}
		h.Value = b[:vl:vl]
		b = b[vl:]
		hs = append(hs, h)
	}
	return hs, nil
}
