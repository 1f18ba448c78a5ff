package benchmark

import (
	"github.com/aiperf-go/aiperf/internal/clienthealth"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// Live view timing: snapshots every progressInterval; the record consumer
// rolls the meters every liveBucket; statistics cover the latest
// liveWindow buckets and sparklines the latest liveKeep.
const (
	progressInterval = 250 * time.Millisecond
	liveBucket       = time.Second
	liveWindow       = 10
	liveKeep         = 60
	liveLogLines     = 50
)

// Headline signals of the live view, by index into the meters.
const (
	sigTTFT = iota
	sigITL
	sigLatency
	sigLag
	sigRequests
	sigTokens
)

// liveSignals are what the live view shows, in its order; distributions
// in display units (ms), rates per second.
var liveSignals = []live.Signal{
	sigTTFT:     {Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms", Kind: live.Distribution},
	sigITL:      {Tag: "inter_token_latency", Header: "Inter Token Latency", Unit: "ms", Kind: live.Distribution},
	sigLatency:  {Tag: "request_latency", Header: "Request Latency", Unit: "ms", Kind: live.Distribution},
	sigLag:      {Tag: "schedule_lag", Header: "Schedule Lag", Unit: "ms", Kind: live.Distribution},
	sigRequests: {Tag: "request_throughput", Header: "Request Throughput", Unit: "requests/sec", Kind: live.Rate},
	sigTokens:   {Tag: "output_token_throughput", Header: "Output Token Throughput", Unit: "tokens/sec", Kind: live.Rate},
}

// liveMeters are the per-phase meters the record consumer writes; it is
// their only writer (observe, roll), the publisher only reads.
type liveMeters struct {
	phase [2]*live.Meter // by record.Phase
	sig   map[*metrics.Metric]int
	// byPos caches, per position in Processed.Values, the metric last seen
	// there and its signal (-1: none): records carry their values in the
	// same order, so a pointer compare replaces the map lookup.
	byPos []posSignal
}

type posSignal struct {
	m   *metrics.Metric
	sig int
}

func newLiveMeters(reg *metrics.Registry) *liveMeters {
	lm := &liveMeters{sig: map[*metrics.Metric]int{}}
	for i := range lm.phase {
		lm.phase[i] = live.NewMeter(liveSignals, liveKeep, 0)
	}
	for _, i := range []int{sigTTFT, sigITL, sigLatency} {
		if m, ok := reg.Lookup(liveSignals[i].Tag); ok {
			lm.sig[m] = i
		}
	}
	if m, ok := reg.Lookup("output_sequence_length"); ok {
		lm.sig[m] = sigTokens
	}
	return lm
}

// observe adds one processed record: its latencies, its schedule lag, one
// request and its output tokens when valid, its error type when failed.
func (lm *liveMeters) observe(p *metrics.Processed) {
	m := lm.phase[p.Record.Phase]
	m.Add(sigLag, float64(p.Record.Lag())/float64(time.Millisecond))
	if e := p.Record.Error; e != nil {
		m.Error(errorType(e))
		return
	}
	if !p.Valid {
		return
	}
	m.Count(sigRequests, 1)
	for i := range p.Values {
		v := &p.Values[i]
		if i >= len(lm.byPos) {
			lm.byPos = append(lm.byPos, posSignal{})
		}
		c := &lm.byPos[i]
		if c.m != v.Metric {
			c.m, c.sig = v.Metric, -1
			if s, ok := lm.sig[v.Metric]; ok && !v.Metric.List {
				c.sig = s
			}
		}
		switch c.sig {
		case -1:
		case sigTokens:
			m.Count(sigTokens, v.Scalar)
		default:
			m.Add(c.sig, v.Scalar)
		}
	}
}

// roll closes every meter's bucket at now.
func (lm *liveMeters) roll(now time.Duration) {
	for _, m := range lm.phase {
		m.Roll(now)
	}
}

func errorType(e *record.ErrorDetails) string {
	if e.Type != "" {
		return e.Type
	}
	return "Error"
}

// publisher builds a live.Snapshot every progressInterval from the phase
// counters, the meters and the board, and hands it to every observer, all
// from its own goroutine. It reads atomics and published buckets only:
// nothing it does can delay a request or the record consumer.
type publisher struct {
	observers []live.Observer
	clk       *clock.Clock
	counts    *[2]counters
	meters    *liveMeters
	board     *live.Board

	mu       sync.Mutex // phase changes (runner goroutine) vs ticks
	spec     *PhaseSpec
	began    time.Duration
	finished []phaseSpan // re-read on every snapshot: their last records may still be in the pipeline
	seq      uint64
	cpu      cpuSampler
	metrics  []live.Metric // cached until the meter publishes a bucket
	metSeq   uint64
	metPhase *PhaseSpec

	done    chan struct{}
	stopped chan struct{}
}

func newPublisher(observers []live.Observer, clk *clock.Clock, counts *[2]counters, meters *liveMeters, board *live.Board) *publisher {
	p := &publisher{
		observers: observers, clk: clk, counts: counts, meters: meters, board: board,
		cpu:  newCPUSampler(),
		done: make(chan struct{}), stopped: make(chan struct{}),
	}
	go p.loop()
	return p
}

// phaseSpan is a phase that ended: its spec and run-offset bounds.
type phaseSpan struct {
	spec       *PhaseSpec
	began, end time.Duration
}

// start switches the snapshots to a new phase; the previous one moves to
// Finished.
func (p *publisher) start(spec *PhaseSpec, at time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spec != nil {
		p.finished = append(p.finished, phaseSpan{p.spec, p.began, at})
	}
	p.spec, p.began = spec, at
}

func (p *publisher) loop() {
	defer close(p.stopped)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			p.publish(false)
		}
	}
}

// stop delivers the Final snapshot and ends the loop. It returns once
// every observer has handled it (the dashboard has left the screen).
func (p *publisher) stop() {
	close(p.done)
	<-p.stopped
	p.publish(true)
}

func (p *publisher) publish(final bool) {
	p.mu.Lock()
	if p.spec == nil && !final {
		p.mu.Unlock()
		return
	}
	s := p.snapshotLocked(final)
	p.mu.Unlock()
	for _, o := range p.observers {
		o.Observe(s)
	}
}

func (p *publisher) snapshotLocked(final bool) *live.Snapshot {
	p.seq++
	now := p.clk.Now()
	s := &live.Snapshot{
		Seq: p.seq, At: now, Wall: p.clk.Wall(now), Final: final,
		Window: liveWindow * liveBucket, Bucket: liveBucket,
		Logs: p.board.Logs(liveLogLines), Telemetry: p.board.Panels(),
	}
	for _, f := range p.finished {
		s.Finished = append(s.Finished, p.progress(f.spec, f.began, f.end))
	}
	if p.spec == nil {
		return s
	}
	s.Phase = p.progress(p.spec, p.began, now)
	m := p.meters.phase[p.spec.Phase]
	if seq := m.Published(); seq != p.metSeq || p.metPhase != p.spec {
		buckets := m.Recent(liveKeep)
		// Only the buckets of this phase: the meter of a phase starts
		// counting at the run's start.
		for len(buckets) > 0 && buckets[0].End <= p.began {
			buckets = buckets[1:]
		}
		p.metrics = live.Summarize(liveSignals, buckets, liveWindow)
		p.metSeq, p.metPhase = seq, p.spec
	}
	s.Metrics = p.metrics
	if bs := m.Recent(1); len(bs) > 0 {
		s.Errors = bs[0].Errors // cumulative over the phase's records
	}
	s.Health = live.Health{CPUPct: p.cpu.percent(), Cores: p.cpu.capacity, Goroutines: runtime.NumGoroutine()}
	if lag, ok := s.Metric("schedule_lag"); ok && !math.IsNaN(lag.P99) {
		s.Health.LagP99 = time.Duration(lag.P99 * float64(time.Millisecond))
	}
	return s
}

// progress reads a phase's counters; its elapsed time runs to end.
func (p *publisher) progress(spec *PhaseSpec, began, end time.Duration) live.Progress {
	c := &p.counts[spec.Phase]
	// done and errors before cancelled (the consumer adds a cancelled
	// record to cancelled first), so done-cancelled and errors-cancelled
	// may lag a record but never run ahead.
	sent, done, errs := int(c.sent.Load()), int(c.done.Load()), int(c.errors.Load())
	cancelled := int(c.cancelled.Load())
	return live.Progress{
		Phase:    spec.Phase.String(),
		Elapsed:  end - began,
		Sent:     sent,
		Done:     done,
		Errors:   errs,
		InFlight: max(0, sent-done),
		Total:    spec.Count,
		Duration: spec.Duration,
		Late:     int(c.late.Load()),
		MaxLag:   time.Duration(c.maxLag.Load()),
		Sessions: live.Sessions{
			Sent: int(c.sessions.sent.Load()), Completed: int(c.sessions.completed.Load()),
			Cancelled: int(c.sessions.cancelled.Load()), Turns: int(c.sessions.turns.Load()),
			Expected: spec.Sessions,
		},
		Cancelled:     cancelled,
		TimedOut:      c.timedOut.Load(),
		GraceTimedOut: c.graceTimedOut.Load(),
		Interrupted:   c.interrupted.Load(),
	}
}

// cpuSampler turns process CPU time into a utilisation over the latest
// second or more; the publisher's goroutine is its only user.
type cpuSampler struct {
	capacity float64
	prevCPU  time.Duration
	prevWall time.Time
	pct      float64
	ok       bool
}

func newCPUSampler() cpuSampler {
	c := cpuSampler{capacity: clienthealth.CPUCapacity(), pct: math.NaN(), prevWall: time.Now()}
	c.prevCPU, c.ok = clienthealth.ProcessCPU()
	return c
}

// percent returns the utilisation over the latest completed second.
func (c *cpuSampler) percent() float64 {
	if !c.ok || c.capacity <= 0 {
		return math.NaN()
	}
	now := time.Now()
	if w := now.Sub(c.prevWall); w >= time.Second {
		cpu, ok := clienthealth.ProcessCPU()
		if !ok {
			c.ok = false
			return math.NaN()
		}
		c.pct = 100 * (cpu - c.prevCPU).Seconds() / (w.Seconds() * c.capacity)
		c.prevCPU, c.prevWall = cpu, now
	}
	return c.pct
}
