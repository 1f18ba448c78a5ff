package cluster

import (
	"testing"
	"time"
)

func TestEstimatePicksTheShortestRoundTrip(t *testing.T) {
	ms := time.Millisecond
	// The controller's clock is 500 ms ahead of the worker's; its wall
	// clock started at 1e12 and the worker's wall clock is 2 ms ahead.
	const offset = 500 * time.Millisecond
	sample := func(send, up, down time.Duration) ClockSample {
		remote := send + up + offset
		recv := send + up + down
		return ClockSample{Send: send, Recv: recv, Remote: remote, RemoteWallStart: 1e12,
			LocalWall: 1e12 + int64(recv+offset) + int64(2*ms)}
	}
	tests := []struct {
		name       string
		samples    []ClockSample
		wantOffset time.Duration
		wantRTT    time.Duration
	}{
		{"symmetric trip is exact", []ClockSample{sample(0, ms, ms)}, offset, 2 * ms},
		{"queueing on the way out skews the long trip, not the short one",
			[]ClockSample{sample(0, 9*ms, ms), sample(20*ms, ms, ms), sample(40*ms, ms, 5*ms)}, offset, 2 * ms},
		{"asymmetry bounds the error by RTT/2",
			[]ClockSample{sample(0, 3*ms, ms)}, offset + ms, 4 * ms},
		{"a sample whose clock ran backwards is skipped",
			[]ClockSample{{Send: 10 * ms, Recv: 5 * ms, Remote: 0}, sample(0, ms, ms)}, offset, 2 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := Estimate(tt.samples)
			if !ok {
				t.Fatal("no estimate")
			}
			if e.Offset != tt.wantOffset || e.RTT != tt.wantRTT {
				t.Errorf("Estimate = offset %v rtt %v; want %v and %v", e.Offset, e.RTT, tt.wantOffset, tt.wantRTT)
			}
			if e.Samples != len(tt.samples) || e.WallStart != 1e12 {
				t.Errorf("samples %d wall start %d", e.Samples, e.WallStart)
			}
			if tt.name == "symmetric trip is exact" && e.WallSkew != 2*ms {
				t.Errorf("wall skew %v; want 2ms", e.WallSkew)
			}
		})
	}
	if _, ok := Estimate(nil); ok {
		t.Error("an estimate from no samples")
	}
}
