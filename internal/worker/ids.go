package worker

import (
	"crypto/rand"
	"encoding/hex"
)

// idSource makes random UUIDv4 strings for X-Request-ID and
// X-Correlation-ID. Request ids must be unique across runs and machines
// (servers and tracing systems join on them), so they come from crypto/rand,
// which is safe for concurrent use.
type idSource struct{}

func newIDSource() idSource { return idSource{} }

func (idSource) next() string {
	var u [16]byte
	rand.Read(u[:])         // never fails (crypto/rand, Go 1.24+)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}
