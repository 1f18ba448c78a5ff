package timing

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

func TestWakeAt(t *testing.T) {
	const us = time.Microsecond
	tests := []struct {
		name               string
		due, last, quantum time.Duration
		want               time.Duration
	}{
		{"no quantum: every due time", 130 * us, 100 * us, 0, 130 * us},
		{"due after the quantum: at the due time", 250 * us, 100 * us, 100 * us, 250 * us},
		{"due exactly one quantum on", 200 * us, 100 * us, 100 * us, 200 * us},
		{"due within the quantum: batched at its end", 130 * us, 100 * us, 100 * us, 200 * us},
		{"never before the due time", 5 * time.Millisecond, 0, 100 * us, 5 * time.Millisecond},
		{"negative quantum is none", 130 * us, 100 * us, -us, 130 * us},
	}
	for _, tt := range tests {
		if got := wakeAt(tt.due, tt.last, tt.quantum); got != tt.want {
			t.Errorf("%s: wakeAt(%v, %v, %v) = %v, want %v", tt.name, tt.due, tt.last, tt.quantum, got, tt.want)
		}
	}
}

// TestSchedulerQuantumBatches runs a schedule with a credit due every 30 µs
// and a 100 µs quantum in a synctest bubble (Coarse sleeper, exact fake
// time): the scheduler wakes on the quantum grid, every credit goes out at
// or after its due time and less than a quantum late, and each keeps its
// own Due.
func TestSchedulerQuantumBatches(t *testing.T) {
	const us = time.Microsecond
	synctest.Test(t, func(t *testing.T) {
		var dues []time.Duration
		for i := range 20 {
			dues = append(dues, time.Duration(i)*30*us)
		}
		arr, err := Fixed(dues)
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Arrivals: arr, Count: len(dues), Quantum: 100 * us})
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.New()
		var issued []time.Duration
		var got []Credit
		st := s.Run(t.Context(), clk, func(c Credit) {
			issued = append(issued, clk.Now())
			got = append(got, c)
		})
		if st.Issued != uint64(len(dues)) {
			t.Fatalf("issued %d, want %d", st.Issued, len(dues))
		}
		var wakes []time.Duration
		for i, c := range got {
			if c.Due != dues[i] {
				t.Errorf("credit %d: Due %v, want %v", i, c.Due, dues[i])
			}
			if late := issued[i] - c.Due; late < 0 || late >= 100*us {
				t.Errorf("credit %d (due %v) issued at %v: %v late, want [0, 100µs)", i, c.Due, issued[i], late)
			}
			if !slices.Contains(wakes, issued[i]) {
				wakes = append(wakes, issued[i])
			}
		}
		// 0 (due at start), then one wake per quantum: 100, 200, ... 600 µs
		// (the last credit is due at 570 µs).
		want := []time.Duration{0, 100 * us, 200 * us, 300 * us, 400 * us, 500 * us, 600 * us}
		if !slices.Equal(wakes, want) {
			t.Errorf("issue instants %v, want %v", wakes, want)
		}
	})
}

// TestSchedulerQuantumKeepsLastCreditInPhase: a batch wake-up that would
// fall past the phase's end is moved back to the credit's due time, so a
// credit due inside the phase is still issued.
func TestSchedulerQuantumKeepsLastCreditInPhase(t *testing.T) {
	const us = time.Microsecond
	synctest.Test(t, func(t *testing.T) {
		arr, err := Fixed([]time.Duration{0, 950 * us, 990 * us, 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Arrivals: arr, Duration: time.Millisecond, Quantum: 100 * us})
		if err != nil {
			t.Fatal(err)
		}
		clk := clock.New()
		var issued []time.Duration
		st := s.Run(t.Context(), clk, func(Credit) { issued = append(issued, clk.Now()) })
		if want := []time.Duration{0, 950 * us, 990 * us}; !slices.Equal(issued, want) {
			t.Errorf("issued at %v, want %v", issued, want)
		}
		if st.Reason != StopDuration {
			t.Errorf("reason %v, want duration", st.Reason)
		}
	})
}

func newTestWake(t *testing.T) *Wake {
	t.Helper()
	w, err := NewWake()
	if err != nil {
		if runtime.GOOS != "linux" {
			t.Skip("no timerfd on", runtime.GOOS)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// TestWakeSleepUntil runs on the real clock (a timerfd cannot live in a
// synctest bubble). It checks only that Wake never returns early, also for
// short and repeated waits where an earlier expiry could still be pending;
// how late it wakes is the machine's (bench/rate.sh measures it).
func TestWakeSleepUntil(t *testing.T) {
	w := newTestWake(t)
	clk := clock.New()
	aheads := []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 2 * time.Millisecond}
	for range 20 {
		aheads = append(aheads, 30*time.Microsecond)
	}
	for _, ahead := range aheads {
		deadline := clk.Now() + ahead
		if err := w.SleepUntil(t.Context(), clk, deadline); err != nil {
			t.Fatal(err)
		}
		if now := clk.Now(); now < deadline {
			t.Errorf("returned at %v, before the deadline %v", now, deadline)
		}
	}
}

func TestWakeSleepUntilCancel(t *testing.T) {
	w := newTestWake(t)
	clk := clock.New()
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- w.SleepUntil(ctx, clk, clk.Now()+time.Hour) }()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Already cancelled: the error even for a past deadline.
	if err := w.SleepUntil(ctx, clk, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx, past deadline: err = %v", err)
	}
	// A fresh context after a cancelled one: the old past read deadline
	// does not end the new wait early.
	deadline := clk.Now() + time.Millisecond
	if err := w.SleepUntil(t.Context(), clk, deadline); err != nil {
		t.Fatal(err)
	}
	if now := clk.Now(); now < deadline {
		t.Errorf("after reuse: returned at %v, before %v", now, deadline)
	}
}

// TestSchedulerClosesWake: Run closes a sleeper that holds a descriptor.
func TestSchedulerClosesWake(t *testing.T) {
	w, err := NewWake()
	if err != nil {
		t.Skip(err)
	}
	arr, err := Fixed([]time.Duration{0, 100 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Arrivals: arr, Count: 2, Sleeper: w, Quantum: DefaultQuantum})
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Run(t.Context(), clock.New(), func(Credit) {}); st.Issued != 2 {
		t.Fatalf("issued %d, want 2", st.Issued)
	}
	if err := w.f.Close(); err == nil {
		t.Error("the timerfd was still open after Run")
	}
}
