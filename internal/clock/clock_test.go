package clock

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"
)

func TestClockOffsetsAndWallAgree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New()
		if got := c.Now(); got != 0 {
			t.Fatalf("Now() at start = %v; want 0 in a synctest bubble", got)
		}
		time.Sleep(1500 * time.Millisecond) // fake time inside the bubble
		if got := c.Now(); got != 1500*time.Millisecond {
			t.Errorf("Now() = %v; want 1.5s", got)
		}
		if got := c.Until(2 * time.Second); got != 500*time.Millisecond {
			t.Errorf("Until(2s) = %v; want 500ms", got)
		}
		d := 250 * time.Millisecond
		if got, want := c.WallNanos(d), c.Start().UnixNano()+int64(d); got != want {
			t.Errorf("WallNanos(%v) = %d; want %d", d, got, want)
		}
		if got := c.Wall(d).UnixNano(); got != c.WallNanos(d) {
			t.Errorf("Wall(%v) = %d ns; WallNanos = %d", d, got, c.WallNanos(d))
		}
	})
}

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(context.Background(), 2*time.Second); err != nil || time.Since(start) != 2*time.Second {
			t.Errorf("Sleep(2s) = %v after %v; want nil after 2s", err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		if err := Sleep(ctx, time.Hour); err != context.DeadlineExceeded || time.Since(start) != time.Second {
			t.Errorf("Sleep(1h) with a 1s deadline = %v after %v; want the deadline after 1s", err, time.Since(start))
		}
	})
}

func TestAlignedClockReadsTheRemoteTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := New()
		time.Sleep(time.Second)
		// The remote clock started 3 s before base and its wall clock is
		// 10 s behind this machine's.
		remoteWall := base.Start().UnixNano() - int64(3*time.Second) - int64(10*time.Second)
		a := Aligned(base, 3*time.Second, remoteWall)
		if got := a.Now(); got != 4*time.Second {
			t.Errorf("Aligned.Now() = %v; want base's 1s + 3s", got)
		}
		time.Sleep(500 * time.Millisecond)
		if got, want := a.Now()-base.Now(), 3*time.Second; got != want {
			t.Errorf("aligned - base = %v; want a constant %v", got, want)
		}
		if got, want := a.WallNanos(time.Second), remoteWall+int64(time.Second); got != want {
			t.Errorf("WallNanos(1s) = %d; want the remote wall start + 1s = %d", got, want)
		}
	})
}

func TestSaturatingSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want time.Duration
	}{
		{0, 0},
		{0.05, 50 * time.Millisecond},
		{1e9, time.Duration(1e18)},
		{1e10, time.Duration(math.MaxInt64)},
		{math.MaxFloat64, time.Duration(math.MaxInt64)},
	}
	for _, tt := range tests {
		if got := Seconds(tt.in); got != tt.want {
			t.Errorf("Seconds(%v) = %v; want %v", tt.in, got, tt.want)
		}
	}
}
