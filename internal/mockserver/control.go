package mockserver

import (
	"net/http"
	"sync"
	"time"
)

// Control-plane paths vLLM serves and AIPerf's control hooks call
// (--reset-kv-cache, --server-profiler): POST with an empty body, any 2xx
// is success.
const (
	controlResetPrefixCache = "/reset_prefix_cache"
	controlStartProfile     = "/start_profile"
	controlStopProfile      = "/stop_profile"
)

// ControlCall is one control-plane request the mock received.
type ControlCall struct {
	Path string
	At   time.Time
}

// controlLog records the control calls, in arrival order.
type controlLog struct {
	mu    sync.Mutex
	calls []ControlCall
}

// ControlCalls returns the control-plane requests received so far, in
// order, so tests can check that a client reset the cache before its run
// and wrapped profiling in start/stop.
func (s *Server) ControlCalls() []ControlCall {
	s.controls.mu.Lock()
	defer s.controls.mu.Unlock()
	return append([]ControlCall(nil), s.controls.calls...)
}

func (c *controlLog) view() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int64{}
	for _, call := range c.calls {
		out[call.Path]++
	}
	return out
}

// control answers a control-plane POST with 200 and records it. A reset
// of the prefix cache has nothing to clear in the mock (its hits are
// simulated per prompt).
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	s.controls.mu.Lock()
	s.controls.calls = append(s.controls.calls, ControlCall{Path: r.URL.Path, At: time.Now()})
	s.controls.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}
