package timing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aiperf-go/aiperf/internal/clock"
)

// Wake is the pacer's sleeper for high request rates: it neither spins on
// the only P nor blocks an OS thread that must then wait for one.
//
// It waits in the runtime's network poller on a timerfd armed with
// nanosecond precision, with a read deadline at the same instant. Which of
// the two ends the wait depends on the load, and each covers the other's
// weak case:
//
//   - idle process: the poller sleeps in epoll_wait, whose timeout the
//     runtime rounds up to whole milliseconds (plain timers wake 0.5-1.1 ms
//     late); the timerfd becomes readable at its instant and ends that
//     epoll_wait at once.
//   - busy process: the poller is only consulted when the run queue is
//     empty, but every scheduling decision checks the runtime's timers, so
//     the read deadline (a runtime timer) readies the pacer as soon as the
//     goroutine on the P yields, ahead of the run queue.
//
// Nothing spins and no thread sleeps in a syscall: the pacer is an ordinary
// parked goroutine, so the cores serve the requests. A locked OS thread in
// nanosleep was measured earlier (BENCHMARKS.md, "The benchmark's own numbers"): on wake it waits
// for the single P behind the run queue, lag p99 2.4 ms.
//
// Create it with NewWake; Close releases the timerfd. One Wake serves one
// goroutine at a time, like every Sleeper. It needs real time, so it cannot
// run in a testing/synctest bubble.
type Wake struct {
	f   *os.File
	fd  int
	buf [8]byte

	// ctx is the context a cancellation hook is registered for; cancelling
	// it moves the read deadline into the past, ending the wait.
	ctx     context.Context
	stopCtx func() bool
	mu      sync.Mutex // orders the hook's deadline against SleepUntil's
}

// NewWake opens the timerfd a Wake waits on.
func NewWake() (*Wake, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timing: timerfd_create: %w", err)
	}
	// A non-blocking descriptor makes os.NewFile register it with the
	// runtime poller, so Read parks the goroutine instead of the thread.
	f := os.NewFile(uintptr(fd), "pacer-timerfd")
	if f == nil {
		_ = unix.Close(fd)
		return nil, errors.New("timing: timerfd: os.NewFile failed")
	}
	return &Wake{f: f, fd: fd}, nil
}

// Close releases the timerfd. The Wake must not be used afterwards.
func (w *Wake) Close() error {
	if w.stopCtx != nil {
		w.stopCtx()
	}
	return w.f.Close()
}

// SleepUntil implements Sleeper.
func (w *Wake) SleepUntil(ctx context.Context, clk *clock.Clock, deadline time.Duration) error {
	if ctx != w.ctx {
		w.watch(ctx)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wait := clk.Until(deadline)
		if wait <= 0 {
			return nil
		}
		spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(wait))}
		if err := unix.TimerfdSettime(w.fd, 0, &spec, nil); err != nil {
			return fmt.Errorf("timing: timerfd_settime: %w", err)
		}
		w.mu.Lock()
		err := w.f.SetReadDeadline(clk.Start().Add(deadline))
		w.mu.Unlock()
		if err != nil {
			return fmt.Errorf("timing: timerfd deadline: %w", err)
		}
		// A cancellation between the check above and the deadline just
		// set would be overwritten by it: look again.
		if err := ctx.Err(); err != nil {
			return err
		}
		// Either way of waking (expiry read, deadline exceeded) loops back
		// to the clock; a stale expiry from an earlier wait only costs one
		// more turn.
		if _, err := w.f.Read(w.buf[:]); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("timing: timerfd read: %w", err)
		}
	}
}

// watch registers the cancellation hook for ctx, replacing the previous
// one.
func (w *Wake) watch(ctx context.Context) {
	if w.stopCtx != nil {
		w.stopCtx()
	}
	w.ctx = ctx
	w.stopCtx = context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		_ = w.f.SetReadDeadline(time.Unix(1, 0))
	})
}
