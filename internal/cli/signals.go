package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Messages printed on stderr when an interrupt arrives.
const (
	firstInterruptMsg = "\nInterrupted: no new requests are sent; requests in flight may finish " +
		"within the grace period, then every artifact is written.\n" +
		"Press Ctrl-C again (or send SIGINT/SIGTERM) to cancel the requests in flight and stop at once.\n"
	secondInterruptMsg = "\nInterrupted again: cancelling the requests in flight; writing the artifacts " +
		"(a third interrupt kills the process without them).\n"
)

// watchInterrupts implements the two-stage stop of a run. The first
// SIGINT or SIGTERM cancels the returned context (stop issuing, drain,
// write artifacts, exit 130). The second closes abort (cancel the requests
// in flight at once, still write every artifact). After the second the
// default handling is restored, so a third terminates the process. Each
// stage prints what happens next on stderr. stop releases the signals.
func watchInterrupts(parent context.Context, stderr io.Writer) (ctx context.Context, abort <-chan struct{}, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(parent)
	aborted := make(chan struct{})
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-ch:
			fmt.Fprint(stderr, firstInterruptMsg)
			cancel()
		case <-done:
			return
		}
		select {
		case <-ch:
			signal.Stop(ch)
			fmt.Fprint(stderr, secondInterruptMsg)
			close(aborted)
		case <-done:
		}
	}()
	return ctx, aborted, func() {
		signal.Stop(ch)
		close(done)
		<-exited
		cancel()
	}
}
