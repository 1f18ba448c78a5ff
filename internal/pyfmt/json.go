package pyfmt

import "unicode/utf8"

// AppendJSONString appends s as a JSON string the way orjson writes it in
// AIPerf's artifacts: UTF-8 kept as it is, the quote and the backslash
// escaped, \b \t \n \f \r in their short forms and the other control
// characters as \u00xx.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			dst = append(dst, '\\', byte(r))
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			if r < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
			} else {
				dst = utf8.AppendRune(dst, r)
			}
		}
	}
	return append(dst, '"')
}
