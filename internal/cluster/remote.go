package cluster

import (
	"fmt"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/cluster/clusterpb"
)

type workerState uint8

const (
	stateJoining workerState = iota // said hello, has not reported ready
	stateReady                      // takes credits
	stateFailed                     // could not build its part of the run
	stateLost                       // its stream ended during the run
)

func (s workerState) String() string {
	switch s {
	case stateJoining:
		return "joining"
	case stateReady:
		return "ready"
	case stateFailed:
		return "failed"
	}
	return "lost"
}

// remote is the controller's view of one worker. index, id, hello and out
// never change; the state fields are guarded by the Controller's mutex,
// the clock and counters by their own.
type remote struct {
	index  int
	id     string
	hello  *clusterpb.Hello
	out    *outbox
	joined time.Duration // run-clock offset of the hello

	state workerState
	err   error // why it failed or was lost

	mu           sync.Mutex
	clockFirst   ClockEstimate
	clockLast    ClockEstimate
	clockDrift   time.Duration // the largest |offset - first offset| reported
	requests     int           // requests it reported sent
	records      int           // records it returned
	lostInFlight int           // requests in flight when it was lost
}

func (r *remote) describe() string {
	return fmt.Sprintf("%s on %s, pid %d", r.hello.Name, r.hello.Host, r.hello.Pid)
}

// noteClock records a worker's new clock estimate.
func (r *remote) noteClock(e ClockEstimate) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clockLast = e
	d := e.Offset - r.clockFirst.Offset
	r.clockDrift = max(r.clockDrift, d, -d)
}

func (r *remote) count(requests, records int) {
	r.mu.Lock()
	r.requests += requests
	r.records += records
	r.mu.Unlock()
}

// WorkerInfo is what the run reports of one load worker (cluster.json).
type WorkerInfo struct {
	ID    string `json:"id"`
	Index int    `json:"index"`
	Name  string `json:"name"`
	Host  string `json:"host"`
	PID   int64  `json:"pid"`
	// State is ready, lost, failed or joining (as the run ended).
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// JoinedNs is when it said hello, on the run clock.
	JoinedNs int64 `json:"joined_ns"`
	// ClockOffsetNs is the worker's measured offset to the controller's
	// run clock (controller minus worker) at hello, exact to within
	// ClockRTTNs/2; every timestamp of its records was shifted by it.
	ClockOffsetNs int64 `json:"clock_offset_ns"`
	ClockRTTNs    int64 `json:"clock_rtt_ns"`
	ClockSamples  int   `json:"clock_samples"`
	// ClockLastOffsetNs is its latest estimate; ClockDriftNs the largest
	// change from the first one seen during the run.
	ClockLastOffsetNs int64 `json:"clock_last_offset_ns"`
	ClockDriftNs      int64 `json:"clock_drift_ns"`
	// WallSkewNs is its wall clock minus the controller's (not applied:
	// records carry the controller's wall clock).
	WallSkewNs int64 `json:"wall_skew_ns"`
	// Requests it sent and records it returned; LostInFlight are the
	// requests that were in flight when it was lost (recorded as errors).
	Requests     int `json:"requests"`
	Records      int `json:"records"`
	LostInFlight int `json:"lost_in_flight,omitempty"`
}

// info snapshots r; the Controller's mutex is held (for state and err).
func (r *remote) info() WorkerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	wi := WorkerInfo{
		ID: r.id, Index: r.index, Name: r.hello.Name, Host: r.hello.Host, PID: r.hello.Pid,
		State: r.state.String(), JoinedNs: int64(r.joined),
		ClockOffsetNs: int64(r.clockFirst.Offset), ClockRTTNs: int64(r.clockFirst.RTT), ClockSamples: r.clockFirst.Samples,
		ClockLastOffsetNs: int64(r.clockLast.Offset), ClockDriftNs: int64(r.clockDrift), WallSkewNs: int64(r.clockFirst.WallSkew),
		Requests: r.requests, Records: r.records, LostInFlight: r.lostInFlight,
	}
	if r.err != nil && r.state != stateReady {
		wi.Error = r.err.Error()
	}
	return wi
}
