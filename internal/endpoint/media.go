package endpoint

import "bytes"

// imageURLToken is the JSON string that marks an OpenAI image content part
// when it is the value of a "type" member.
var imageURLToken = []byte(`"image_url"`)

// CountImageParts returns the number of image content parts in a request
// body: members "type":"image_url", whitespace around the colon allowed.
// It is AIPerf's media_counts.images, which num_images and the image
// throughput and latency metrics read; like AIPerf it counts the whole
// body, so images of earlier turns sent as history count too.
//
// It scans bytes instead of decoding: inside a JSON string every quote is
// escaped, so the token can only match JSON structure, and a body without
// images costs one substring search.
func CountImageParts(body []byte) int {
	n := 0
	for off := 0; ; {
		i := bytes.Index(body[off:], imageURLToken)
		if i < 0 {
			return n
		}
		i += off
		if isTypeValue(body[:i]) {
			n++
		}
		off = i + len(imageURLToken)
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
