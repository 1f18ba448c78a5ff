package worker

import (
	"crypto/rand"

	"github.com/aiperf-go/aiperf/internal/record"
)

// newID returns a random UUIDv4 string for X-Request-ID and
// X-Correlation-ID. Request ids must be unique across runs and machines
// (servers and tracing systems join on them), so they come from crypto/rand,
// which is safe for concurrent use.
func newID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return record.UUIDv4(b)
}
