package endpoint

import "bytes"

// CountImageParts returns the number of OpenAI image content parts in a
// request body: members "type":"image_url", whitespace around the colon
// allowed. It is CountParts for the chat endpoint's image part.
func CountImageParts(body []byte) int { return CountParts(body, "image_url") }

// CountParts returns the number of content parts of type typ in a request
// body: members "type":"<typ>", whitespace around the colon allowed. It is
// AIPerf's media_counts.images, which num_images and the image throughput
// and latency metrics read, for an endpoint whose image parts have that
// type (Metadata.ImagePart); like AIPerf it counts the whole body, so
// images of earlier turns sent as history count too. An empty typ counts
// nothing.
//
// It scans bytes instead of decoding: inside a JSON string every quote is
// escaped, so the token can only match JSON structure, and a body without
// images costs one substring search.
func CountParts(body []byte, typ string) int {
	if typ == "" {
		return 0
	}
	var buf [64]byte
	token := AppendString(buf[:0], typ)
	n := 0
	for off := 0; ; {
		i := bytes.Index(body[off:], token)
		if i < 0 {
			return n
		}
		i += off
		if isTypeValue(body[:i]) {
			n++
		}
		off = i + len(token)
	}
}

// isTypeValue reports whether before ends with `"type"` and a colon,
// whitespace allowed around it.
func isTypeValue(before []byte) bool {
	before = bytes.TrimRight(before, " \t\r\n")
	if len(before) == 0 || before[len(before)-1] != ':' {
		return false
	}
	before = bytes.TrimRight(before[:len(before)-1], " \t\r\n")
	return bytes.HasSuffix(before, []byte(`"type"`))
}
