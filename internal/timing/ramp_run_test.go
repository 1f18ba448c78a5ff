package timing

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// TestSchedulerConcurrencyRamp: a closed loop ramping 1 -> 3 slots at 100
// and 200 ms, with workers holding each credit 250 ms. Every rise issues a
// credit Due at the step's time; after that credits follow the Dones.
func TestSchedulerConcurrencyRamp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Concurrency: 1, Count: 6,
			ConcurrencySteps: []LimitStep{{100 * ms, 2}, {200 * ms, 3}}})
		h.run(t.Context(), func(Credit) time.Duration { return 250 * ms })
		h.wg.Wait()
		// c0 at 0, c1 at the first step, c2 at the second; c0 frees at 250
		// -> c3, c1 at 350 -> c4, c2 at 450 -> c5.
		want := msList(0, 100, 200, 250, 350, 450)
		if got := h.dues(); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		if h.maxOutstanding != 3 {
			t.Errorf("max outstanding %d; want the ramp's target 3", h.maxOutstanding)
		}
	})
}

// TestSchedulerRateWithRampedCap: rate mode under a ramping cap; a credit
// that finds the cap full waits for the next step, keeping its Due.
func TestSchedulerRateWithRampedCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, _ := Fixed(msList(0, 10, 20, 30))
		h := newHarness(t, Options{Arrivals: a, Concurrency: 1, Count: 4,
			ConcurrencySteps: []LimitStep{{50 * ms, 4}}})
		h.run(t.Context(), nil) // credits never return
		if got := h.issueTimes(); !slices.Equal(got, msList(0, 50, 50, 50)) {
			t.Errorf("issue times = %v; want the first at once, the rest when the cap rises at 50ms", got)
		}
		if got := h.dues(); !slices.Equal(got, msList(0, 10, 20, 30)) {
			t.Errorf("dues = %v; want the schedule's", got)
		}
	})
}

// TestSchedulerSetConcurrency: an external controller lowers and raises
// the closed loop's limit; a lowered limit waits for credits to finish.
func TestSchedulerSetConcurrency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, Options{Concurrency: 2, Count: 5})
		var ctl sync.WaitGroup
		ctl.Go(func() {
			time.Sleep(50 * ms)
			h.s.SetConcurrency(1)
			time.Sleep(200 * ms)
			h.s.SetConcurrency(3)
		})
		h.run(t.Context(), func(Credit) time.Duration { return 100 * ms })
		h.wg.Wait()
		ctl.Wait()
		// c0, c1 at 0; at 100 both finish but one slot remains -> c2; c3
		// at 200; the raise at 250 frees two slots -> c4 at once.
		if got, want := h.dues(), msList(0, 0, 100, 200, 250); !slices.Equal(got, want) {
			t.Errorf("dues = %v, want %v", got, want)
		}
		if h.s.Concurrency() != 3 {
			t.Errorf("limit %d; want 3", h.s.Concurrency())
		}
	})
}

func TestGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGate(2)
		ctx := t.Context()
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * ms) // arrive in order
				if err := g.Acquire(ctx); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				time.Sleep(100 * ms)
				g.Release()
			})
		}
		time.Sleep(50 * ms)
		g.SetLimit(3) // a third holder at once
		wg.Wait()
		if !slices.Equal(order, []int{0, 1, 2, 3, 4}) {
			t.Errorf("grant order %v; want first come, first served", order)
		}
		if g.MaxHeld() != 3 {
			t.Errorf("max held %d; want 3", g.MaxHeld())
		}

		// A waiter whose context ends holds nothing and leaves the queue.
		h := NewGate(1)
		_ = h.Acquire(ctx)
		c, cancel := context.WithTimeout(ctx, 10*ms)
		defer cancel()
		if err := h.Acquire(c); err == nil {
			t.Error("Acquire on a full gate with an expiring context = nil")
		}
		h.Release()
		if err := h.Acquire(ctx); err != nil {
			t.Errorf("Acquire after the cancelled waiter left = %v", err)
		}
	})
}

func TestRunLimitSteps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.New()
		var got []issued
		RunLimitSteps(t.Context(), clk, 0, []LimitStep{{10 * ms, 2}, {30 * ms, 5}}, func(n int) {
			got = append(got, issued{c: Credit{Seq: uint64(n)}, at: clk.Now()})
		})
		if len(got) != 2 || got[0].at != 10*ms || got[0].c.Seq != 2 || got[1].at != 30*ms || got[1].c.Seq != 5 {
			t.Errorf("steps applied %+v; want 2 at 10ms, 5 at 30ms", got)
		}
	})
}
