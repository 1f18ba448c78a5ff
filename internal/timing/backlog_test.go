package timing

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// TestSchedulerBacklogBoundsAnOverloadedClient: 1,000 credits/s asked of
// a client whose workers take 5 ms to get a request out, with a backlog
// of 2. The scheduler never has more than 2 credits issued and not
// started, every credit keeps its scheduled Due (the shortfall is lag),
// the phase ends at its duration, and every credit due before the end is
// either issued or counted Unsent.
func TestSchedulerBacklogBoundsAnOverloadedClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Arrivals: mustConstant(t, 1000), Duration: 20 * ms, Backlog: 2})
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.New()
		var (
			mu               sync.Mutex
			pending, highest int
			credits          []Credit
			wg               sync.WaitGroup
		)
		st := s.Run(t.Context(), clk, func(c Credit) {
			mu.Lock()
			pending++
			highest = max(highest, pending)
			credits = append(credits, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(5 * ms) // the slow path to the wire
				mu.Lock()
				pending--
				mu.Unlock()
				s.Started(c)
				s.Done(c)
			}()
		})
		wg.Wait()
		if highest > 2 {
			t.Errorf("%d credits issued and not started at once, want <= 2 (the backlog)", highest)
		}
		for i, c := range credits {
			if want := time.Duration(i+1) * ms; c.Due != want {
				t.Errorf("credit %d: Due %v, want %v (its scheduled time)", i, c.Due, want)
			}
		}
		if st.Reason != StopDuration || st.End != 20*ms {
			t.Errorf("stopped by %v at %v, want duration at 20ms", st.Reason, st.End)
		}
		// Due at 1, 2, ..., 19 ms: 19 credits inside the phase.
		if got := st.Issued + st.Unsent; got != 19 {
			t.Errorf("issued %d + unsent %d = %d, want the 19 due before the end", st.Issued, st.Unsent, got)
		}
		if st.Backlogged == 0 || st.Unsent == 0 {
			t.Errorf("backlogged %d, unsent %d: want both > 0 for a client 2.5x too slow", st.Backlogged, st.Unsent)
		}
	})
}

// TestSchedulerBacklogOffByDefault: without a Backlog, Started is never
// needed and credits are issued on time however many are pending.
func TestSchedulerBacklogOffByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Arrivals: mustConstant(t, 1000), Count: 10})
		st := h.run(t.Context(), nil)
		if st.Issued != 10 || st.Backlogged != 0 || st.End != 10*ms {
			t.Errorf("stats %+v, want 10 issued on time, none backlogged", st)
		}
	})
}

// BenchmarkSchedulerRateCredit is the rate loop's own cost per credit
// (schedule, stop checks, slot and backlog bookkeeping, Started and Done),
// with every due time already past so nothing sleeps: what the pacer adds
// to each open-loop request besides its wake-ups.
func BenchmarkSchedulerRateCredit(b *testing.B) {
	arr, err := Constant(1e9) // 1 ns apart: always catching up
	if err != nil {
		b.Fatal(err)
	}
	var s *Scheduler
	s, err = New(Options{Arrivals: arr, Count: b.N, Concurrency: 2500, Backlog: DefaultBacklog, Quantum: DefaultQuantum})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	s.Run(context.Background(), clock.New(), func(c Credit) {
		s.Started(c)
		s.Done(c)
	})
}
