//go:build !linux

package main

import "errors"

// openLoop is built on epoll and timerfd; the bench scripts are Linux-only.
func openLoop(openLoopConfig) (openLoopResult, error) {
	return openLoopResult{}, errors.New("benchtool openloop: Linux only")
}
