//go:build !linux

package mockserver

import "time"

// fineSleepSupported is false where the runtime's timers are already
// precise (kqueue and Windows waits take sub-millisecond timeouts) or no
// precise sleep is available; the timer alone is used.
const fineSleepSupported = false

// fineSleep is never called where fineSleepSupported is false.
func fineSleep(time.Duration) {}
