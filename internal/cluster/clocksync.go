package cluster

import (
	"context"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
)

// ClockSample is one NTP-style exchange: the worker read its own clock at
// Send and Recv, and the controller's run clock read Remote in between.
type ClockSample struct {
	Send, Recv time.Duration // the worker's clock
	Remote     time.Duration // the controller's run clock
	// RemoteWallStart is the controller's wall clock at its run clock's
	// start (Unix ns); LocalWall is the worker's wall clock at Recv.
	RemoteWallStart int64
	LocalWall       int64
}

// RTT is the sample's round trip.
func (s ClockSample) RTT() time.Duration { return s.Recv - s.Send }

// Offset is the controller's clock minus the worker's, assuming the
// request and the reply took equally long: exact to within RTT/2.
func (s ClockSample) Offset() time.Duration { return s.Remote - (s.Send+s.Recv)/2 }

// ClockEstimate is the offset a worker applies to land its records on the
// controller's timeline.
type ClockEstimate struct {
	Offset  time.Duration // controller minus worker
	RTT     time.Duration // of the sample it came from: the error bound is RTT/2
	Samples int
	// WallStart is the controller's wall clock at its run clock's start;
	// WallSkew is the worker's wall clock minus the controller's at the
	// same instant (reported, never applied: records take the
	// controller's wall clock).
	WallStart int64
	WallSkew  time.Duration
}

// Estimate picks the sample with the shortest round trip, whose offset
// has the tightest bound (queueing delays only ever lengthen a trip, and
// rarely symmetrically). ok is false without samples.
func Estimate(samples []ClockSample) (e ClockEstimate, ok bool) {
	best := -1
	for i, s := range samples {
		if s.RTT() < 0 {
			continue
		}
		if best < 0 || s.RTT() < samples[best].RTT() {
			best = i
		}
	}
	if best < 0 {
		return ClockEstimate{}, false
	}
	s := samples[best]
	remoteWallAtRecv := s.RemoteWallStart + int64(s.Remote) + int64(s.RTT()/2)
	return ClockEstimate{
		Offset:    s.Offset(),
		RTT:       s.RTT(),
		Samples:   len(samples),
		WallStart: s.RemoteWallStart,
		WallSkew:  time.Duration(s.LocalWall - remoteWallAtRecv),
	}, true
}

// Clock returns the worker clock aligned to the controller's run clock.
func (e ClockEstimate) Clock(local *clock.Clock) *clock.Clock {
	return clock.Aligned(local, e.Offset, e.WallStart)
}

func (e ClockEstimate) wire() *clusterpb.ClockSync {
	return &clusterpb.ClockSync{OffsetNs: int64(e.Offset), RttNs: int64(e.RTT), Samples: int32(e.Samples), WallSkewNs: int64(e.WallSkew)}
}

func estimateFromWire(w *clusterpb.ClockSync) ClockEstimate {
	if w == nil {
		return ClockEstimate{}
	}
	return ClockEstimate{Offset: time.Duration(w.OffsetNs), RTT: time.Duration(w.RttNs), Samples: int(w.Samples), WallSkew: time.Duration(w.WallSkewNs)}
}

// sampleClock runs n exchanges with the controller.
func sampleClock(ctx context.Context, c clusterpb.ControllerClient, local *clock.Clock, name string, n int) ([]ClockSample, error) {
	out := make([]ClockSample, 0, n)
	for range n {
		send := local.Now()
		reply, err := c.Clock(ctx, &clusterpb.ClockRequest{Worker: name})
		recv := local.Now()
		if err != nil {
			return out, err
		}
		out = append(out, ClockSample{
			Send: send, Recv: recv, Remote: time.Duration(reply.ControllerNs),
			RemoteWallStart: reply.WallStartNs, LocalWall: local.WallNanos(recv),
		})
	}
	return out, nil
}
