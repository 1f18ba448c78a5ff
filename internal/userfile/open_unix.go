//go:build unix

package userfile

import (
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a final symbolic
// link and without blocking on a FIFO that appeared after the checks.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// openNonBlocking opens path read-only, following links, without blocking
// on a FIFO that appeared after the checks.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
