package timing

import (
	"context"
	"testing"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// TestSchedulerStopsWhenExhausted: Options.Exhausted is a stop condition of
// its own (a request budget spent turn by turn): no Count or Duration is
// needed, and no credit is issued once it reports true.
func TestSchedulerStopsWhenExhausted(t *testing.T) {
	t.Parallel()
	issued := 0
	var s *Scheduler
	s, err := New(Options{Concurrency: 1, Exhausted: func() bool { return issued >= 3 }})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Run(context.Background(), clock.New(), func(c Credit) {
		issued++
		s.Done(c)
	})
	if issued != 3 || st.Issued != 3 || st.Reason != StopCount {
		t.Fatalf("issued %d (stats %d, reason %v), want 3 and StopCount", issued, st.Issued, st.Reason)
	}
	if _, err := New(Options{Concurrency: 1}); err == nil {
		t.Error("New accepted a phase with no stop condition")
	}
}
