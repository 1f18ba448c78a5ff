package timing

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/record"
)

// Credit is permission to send one request. The scheduler hands one out per
// request when it is due; the caller passes it to a worker and calls
// Scheduler.Done with it when the request's work has finished.
type Credit struct {
	// Seq is the credit's 0-based index within its phase, in issue order.
	Seq uint64
	// Phase is the phase the credit belongs to.
	Phase record.Phase
	// Due is the run-clock offset at which the credit was meant to be sent.
	// In rate mode it is the schedule's time even when the credit had to
	// wait for a concurrency slot, so the wait shows up as lateness
	// (Sent - Due). In closed-loop mode it is when the credit's slot became
	// free. It becomes record.Record.Due.
	Due time.Duration
	// Turns, when > 0, is how many turns of its conversation the credit
	// sends (the first Turns); 0 sends them all. User-centric users with a
	// virtual history send fewer.
	Turns int
	// TurnGap, when > 0, paces the conversation's later turns one gap
	// apart (UserTurnDue) instead of by the dataset's delays.
	TurnGap time.Duration
}

// sessionShaper is implemented by schedules that shape each session they
// start (UserCentric): the last started session's turn count and gap.
type sessionShaper interface {
	shape() (turns int, gap time.Duration)
}

// DefaultCount is the request count to use when neither a count nor a
// duration is configured: max(10, 2*concurrency). It mirrors AIPerf's default
// for synthetic datasets, which gives every concurrency slot at least two
// requests so the run reaches steady state before it ends.
func DefaultCount(concurrency int) int {
	return max(10, 2*concurrency)
}
