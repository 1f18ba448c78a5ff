//go:build unix

package fdlimit

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

func get() (Limit, error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return Limit{}, err
	}
	return Limit{Soft: uint64(rl.Cur), Hard: uint64(rl.Max)}, nil //nolint:unconvert // int64 on some platforms
}

func set(l Limit) error {
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: l.Soft, Max: l.Hard})
}

// nrOpen reads Linux's per-process ceiling; 0 elsewhere or when unreadable.
func nrOpen() uint64 {
	b, err := os.ReadFile("/proc/sys/fs/nr_open")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
