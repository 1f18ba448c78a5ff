// Package clienthealth is the load generator's judgement of itself: CPU
// use, schedule lag, achieved against scheduled request rate, its own
// queue and connection limit, and the connection events a server caused.
// Past any threshold, the client, not the server, may be what a run's
// results measure; the report says so in the summary JSON's
// client_health block, on the console and in the log.
package clienthealth

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
	"github.com/aiperf-go/aiperf/internal/timing"
	"github.com/aiperf-go/aiperf/internal/transport"
	"github.com/aiperf-go/aiperf/internal/validity"
)

// Client-health thresholds: past any of them the load generator itself,
// not the server, may be what the results measure.
const (
	// MaxCPU is the share of the CPU the process may use above which
	// it is considered saturated.
	MaxCPU = 0.85
	// MaxLagP99 is the schedule-lag p99 above which sends are late
	// enough to distort the offered load. In request-rate mode the limit is
	// the larger of this and LagShareOfGap of the mean scheduled gap:
	// a plain Go timer wakes about 1 ms late (see timing.Coarse), which
	// matters at 200 requests/s and above but not at 10/s, where warning
	// on every run would teach users to ignore the warning.
	MaxLagP99 = time.Millisecond
	// MaxLagP99ClosedLoop is the schedule-lag p99 limit of runs
	// without a request rate (concurrency, replay). A closed loop has no
	// arrival schedule to distort: a credit is issued when a slot frees,
	// and its lag is the client's hand-off time, which a busy 2-core
	// machine stretches past 1 ms without the load changing. 10 ms still
	// catches a client too slow to keep its slots full.
	MaxLagP99ClosedLoop = 10 * time.Millisecond
	// LagShareOfGap is the share of the mean scheduled gap a send may
	// be late by (p99) in request-rate mode when that exceeds 1 ms.
	LagShareOfGap = 0.05
	// MinRate is the fraction of the scheduled request rate the
	// client must achieve in request-rate mode.
	MinRate = 0.99
	// MaxCPUWaitPerWake is how long on average the client's threads may
	// wait for a CPU each time they become runnable (SchedStat): past it
	// another process on the client's cores is in its timings.
	MaxCPUWaitPerWake = validity.CPUWaitDegraded
)

// Report is the client's self-assessment of a profiling phase,
// written to the summary JSON under "client_health" (a key of this port;
// AIPerf has none) and summarised as console and log warnings. Figures that
// could not be measured are nil (left out of the JSON); every figure that
// is present is finite.
type Report struct {
	// Healthy is true when no threshold was crossed.
	Healthy bool `json:"healthy"`
	// Warnings says, one sentence each, which thresholds were crossed.
	Warnings []string `json:"warnings"`
	// CPUUtilizationPct is the process CPU time over the phase divided by
	// wall time times CPUCapacityCores, in percent.
	CPUUtilizationPct *float64 `json:"cpu_utilization_pct,omitzero"`
	// CPUPeakUtilizationPct is the highest utilisation over any one-second
	// sample of the phase (absent for phases shorter than a sample).
	CPUPeakUtilizationPct *float64 `json:"cpu_peak_utilization_pct,omitzero"`
	// CPUSeconds is the process CPU time (user + system) used in the phase.
	CPUSeconds *float64 `json:"cpu_seconds,omitzero"`
	// CPUCapacityCores is what the process can use: GOMAXPROCS, or the
	// cgroup CPU quota when that is lower.
	CPUCapacityCores *float64 `json:"cpu_capacity_cores,omitzero"`
	// CPUWaitPerWakeUs is how long on average the client's threads
	// waited for a CPU each time they became runnable in the phase (the
	// kernel's run delay over the times they were put on a CPU), in µs:
	// about how late a time stamped on waking is. CPUWaitPct is the
	// share of their runnable time that was such waiting, and
	// CPUWaitSeconds the wait itself, summed over the threads: for the
	// record, not judged (see SchedStat). Absent where the kernel does not
	// report them.
	CPUWaitPerWakeUs *float64 `json:"cpu_wait_per_wake_us,omitzero"`
	CPUWaitPct       *float64 `json:"cpu_wait_pct,omitzero"`
	CPUWaitSeconds   *float64 `json:"cpu_wait_seconds,omitzero"`
	// ScheduleLagP99Ms is schedule_lag's p99 (Sent - Due) in ms.
	ScheduleLagP99Ms *float64 `json:"schedule_lag_p99_ms,omitzero"`
	// TargetRequestRate is --request-rate (rate mode only).
	TargetRequestRate *float64 `json:"target_request_rate,omitzero"`
	// ScheduledRequestRate is the rate of the schedule actually drawn:
	// (n-1) / (last Due - first Due). It is what the achieved rate is
	// compared with, so a short Poisson run whose random schedule came out
	// slower than --request-rate is not mistaken for a slow client.
	ScheduledRequestRate *float64 `json:"scheduled_request_rate,omitzero"`
	// AchievedRequestRate is (n-1) / (last Sent - first Sent).
	AchievedRequestRate *float64 `json:"achieved_request_rate,omitzero"`
	// ConnectionRetries is how many times profiling requests were resent
	// because the keep-alive connection they were written on had been
	// closed by the server (record metadata connection_retries, summed). It
	// is not a warning: those requests did not fail, but a high count says
	// the server or a proxy closes connections it advertised as reusable.
	ConnectionRetries int `json:"connection_retries"`
	// StrayResponses is how many idle connections were closed because
	// bytes arrived on them that no request asked for (a server that
	// answered a request twice, or a proxy that mixed up connections): not
	// reused, so no record holds another request's answer.
	StrayResponses int64 `json:"stray_responses,omitzero"`
	// ServersNotReused are the servers (host:port) found to close every
	// connection after one response though they offered keep-alive; the
	// client stopped reusing connections to them.
	ServersNotReused []string `json:"servers_not_reused,omitempty"`
	firstStray       string   // the start of the first stray bytes, quoted (console only)
	// UnstreamedResponses is how many good responses of a --streaming run
	// came back as one body instead of an event stream: the server (or a
	// proxy) ignored "stream": true, so their time to first token is the
	// whole request and their inter-token latency 0. Not a client fault,
	// and no warning of its health; the console says it because the
	// streaming metrics of those requests mean nothing.
	UnstreamedResponses int `json:"unstreamed_responses,omitzero"`
	goodResponses       int // the good responses, for the console line
	// ConnectionsOpened is how many profiling requests opened their own
	// connection, so a TCP (and TLS) handshake is inside their latencies
	// (http_req_connecting > 0). --pre-connect brings it to 0.
	ConnectionsOpened int `json:"connections_opened"`
	// ConnectMeanMs is the mean connect time of those connections.
	ConnectMeanMs *float64 `json:"connect_mean_ms,omitzero"`
	// Preconnected is how many connections --pre-connect opened before the
	// first request (0 without it).
	Preconnected int `json:"preconnected"`
	// BackloggedRequests is how many request-rate credits the scheduler
	// held back because the client's own queue (credits handed to workers
	// and not yet sent, timing.DefaultBacklog) was full: the client, not
	// the server, was behind. They went out late, with their scheduled due
	// times, so the delay is in schedule_lag.
	BackloggedRequests uint64 `json:"backlogged_requests"`
	// ConnectionLimitWaits is how many requests of a request-rate phase
	// without --concurrency waited because AIPERF_HTTP_CONNECTION_LIMIT
	// (2500) requests were already in flight; they went out late, with
	// their scheduled due times (schedule_lag).
	ConnectionLimitWaits uint64 `json:"connection_limit_waits"`
	// UnsentRequests is how many requests of a duration-bound request-rate
	// phase were due before its end and never sent: the client was still
	// behind when the phase ended, and the run ended on schedule (plus the
	// grace period) instead of running on to catch up.
	UnsentRequests uint64 `json:"unsent_requests"`
	// Thresholds are the limits the figures were judged against (the lag
	// limit as it applied to this run).
	Thresholds Thresholds `json:"thresholds"`
	// HeldBy names the flags that held requests back by the user's choice
	// (--concurrency under a --request-rate, --prefill-concurrency). A
	// request waiting for their slots keeps its due time, so the wait is
	// in schedule_lag and the achieved rate; with such a limit both are
	// reported but not judged, since the client did not cause them.
	HeldBy []string `json:"held_by,omitempty"`
	// Validity is the run's verdict (VALID, DEGRADED, INVALID) with its
	// reasons, judged from these figures and the machine's (package
	// validity); nil until judged.
	Validity *validity.Verdict `json:"validity,omitempty"`
}

// Thresholds records the limits in the JSON, so a reader does not
// need this source to interpret the warnings.
type Thresholds struct {
	CPUUtilizationPct   float64 `json:"max_cpu_utilization_pct"`
	CPUWaitPerWakeUs    float64 `json:"max_cpu_wait_per_wake_us"`
	ScheduleLagP99Ms    float64 `json:"max_schedule_lag_p99_ms"`
	AchievedRateOfPlanP float64 `json:"min_achieved_rate_pct"`
}

// healthFigures are the measurements assessHealth judges; ok flags say
// which were measured.
type healthFigures struct {
	cpuSeconds, wallSeconds, capacity float64
	cpuOK                             bool
	cpuPeak                           float64 // fraction; < 0 when not sampled
	sched                             SchedStat
	schedOK                           bool

	lagP99 time.Duration
	lagOK  bool

	heldBy []string // flags whose limits the user chose hold requests (Report.HeldBy)

	rateMode            bool    // request-rate mode: the rate check applies
	target              float64 // --request-rate
	scheduled, achieved float64
	rateOK              bool // at least two sends with distinct times
}

// assessHealth is the decision table: each threshold crossed adds one
// warning; figures that were not measured are neither judged nor reported.
func assessHealth(f healthFigures) Report {
	lagLimit := f.lagLimit()
	h := Report{
		Warnings: []string{},
		HeldBy:   f.heldBy,
		Thresholds: Thresholds{
			CPUUtilizationPct:   100 * MaxCPU,
			CPUWaitPerWakeUs:    us(MaxCPUWaitPerWake),
			ScheduleLagP99Ms:    ms(lagLimit),
			AchievedRateOfPlanP: 100 * MinRate,
		},
	}
	if f.cpuOK && f.wallSeconds > 0 && f.capacity > 0 {
		util := f.cpuSeconds / (f.wallSeconds * f.capacity)
		h.CPUUtilizationPct = finitePtr(100 * util)
		h.CPUSeconds = finitePtr(f.cpuSeconds)
		h.CPUCapacityCores = finitePtr(f.capacity)
		if f.cpuPeak >= 0 {
			h.CPUPeakUtilizationPct = finitePtr(100 * f.cpuPeak)
		}
		if util > MaxCPU {
			h.Warnings = append(h.Warnings, fmt.Sprintf(
				"client CPU at %.1f%% of the %.2f cores it can use (over %.0f%%): the load generator may be the bottleneck",
				100*util, f.capacity, 100*MaxCPU))
		}
	}
	if share, ok := f.sched.WaitShare(); f.schedOK && ok {
		h.CPUWaitPct = finitePtr(100 * share)
		h.CPUWaitSeconds = finitePtr(f.sched.Wait.Seconds())
	}
	if per, ok := f.sched.WaitPerWake(); f.schedOK && ok {
		h.CPUWaitPerWakeUs = finitePtr(us(per))
		if per > MaxCPUWaitPerWake {
			h.Warnings = append(h.Warnings, fmt.Sprintf(
				"the client's threads waited %.0f µs on average for a CPU each time they became runnable (over %.0f µs): another process shares its cores, and each time it stamps on waking is late by about that much",
				us(per), us(MaxCPUWaitPerWake)))
		}
	}
	if f.lagOK {
		h.ScheduleLagP99Ms = finitePtr(ms(f.lagP99))
		if f.lagP99 > lagLimit && len(f.heldBy) == 0 {
			h.Warnings = append(h.Warnings, fmt.Sprintf(
				"schedule lag p99 is %.3f ms (over %.3g ms): requests left later than scheduled",
				ms(f.lagP99), ms(lagLimit)))
		}
	}
	if f.rateMode {
		h.TargetRequestRate = finitePtr(f.target)
		if f.rateOK {
			h.ScheduledRequestRate = finitePtr(f.scheduled)
			h.AchievedRequestRate = finitePtr(f.achieved)
			if f.achieved < MinRate*f.scheduled && len(f.heldBy) == 0 {
				h.Warnings = append(h.Warnings, fmt.Sprintf(
					"achieved request rate %.2f/s is %.1f%% of the scheduled %.2f/s (under %.0f%%): the offered load fell short",
					f.achieved, 100*f.achieved/f.scheduled, f.scheduled, 100*MinRate))
			}
		}
	}
	h.Healthy = len(h.Warnings) == 0
	return h
}

// lagLimit is the schedule-lag p99 limit: MaxLagP99, or in
// request-rate mode LagShareOfGap of the mean scheduled gap when that
// is larger (the drawn schedule's rate when known, else the target rate).
func (f *healthFigures) lagLimit() time.Duration {
	rate := f.target
	if f.rateOK && f.scheduled > 0 {
		rate = f.scheduled
	}
	if !f.rateMode {
		return MaxLagP99ClosedLoop
	}
	if !(rate > 0) {
		return MaxLagP99
	}
	gap := LagShareOfGap / rate * float64(time.Second)
	if gap > float64(MaxLagP99) && gap < float64(time.Hour) {
		return time.Duration(gap)
	}
	return MaxLagP99
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// finitePtr returns &v, or nil when v is not finite (it must never reach
// an artifact).
func finitePtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// sendSpan tracks the first and last Due and Sent of the profiling records,
// for the scheduled and achieved request rates. The pipeline's consumer is
// its only writer.
type sendSpan struct {
	n                   int
	firstDue, lastDue   time.Duration
	firstSent, lastSent time.Duration
}

func (s *sendSpan) observe(r *record.Record) {
	if s.n == 0 {
		s.firstDue, s.lastDue, s.firstSent, s.lastSent = r.Due, r.Due, r.Sent, r.Sent
	} else {
		s.firstDue, s.lastDue = min(s.firstDue, r.Due), max(s.lastDue, r.Due)
		s.firstSent, s.lastSent = min(s.firstSent, r.Sent), max(s.lastSent, r.Sent)
	}
	s.n++
}

// rates returns (n-1)/span for the due and sent times; ok is false with
// fewer than two records or a zero span.
func (s *sendSpan) rates() (scheduled, achieved float64, ok bool) {
	dueSpan, sentSpan := s.lastDue-s.firstDue, s.lastSent-s.firstSent
	if s.n < 2 || dueSpan <= 0 || sentSpan <= 0 {
		return 0, 0, false
	}
	k := float64(s.n - 1)
	return k / dueSpan.Seconds(), k / sentSpan.Seconds(), true
}

// Monitor samples the process CPU time while a phase runs: the total
// from start to stop, and the busiest one-second sample; and the time
// its threads ran and waited for a CPU from start to stop.
type Monitor struct {
	capacity  float64
	startCPU  time.Duration
	startWall time.Time
	ok        bool

	readSched            func() (SchedStat, bool)
	startSched, schedSum SchedStat
	schedOK              bool

	stopOnce sync.Once
	quit     chan struct{}
	done     chan struct{}
	peak     float64 // fraction of capacity; -1 until a sample completes

	cpu, wall float64 // totals, set by stop
}

// cpuSampleEvery is the CPU sampling period for the peak figure.
const cpuSampleEvery = time.Second

// StartMonitor starts sampling; stop it with Stop. sched reads the
// threads' run and wait times; nil reads this process's
// (ProcessSchedStat).
func StartMonitor(sched func() (SchedStat, bool)) *Monitor {
	if sched == nil {
		sched = ProcessSchedStat
	}
	m := &Monitor{capacity: CPUCapacity(), quit: make(chan struct{}), done: make(chan struct{}), peak: -1, readSched: sched}
	m.startSched, m.schedOK = sched()
	m.startCPU, m.ok = ProcessCPU()
	m.startWall = time.Now()
	if !m.ok {
		close(m.done)
		return m
	}
	go m.sample()
	return m
}

func (m *Monitor) sample() {
	defer close(m.done)
	t := time.NewTicker(cpuSampleEvery)
	defer t.Stop()
	prevCPU, prevWall := m.startCPU, m.startWall
	for {
		select {
		case <-m.quit:
			return
		case now := <-t.C:
			c, ok := ProcessCPU()
			if !ok {
				return
			}
			if w := now.Sub(prevWall).Seconds(); w > 0 && m.capacity > 0 {
				m.peak = max(m.peak, (c-prevCPU).Seconds()/(w*m.capacity))
			}
			prevCPU, prevWall = c, now
		}
	}
}

// Stop ends sampling and fixes the totals; later calls do nothing.
func (m *Monitor) Stop() {
	m.stopOnce.Do(func() {
		close(m.quit)
		<-m.done
		end, ok := ProcessCPU()
		m.ok = m.ok && ok
		m.cpu = (end - m.startCPU).Seconds()
		m.wall = time.Since(m.startWall).Seconds()
		end2, ok2 := m.readSched()
		m.schedOK = m.schedOK && ok2
		m.schedSum = end2.Sub(m.startSched)
	})
}

// Judge stops the monitor and judges the profiling phases: CPU from the
// monitor, lag p99 from the summary's schedule_lag, rates, resends and
// connections opened from the sends. rate is the phase's --request-rate,
// 0 without one; heldBy names the flags whose limits, chosen by the user,
// held requests past their due time (their lag and rate are then reported
// but not judged).
func Judge(m *Monitor, s *metrics.Summary, sends *Sends, rate float64, heldBy []string) Report {
	m.Stop()
	f := healthFigures{
		cpuSeconds: m.cpu, wallSeconds: m.wall, capacity: m.capacity, cpuOK: m.ok, cpuPeak: m.peak,
		sched: m.schedSum, schedOK: m.schedOK,
		rateMode: rate > 0, target: rate, heldBy: heldBy,
	}
	if r, ok := s.Get("schedule_lag"); ok && r.Stats != nil {
		// The summary holds display units (ms).
		f.lagP99, f.lagOK = time.Duration(math.Round(r.Stats.P99*float64(time.Millisecond))), true
	}
	f.scheduled, f.achieved, f.rateOK = sends.span.rates()
	h := assessHealth(f)
	h.ConnectionRetries = sends.retries
	sends.conns.fill(&h)
	return h
}

// NoteBacklog adds the scheduler's overload counts to h, with a warning
// when the client held credits back, left due requests unsent, or (capped,
// the phase set no --concurrency) made requests wait for the connection
// limit, connLimit (AIPERF_HTTP_CONNECTION_LIMIT).
func (h *Report) NoteBacklog(st timing.Stats, capped bool, connLimit int) {
	h.BackloggedRequests, h.UnsentRequests = st.Backlogged, st.Unsent
	if capped {
		h.ConnectionLimitWaits = st.Waited
	}
	if h.BackloggedRequests == 0 && h.UnsentRequests == 0 && h.ConnectionLimitWaits == 0 {
		return
	}
	h.Warnings = append(h.Warnings, fmt.Sprintf(
		"the client could not send as fast as scheduled: %d requests waited for its queue of %d unsent requests, %d for one of the %d requests in flight its connection limit allows (AIPERF_HTTP_CONNECTION_LIMIT), and %d due before the end were never sent (memory stays bounded; the shortfall is in schedule_lag)",
		st.Backlogged, timing.DefaultBacklog, h.ConnectionLimitWaits, connLimit, st.Unsent))
	h.Healthy = false
}

// Log writes each warning to the log, or one line saying all is well.
func Log(h Report, log *slog.Logger) {
	// Info, not Warn: the console prints the warnings once, below the
	// tables; a Warn would also print them as raw log lines before.
	for _, w := range h.Warnings {
		log.Info("client health warning: " + w)
	}
	if h.Healthy {
		log.Info("client health: no threshold crossed")
	}
	if h.ConnectionsOpened > 0 || h.Preconnected > 0 {
		log.Info("connections opened on the requests' own path (their connect time is inside their latencies; see http_req_connecting, or use --pre-connect)",
			"connections_opened", h.ConnectionsOpened, "preconnected", h.Preconnected)
	}
	if h.ConnectionRetries > 0 {
		log.Info("requests resent after the server had closed their keep-alive connection", "connection_retries", h.ConnectionRetries)
	}
	for _, s := range h.ServersNotReused {
		log.Info("the server closes every connection after one response although it offers keep-alive; its connections are no longer reused", "server", s)
	}
	if h.StrayResponses > 0 {
		log.Info("idle connections received bytes no request asked for; they were closed, not reused", "stray_responses", h.StrayResponses, "first", h.firstStray)
	}
}

// NoteConns copies the client's connection events into h.
func (h *Report) NoteConns(c transport.ConnHealth) {
	h.StrayResponses, h.ServersNotReused = c.StrayResponses, c.NotReused
	h.firstStray = c.FirstStray
}

// Console is the console text for h: one line per warning, then
// one per connection event the server caused (resends, stray responses,
// servers whose connections were not reused), empty when there is none.
func Console(h Report) string {
	var b strings.Builder
	for _, w := range h.Warnings {
		b.WriteString("Client health warning: " + w + "\n")
	}
	if h.UnstreamedResponses > 0 {
		fmt.Fprintf(&b, "Streaming: %d of %d good responses came back as one non-streamed body although --streaming asked for a stream: the server ignores \"stream\": true, so their time to first token is the whole request and their inter-token latency 0. Drop --streaming to measure the server as it answers, or enable streaming on the server.\n", h.UnstreamedResponses, h.goodResponses)
	}
	if h.ConnectionRetries > 0 {
		fmt.Fprintf(&b, "Connections: %d requests were sent again because the server closed their reused keep-alive connection before any byte of an answer (connection_retries; each reached the server at most once more).\n", h.ConnectionRetries)
	}
	for _, s := range h.ServersNotReused {
		fmt.Fprintf(&b, "Connections: %s closes every connection after one response although it offers keep-alive; its connections were no longer reused (each request opened its own).\n", s)
	}
	if h.StrayResponses > 0 {
		fmt.Fprintf(&b, "Connections: %d idle connections received bytes no request asked for (the first: %s), as from a server that answers a request twice; they were closed, so no record holds another request's answer.\n", h.StrayResponses, h.firstStray)
	}
	return b.String()
}

// CPUCapacity is how many cores the process can use: GOMAXPROCS (which
// since Go 1.25 follows the affinity mask and a cgroup limit, rounded up)
// or, when lower, the exact cgroup v2 quota.
func CPUCapacity() float64 {
	c := float64(runtime.GOMAXPROCS(0))
	if b, err := os.ReadFile("/sys/fs/cgroup/cpu.max"); err == nil {
		if q, ok := parseCPUMax(string(b)); ok {
			c = min(c, q)
		}
	}
	return c
}

// parseCPUMax reads cgroup v2's cpu.max ("QUOTA PERIOD", or "max PERIOD"
// for no limit) as a number of cores. ok is false for "max" and anything
// malformed.
func parseCPUMax(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) != 2 || f[0] == "max" {
		return 0, false
	}
	quota, err1 := strconv.ParseInt(f[0], 10, 64)
	period, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || quota <= 0 || period <= 0 {
		return 0, false
	}
	return float64(quota) / float64(period), true
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
