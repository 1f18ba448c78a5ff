package benchmark

import "sync/atomic"

// sessionCounts counts a phase's user sessions as AIPerf's credit counter
// does: a conversation is sent when its first turn is, adding the turns it
// may send to turns; it ends completed or, when its last request was
// cancelled, cancelled. Workers are the writers (atomics); the live
// publisher reads.
type sessionCounts struct {
	sent, completed, cancelled, turns atomic.Int64
}

func (s *sessionCounts) start(turns int) {
	s.sent.Add(1)
	s.turns.Add(int64(turns))
}

func (s *sessionCounts) end(cancelled bool) {
	if cancelled {
		s.cancelled.Add(1)
	} else {
		s.completed.Add(1)
	}
}
