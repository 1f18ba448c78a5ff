package live

import (
	"math"
	"time"
)

// Observer watches a run. The publisher calls Observe from one goroutine,
// a few times a second, with snapshots in Seq order; the last one has
// Final set. Observe must return quickly (it delays the next snapshot for
// every observer, never the requests), must not modify s, and may keep s.
// On the Final snapshot an observer releases what it holds (a terminal, a
// connection) before returning: what the run prints next (the result
// tables) follows at once.
type Observer interface {
	Observe(s *Snapshot)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(s *Snapshot)

// Observe calls f(s).
func (f ObserverFunc) Observe(s *Snapshot) { f(s) }

var _ Observer = ObserverFunc(nil)

// Snapshot is the state of a run at one instant, as plain values.
type Snapshot struct {
	// Seq numbers the run's snapshots from 1.
	Seq uint64
	// At is when the snapshot was taken, as an offset from the run's start
	// (monotonic); Wall is the same instant on the wall clock.
	At   time.Duration
	Wall time.Time
	// Phase is the phase running now, or the last one to run.
	Phase Progress
	// Finished lists the phases that ended before Phase, in run order.
	Finished []Progress
	// Window is the span the Metrics statistics cover (the latest buckets);
	// Bucket is the width of one Series point.
	Window, Bucket time.Duration
	// Metrics are the headline metrics of the phase running now, over the
	// latest Window: distributions (latencies) and rates (throughputs).
	Metrics []Metric
	// Errors counts the failed requests of the phase running now, by
	// error type, most frequent first.
	Errors []ErrorCount
	// Health is how the load generator itself is doing.
	Health Health
	// Telemetry holds the latest server and GPU telemetry panels, ordered
	// by Source then Title; empty when no telemetry is collected.
	Telemetry []Panel
	// Logs are the most recent log lines, oldest first.
	Logs []LogLine
	// Final marks the last snapshot of the run.
	Final bool
}

// Metric returns the headline metric with tag, if the snapshot has it.
func (s *Snapshot) Metric(tag string) (Metric, bool) {
	for _, m := range s.Metrics {
		if m.Tag == tag {
			return m, true
		}
	}
	return Metric{}, false
}

// Progress is how far one phase has got. Counts are requests (turns).
type Progress struct {
	Phase    string        // "warmup" or "profiling"
	Elapsed  time.Duration // since the phase started
	Sent     int           // requests sent so far
	Done     int           // requests finished (success or error)
	Errors   int           // finished with an error
	InFlight int           // sent, not yet finished
	Total    int           // expected requests; 0 when the phase is bounded by time only
	Duration time.Duration // the phase's time bound; 0 when bounded by count only
	Late     int           // sends more than 1 ms behind schedule
	MaxLag   time.Duration // the largest schedule lag seen so far
	// Cancelled counts the finished requests the client cancelled (grace
	// expiry, interrupt); they are in Done and Errors too. AIPerf counts
	// them apart: its completed is Done-Cancelled, its errors
	// Errors-Cancelled (see Completed and Failed).
	Cancelled int
	Sessions  Sessions
	// How the phase ended, as AIPerf flags it: its duration ran out
	// (TimedOut), its grace period ran out with requests still in flight
	// (GraceTimedOut), an interrupt stopped it (Interrupted).
	TimedOut, GraceTimedOut, Interrupted bool
}

// Sessions counts a phase's user sessions (conversations; with a
// single-turn dataset every request is one): started, ended (completed or
// with its last request cancelled) and the turns the started ones may send.
type Sessions struct {
	Sent, Completed, Cancelled, Turns int
	Expected                          int // the phase's session bound (--num-sessions); 0 when none
}

// InFlight is the sessions started and not yet ended.
func (s Sessions) InFlight() int { return max(0, s.Sent-s.Completed-s.Cancelled) }

// Completed is AIPerf's requests_completed: finished and not cancelled.
func (p Progress) Completed() int { return p.Done - p.Cancelled }

// Failed is AIPerf's request_errors: finished with an error, not cancelled.
func (p Progress) Failed() int { return max(0, p.Errors-p.Cancelled) }

// Fraction is how far the phase has progressed, in [0, 1], by count or by
// time, whichever is further; -1 when neither bound is known.
func (p Progress) Fraction() float64 {
	f := -1.0
	if p.Total > 0 {
		f = float64(p.Done) / float64(p.Total)
	}
	if p.Duration > 0 {
		f = max(f, float64(p.Elapsed)/float64(p.Duration))
	}
	return min(f, 1)
}

// Rate is the completion rate so far, in requests per second.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Done) / p.Elapsed.Seconds()
}

// ETA estimates the time left in the phase from its progress so far:
// elapsed * (1-f)/f. It is false before any progress or when no bound is
// known.
func (p Progress) ETA() (time.Duration, bool) {
	f := p.Fraction()
	if f <= 0 {
		return 0, false
	}
	return time.Duration(float64(p.Elapsed) * (1 - f) / f), true
}

// Kind says how a Metric's values are summarised.
type Kind uint8

// Metric kinds.
const (
	// Distribution metrics are one value per request (a latency);
	// statistics are over the requests finished in the window, and each
	// Series point is a bucket's median.
	Distribution Kind = iota
	// Rate metrics are counts per second (a throughput); statistics are
	// over the window's per-bucket rates, and each Series point is a
	// bucket's rate.
	Rate
)

// Metric is one headline metric over the latest window. Statistics are
// NaN when the window holds no value.
type Metric struct {
	Tag    string // AIPerf's metric tag, e.g. "time_to_first_token"
	Header string // display name, e.g. "Time to First Token"
	Unit   string // display unit, e.g. "ms"
	Kind   Kind
	// Count is the number of values the statistics cover: requests for a
	// Distribution, buckets for a Rate.
	Count         int
	Avg, P50, P99 float64
	// Series holds one point per bucket, oldest first, ending with the
	// latest bucket; NaN marks a bucket without values.
	Series []float64
}

// ErrorCount is how many requests failed with one error type.
type ErrorCount struct {
	Type  string
	Count int
}

// Health is the load generator's own state.
type Health struct {
	// CPUPct is the process CPU use over the last second as a percentage
	// of the CPU it may use; NaN when unknown.
	CPUPct float64
	// Cores is the CPU capacity CPUPct is relative to.
	Cores float64
	// LagP99 is the p99 schedule lag (Sent - Due) over the window.
	LagP99 time.Duration
	// Goroutines is the process's goroutine count.
	Goroutines int
}

// Panel is one group of telemetry gauges from one source, such as one GPU
// of a DCGM exporter or one server's /metrics.
type Panel struct {
	Source string        // the kind of telemetry: "server_metrics", "gpu_telemetry", ...
	Title  string        // what the gauges describe, e.g. "gpu_0 NVIDIA H100 @ localhost:9400"
	At     time.Duration // when the gauges were sampled (run offset)
	Gauges []Gauge
}

// Gauge is one telemetry value and its recent history.
type Gauge struct {
	Name  string  // e.g. "nvidia_gpu_utilization" or "vllm:num_requests_running"
	Unit  string  // e.g. "%", "W", "requests"
	Value float64 // the latest sample
	// Series holds recent samples, oldest first, ending with Value; it may
	// be empty.
	Series []float64
}

// LogLine is one log record as the run's logger wrote it.
type LogLine struct {
	Time    time.Time
	Level   string // "DEBUG", "INFO", "WARN", "ERROR", ...
	Message string // the message followed by its attributes as key=value
}

// nan is a NaN, for statistics with no value.
var nan = math.NaN()
