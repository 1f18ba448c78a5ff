package timing

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

func TestAutoSleeper(t *testing.T) {
	tests := []struct {
		mean    time.Duration
		precise bool
	}{
		{0, true},
		{100 * time.Microsecond, true},
		{4999 * time.Microsecond, true},
		{5 * time.Millisecond, false},
		{time.Second, false},
	}
	for _, tt := range tests {
		sl := AutoSleeper(tt.mean)
		_, isPrecise := sl.(*Precise)
		if w, ok := sl.(*Wake); ok {
			isPrecise = true // the timerfd sleeper where the platform has one
			_ = w.Close()
		}
		if isPrecise != tt.precise {
			t.Errorf("AutoSleeper(%v) precise = %v, want %v", tt.mean, isPrecise, tt.precise)
		}
	}
}

// TestCoarseSleepUntil runs in a synctest bubble, where fake time makes the
// wake-up instant exact.
func TestCoarseSleepUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.New()
		var c Coarse
		for _, d := range []time.Duration{10 * time.Millisecond, 250 * time.Millisecond, time.Second} {
			if err := c.SleepUntil(t.Context(), clk, d); err != nil {
				t.Fatal(err)
			}
			if now := clk.Now(); now != d {
				t.Errorf("woke at %v, want %v", now, d)
			}
		}
		// A deadline in the past returns at once: catch-up, no waiting.
		if err := c.SleepUntil(t.Context(), clk, 0); err != nil {
			t.Fatal(err)
		}
		if now := clk.Now(); now != time.Second {
			t.Errorf("past deadline: now %v, want %v", now, time.Second)
		}
	})
}

func TestCoarseSleepUntilCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.New()
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(300 * time.Millisecond)
			cancel()
		}()
		var c Coarse
		err := c.SleepUntil(ctx, clk, time.Hour)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if now := clk.Now(); now != 300*time.Millisecond {
			t.Errorf("returned at %v, want 300ms", now)
		}
		// Already cancelled: returns the error even for a past deadline, and
		// the stopped timer is reusable afterwards.
		if err := c.SleepUntil(ctx, clk, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled ctx, past deadline: err = %v", err)
		}
		if err := c.SleepUntil(t.Context(), clk, time.Second); err != nil || clk.Now() != time.Second {
			t.Errorf("reuse after cancel: err %v, now %v", err, clk.Now())
		}
	})
}

// TestPreciseSleepUntil runs on the real clock (Precise spins, which fake
// time cannot serve). It checks only that Precise never returns early; how
// late it is is a property of the machine, not asserted.
func TestPreciseSleepUntil(t *testing.T) {
	clk := clock.New()
	var p Precise
	for _, ahead := range []time.Duration{-time.Millisecond, 0, 200 * time.Microsecond, 3 * time.Millisecond} {
		deadline := clk.Now() + ahead
		if err := p.SleepUntil(t.Context(), clk, deadline); err != nil {
			t.Fatal(err)
		}
		if now := clk.Now(); now < deadline {
			t.Errorf("returned at %v, before the deadline %v", now, deadline)
		}
	}
}

func TestPreciseSleepUntilCancel(t *testing.T) {
	clk := clock.New()

	// Cancelled while spinning: a margin longer than the wait puts Precise
	// straight into its spin loop.
	ctx, cancel := context.WithCancel(t.Context())
	p := Precise{SpinMargin: 2 * time.Hour}
	errc := make(chan error, 1)
	go func() { errc <- p.SleepUntil(ctx, clk, clk.Now()+time.Hour) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("spinning: err = %v, want context.Canceled", err)
	}

	// Cancelled while waiting on the timer.
	ctx, cancel = context.WithCancel(t.Context())
	var q Precise
	go func() { errc <- q.SleepUntil(ctx, clk, clk.Now()+time.Hour) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("on timer: err = %v, want context.Canceled", err)
	}
}
