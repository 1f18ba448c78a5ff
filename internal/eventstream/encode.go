package eventstream

import (
	"encoding/binary"
	"hash/crc32"
)

// StringHeader is a string-valued header (the only kind SageMaker sends:
// :message-type, :event-type, :content-type, :exception-type, ...).
func StringHeader(name, value string) Header {
	return Header{Name: name, Type: TypeString, Value: []byte(value)}
}

// Append appends the encoding of one message to b: the writer test
// servers (and the fuzz target's round trip) use.
func Append(b []byte, headers []Header, payload []byte) []byte {
	start := len(b)
	hlen := 0
	for _, h := range headers {
		hlen += 2 + len(h.Name) + len(h.Value)
		if int(h.Type) < len(valueLen) && valueLen[h.Type] < 0 {
			hlen += 2
		}
	}
	total := MinMessageLen + hlen + len(payload)
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b = binary.BigEndian.AppendUint32(b, uint32(hlen))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:start+8]))
	for _, h := range headers {
		b = append(b, byte(len(h.Name)))
		b = append(b, h.Name...)
		b = append(b, h.Type)
		if int(h.Type) < len(valueLen) && valueLen[h.Type] < 0 {
			b = binary.BigEndian.AppendUint16(b, uint16(len(h.Value)))
		}
		b = append(b, h.Value...)
	}
	b = append(b, payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// PayloadPart is SageMaker's streamed chunk: an event message of type
// PayloadPart carrying bytes of the container's response.
func PayloadPart(b, payload []byte) []byte {
	return Append(b, []Header{
		StringHeader(":event-type", "PayloadPart"),
		StringHeader(":content-type", "application/octet-stream"),
		StringHeader(":message-type", "event"),
	}, payload)
}

// Exception is a modeled exception message (ModelStreamError,
// InternalStreamFailure) with its message as a JSON payload.
func Exception(b []byte, exceptionType, message string) []byte {
	return Append(b, []Header{
		StringHeader(":exception-type", exceptionType),
		StringHeader(":content-type", "application/json"),
		StringHeader(":message-type", "exception"),
	}, []byte(`{"Message":"`+message+`"}`))
}
