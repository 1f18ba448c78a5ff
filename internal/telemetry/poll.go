// Package telemetry holds what the telemetry sources share: the polling
// loop every collector runs on, and the live view of the latest samples
// that progress displays read (Live).
//
// The sources themselves are one package each: prom (Prometheus pages),
// servermetrics (the inference server's /metrics), gpu (GPU telemetry and
// its exports), dcgm (DCGM exporters), nvml (local NVIDIA GPUs) and energy
// (the energy-efficiency metrics derived from GPU telemetry).
package telemetry

import (
	"context"
	"time"
)

// Poll calls fn every interval on absolute deadlines from its start
// (start, start+interval, ...) until ctx ends. A call that overruns skips
// the deadlines it missed rather than running late calls back to back, so
// samples stay on the grid. fn gets ctx and should return promptly when it
// ends. Poll returns when ctx ends. The first call is one interval after
// the start (callers take their first sample themselves).
func Poll(ctx context.Context, interval time.Duration, fn func(context.Context)) {
	if interval <= 0 {
		interval = time.Second
	}
	start := time.Now()
	timer := time.NewTimer(interval)
	defer timer.Stop()
	n := int64(1)
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		fn(ctx)
		if ctx.Err() != nil {
			return
		}
		// Next deadline strictly in the future.
		elapsed := time.Since(start)
		n = max(n+1, int64(elapsed/interval)+1)
		timer.Reset(time.Duration(n)*interval - elapsed)
	}
}
