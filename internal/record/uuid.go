package record

import "encoding/hex"

// UUIDv4 formats 16 random bytes as a version-4 UUID string (the version and
// variant bits are set here). Request, correlation and conversation ids use
// this form, as AIPerf's do; the caller chooses the randomness (crypto/rand
// for ids that must be unique across runs, a seeded generator for ids that
// must repeat with --random-seed).
func UUIDv4(b [16]byte) string {
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}
