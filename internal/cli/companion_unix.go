//go:build unix

package cli

import (
	"errors"
	"syscall"
)

var errExecUnsupported = errors.New("exec is not supported on this platform")

// execReplace replaces the process with path; it returns only on failure.
func execReplace(path string, argv, envv []string) error { return syscall.Exec(path, argv, envv) }
