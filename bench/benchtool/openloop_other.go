//go:build !linux

package main

import (
	"errors"
	"time"
)

// openLoop is built on epoll and timerfd; the bench scripts are Linux-only.
func openLoop(openLoopConfig) (openLoopResult, error) {
	return openLoopResult{}, errors.New("benchtool openloop: Linux only")
}

// rawTimerLates needs timerfd and epoll.
func rawTimerLates(int, time.Duration) ([]float64, error) {
	return nil, errors.New("benchtool wakefloor -sleeper raw: Linux only")
}

// processCPU is not measured off Linux.
func processCPU() time.Duration { return 0 }
