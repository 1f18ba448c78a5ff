//go:build !linux

package main

import (
	"errors"
	"io"
)

// runMain needs /proc and wait4's rusage; the bench scripts are Linux-only.
func runMain([]string, io.Writer) (int, error) {
	return 1, errors.New("benchtool run: Linux only")
}
