//go:build !linux

package timing

import (
	"context"
	"errors"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// Wake is Linux-only (it waits on a timerfd); elsewhere NewWake fails and
// AutoSleeper falls back to Precise.
type Wake struct{}

// NewWake reports that this platform has no timerfd.
func NewWake() (*Wake, error) { return nil, errors.New("timing: no timerfd on this platform") }

// Close implements io.Closer.
func (w *Wake) Close() error { return nil }

// SleepUntil implements Sleeper; it is never reached (NewWake fails).
func (w *Wake) SleepUntil(ctx context.Context, clk *clock.Clock, deadline time.Duration) error {
	return (&Coarse{}).SleepUntil(ctx, clk, deadline)
}
