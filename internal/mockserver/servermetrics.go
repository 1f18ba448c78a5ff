package mockserver

import (
	"math"
	"sync"
	"time"
)

// Histogram bucket bounds, in the units of each histogram, as vLLM v1
// declares them (the other styles reuse them: what matters is that the
// buckets are realistic, not which engine chose them).
var (
	ttftBounds = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
		1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBounds = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
		1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	e2eBounds = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
		40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
	tokenBounds = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000}
)

// histogram is a Prometheus histogram: per-bucket counts (not cumulative;
// the exposition cumulates them), their sum and count. Guarded by the
// owning serverStats' mutex.
type histogram struct {
	bounds []float64
	counts []uint64 // len(bounds)+1; the last is the +Inf bucket
	sum    float64
	count  uint64
}

func newHistogram(bounds []float64) histogram {
	return histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

// observe adds v to the bucket whose bound is the first >= v (Prometheus
// "le" semantics).
func (h *histogram) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i]++
	h.sum += v
	h.count++
}

// histSnapshot is a copy of a histogram, safe to render without the lock.
type histSnapshot struct {
	bounds     []float64
	cumulative []uint64 // len(bounds)+1, cumulative counts; the last is +Inf
	sum        float64
	count      uint64
}

func (h *histogram) snapshot() histSnapshot {
	cum := make([]uint64, len(h.counts))
	var run uint64
	for i, c := range h.counts {
		run += c
		cum[i] = run
	}
	return histSnapshot{bounds: h.bounds, cumulative: cum, sum: h.sum, count: h.count}
}

// serverStats is what the mock really did, for its /metrics page and the
// DCGM exporter: every value follows the requests it served, so a client
// scraping it can check its own numbers against the server's. One mutex
// guards everything, so a scrape sees a consistent snapshot (a histogram's
// buckets always add up to its count; the generation-token counter always
// equals the tokens written so far).
type serverStats struct {
	mu sync.Mutex

	running  int   // requests between arrival and their last byte, see request.finish
	kvTokens int64 // prompt + generated tokens of the running requests

	requests         uint64 // requests received (parsed)
	promptTokens     uint64
	generationTokens uint64 // content tokens written
	prefixQueries    uint64 // prompt tokens looked up in the (simulated) prefix cache
	prefixHits       uint64
	finished         map[string]uint64 // successful requests by finish reason
	aborted          uint64            // requests that ended early (client gone, faults)

	ttft, itl, e2e, queue histogram
	promptLen, genLen     histogram
}

func newServerStats() *serverStats {
	return &serverStats{
		finished:  map[string]uint64{},
		ttft:      newHistogram(ttftBounds),
		itl:       newHistogram(itlBounds),
		e2e:       newHistogram(e2eBounds),
		queue:     newHistogram(ttftBounds),
		promptLen: newHistogram(tokenBounds),
		genLen:    newHistogram(tokenBounds),
	}
}

// prefixHitTokens is the simulated prefix-cache hit of a prompt of isl
// tokens: 30 to 60 % of it, fixed by the prompt's seed, as AIPerf's mock
// simulates cached tokens.
func prefixHitTokens(isl int, seed uint32) int {
	return isl * (30 + int(seed%31)) / 100
}

// request tracks one inference request in the statistics. Its methods are
// called from the request's own handler goroutine only.
type request struct {
	st       *serverStats
	arrival  time.Time
	last     time.Time // when the previous token was written; zero before the first
	isl      int
	tokens   int
	finished bool
}

// begin counts a parsed request as running from arrival.
func (st *serverStats) begin(arrival time.Time, isl int, seed uint32) *request {
	hits := prefixHitTokens(isl, seed)
	st.mu.Lock()
	st.running++
	st.kvTokens += int64(isl)
	st.requests++
	st.promptTokens += uint64(isl)
	st.prefixQueries += uint64(isl)
	st.prefixHits += uint64(hits)
	st.queue.observe(0) // no queue: every request is scheduled at once
	st.promptLen.observe(float64(isl))
	st.mu.Unlock()
	return &request{st: st, arrival: arrival, isl: isl}
}

// token counts n content tokens written at now: the first is the time to
// first token, each later one an inter-token gap.
func (r *request) token(now time.Time, n int) {
	if n <= 0 {
		return
	}
	st := r.st
	st.mu.Lock()
	if r.last.IsZero() {
		st.ttft.observe(now.Sub(r.arrival).Seconds())
	} else {
		st.itl.observe(now.Sub(r.last).Seconds())
	}
	st.generationTokens += uint64(n)
	st.kvTokens += int64(n)
	st.mu.Unlock()
	r.last = now
	r.tokens += n
}

// finish ends a successful request at now, before its last bytes are
// written: a client cannot have seen the end of a request the server still
// counts as running, so the running gauge never exceeds the client's
// requests in flight.
func (r *request) finish(now time.Time, reason string) { r.end(now, reason) }

// abort ends a request that did not finish (client gone, injected fault,
// server closing); a no-op after finish.
func (r *request) abort() { r.end(time.Time{}, "") }

// end takes the request out of the running set; a zero now marks an abort.
func (r *request) end(now time.Time, reason string) {
	if r.finished {
		return
	}
	r.finished = true
	st := r.st
	st.mu.Lock()
	defer st.mu.Unlock()
	st.running--
	st.kvTokens -= int64(r.isl + r.tokens)
	if now.IsZero() {
		st.aborted++
		return
	}
	st.finished[reason]++
	st.e2e.observe(now.Sub(r.arrival).Seconds())
	st.genLen.observe(float64(r.tokens))
}

// statsSnapshot is a consistent copy of serverStats.
type statsSnapshot struct {
	waiting                                  int // queued for the batching engine; 0 without it
	running                                  int
	kvTokens                                 int64
	requests, promptTokens, generationTokens uint64
	prefixQueries, prefixHits, aborted       uint64
	finished                                 map[string]uint64
	ttft, itl, e2e, queue, promptLen, genLen histSnapshot
}

// success is the number of requests that finished normally.
func (s *statsSnapshot) success() uint64 {
	var n uint64
	for _, c := range s.finished {
		n += c
	}
	return n
}

func (st *serverStats) snapshot() statsSnapshot {
	st.mu.Lock()
	defer st.mu.Unlock()
	fin := make(map[string]uint64, len(st.finished))
	for k, v := range st.finished {
		fin[k] = v
	}
	return statsSnapshot{
		running: st.running, kvTokens: st.kvTokens,
		requests: st.requests, promptTokens: st.promptTokens, generationTokens: st.generationTokens,
		prefixQueries: st.prefixQueries, prefixHits: st.prefixHits, aborted: st.aborted,
		finished: fin,
		ttft:     st.ttft.snapshot(), itl: st.itl.snapshot(), e2e: st.e2e.snapshot(),
		queue: st.queue.snapshot(), promptLen: st.promptLen.snapshot(), genLen: st.genLen.snapshot(),
	}
}

// GenerationTokens returns the content tokens the server has written so
// far: the ground truth of every style's generation-token counter.
func (s *Server) GenerationTokens() uint64 {
	s.stats.mu.Lock()
	defer s.stats.mu.Unlock()
	return s.stats.generationTokens
}

// kvUsage is the fraction of the simulated KV cache the running requests
// hold, capped at 1.
func kvUsage(kvTokens int64, capacity int) float64 {
	if capacity <= 0 {
		return 0
	}
	return math.Min(1, float64(max(kvTokens, 0))/float64(capacity))
}
