package mockserver

import (
	"syscall"
	"time"
)

// fineSleepSupported reports whether fineSleep is precise here. On Linux the
// runtime's timers wait in epoll_wait, whose timeout has millisecond
// granularity, so a timer fires up to ~1 ms late (0.6 ms on average, as
// measured); nanosleep(2) wakes within ~0.1 ms.
const fineSleepSupported = true

// fineSleep blocks the calling thread in nanosleep(2) for d, resuming after
// signals (the runtime's preemption signals interrupt it). It is only used
// for the last fineSleepWindow before a deadline, on a bounded number of
// threads.
func fineSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
