//go:build unix

package clienthealth

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user + system) the process has used so
// far, from getrusage(RUSAGE_SELF).
func ProcessCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
