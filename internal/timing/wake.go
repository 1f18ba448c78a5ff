package timing

import (
	"time"
)

// DefaultQuantum is the shortest interval between two wake-ups of a
// Wake-paced rate schedule. Credits due within one quantum of the last
// wake-up go out together at the next one (each keeps its own Due), so a
// rate above 1/quantum costs 1/quantum wake-ups per second instead of one
// per credit, and no credit is more than a quantum late on its account.
const DefaultQuantum = 100 * time.Microsecond

// wakeAt is the pacer's batching decision: the run-clock time to sleep
// until for the next credit, due at due, when the pacer last woke at last.
// A credit never goes out before its due time, and the pacer never wakes
// sooner than quantum after its last wake-up: at rates above 1/quantum the
// credits due in one quantum form one batch. quantum <= 0 wakes for every
// due time.
func wakeAt(due, last, quantum time.Duration) time.Duration {
	if quantum <= 0 {
		return due
	}
	return max(due, last+quantum)
}
