// Package validity decides whether a run measured the server or the
// client: VALID, DEGRADED or INVALID, with one reason per check that
// failed, from the client's own fidelity budget (send lag, unsent
// backlog, achieved rate, CPU, lost load workers, CPU governor, file
// descriptor and ephemeral-port headroom, clock offset of load workers,
// and the share of latency nothing explains).
//
// Judge is a pure function of Figures; the caller measures. A check whose
// figure was not measured is not judged. A limit the user chose
// (Figures.HeldBy: --concurrency under a --request-rate,
// --prefill-concurrency) holds requests by design, so the lag, rate and
// unsent checks it explains are reported as not judged, never as a fault.
package validity

import (
	"fmt"
	"strings"
	"time"
)

// Level is a verdict: the worst level of any check.
type Level uint8

const (
	// Valid: every judged check passed; the results measure the server.
	Valid Level = iota
	// Degraded: the client or the machine may have shifted the results;
	// they are usable with the reasons in mind.
	Degraded
	// Invalid: the run did not offer the load it reports, or the client
	// distorted it beyond use; do not compare its numbers.
	Invalid
)

// String is the verdict as the console and the JSON write it.
func (l Level) String() string {
	switch l {
	case Degraded:
		return "DEGRADED"
	case Invalid:
		return "INVALID"
	}
	return "VALID"
}

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// The checks' names (Reason.Check).
const (
	CheckSendLag     = "send_lag"
	CheckUnsent      = "unsent_backlog"
	CheckBacklog     = "client_queue"
	CheckRate        = "achieved_rate"
	CheckCPU         = "client_cpu"
	CheckCPUWait     = "client_cpu_wait"
	CheckWorkers     = "lost_workers"
	CheckGovernor    = "cpu_governor"
	CheckFD          = "fd_headroom"
	CheckPorts       = "ephemeral_ports"
	CheckClock       = "clock_offset"
	CheckUnexplained = "unexplained_time"
)

// Thresholds. Each check is DEGRADED past its first limit and, where it
// has one, INVALID past its second.
const (
	// LagInvalidFactor: a send-lag p99 this many times over its limit
	// (clienthealth's: 1 ms, 5% of the mean gap at a request rate, 10 ms
	// in a closed loop) means the offered load was reshaped.
	LagInvalidFactor = 10
	// UnsentInvalid: more than this share of the requests due never sent
	// is INVALID; fewer (a few due in the last instant of a
	// duration-bound phase) is DEGRADED.
	UnsentInvalid = 0.01
	// RateDegraded and RateInvalid are the shares of the scheduled
	// request rate the client must achieve.
	RateDegraded = 0.99
	RateInvalid  = 0.90
	// CPUDegraded is the client CPU share (of the cores it can use) above
	// which it may be the bottleneck.
	CPUDegraded = 0.85
	// CPUWaitDegraded and CPUWaitInvalid bound how long on average the
	// client's threads waited for a CPU each time they became runnable:
	// a time stamped on waking is late by about that much, and the
	// timings carry it as the server's. On an idle machine a woken thread
	// runs within microseconds (6-11 µs measured on an idle 2-core VM);
	// 100 µs is a few percent of a 5 ms inter-token latency, 1 ms a fifth.
	CPUWaitDegraded = 100 * time.Microsecond
	CPUWaitInvalid  = time.Millisecond
	// FDDegraded is the share of the open-file limit the connections the
	// run needs may use.
	FDDegraded = 0.8
	// PortsDegraded is the share of the ephemeral port range the
	// connections a run opened may use (closed ones stay in TIME_WAIT for
	// a minute, and a new one may then wait for a port).
	PortsDegraded = 0.5
	// ClockDegraded and ClockInvalid bound a load worker's clock
	// uncertainty (half its sync round trip plus its drift).
	ClockDegraded = time.Millisecond
	ClockInvalid  = 10 * time.Millisecond
	// UnexplainedDegraded is the share of the mean latency the
	// unexplained rest (network + client) may take when the server
	// reports its queue, so that the rest holds no server wait.
	UnexplainedDegraded = 0.25
)

// Figures are the measurements a verdict is made from. Each group has a
// flag saying it was measured.
type Figures struct {
	// HeldBy names the flags whose limits, chosen by the user, held
	// requests past their due times.
	HeldBy []string

	LagKnown         bool
	LagP99, LagLimit time.Duration

	// Sent is how many requests the phase sent (0: unknown). Unsent
	// requests were due before a duration-bound phase ended and never
	// sent; Backlogged waited for the client's own queue; ConnLimitWaits
	// for its connection limit.
	Sent, Unsent, Backlogged, ConnLimitWaits uint64

	RateKnown           bool
	Scheduled, Achieved float64 // requests/s

	CPUKnown bool
	CPU      float64 // fraction of the cores the process can use

	CPUWaitKnown bool
	CPUWait      time.Duration // mean wait for a CPU per time a thread became runnable

	Workers, LostWorkers int // load workers (0 without --workers)

	Governor string // the CPU frequency governor ("" when unknown)

	FDLimit, FDNeeded int // the open-file soft limit and the descriptors the run needs (0: unknown)

	PortRange, ConnectionsOpened int // ephemeral ports available, connections opened (0: unknown)

	ClockKnown       bool
	ClockUncertainty time.Duration // the worst load worker's

	UnexplainedKnown bool
	UnexplainedShare float64 // mean unexplained time / mean latency, over the records with server timing
	QueueReported    bool    // the server reported its queue time
}

// Reason is one check that did not pass, or was not judged because of a
// user's limit (Level Valid then).
type Reason struct {
	Check   string `json:"check"`
	Level   Level  `json:"level"`
	Message string `json:"message"`
}

// Verdict is a run's validity.
type Verdict struct {
	Verdict Level    `json:"verdict"`
	Reasons []Reason `json:"reasons"`
}

// Judge applies every check to f.
func Judge(f Figures) Verdict {
	j := judge{v: Verdict{Reasons: []Reason{}}, held: len(f.HeldBy) > 0}
	j.heldNote = "held by " + strings.Join(f.HeldBy, " and ") + ", a limit you chose: not judged"
	j.offeredLoad(f)
	j.clientHost(f)
	return j.v
}

// judge collects a verdict's reasons; the worst level is the verdict.
type judge struct {
	v        Verdict
	held     bool   // a limit the user chose held the load back
	heldNote string // says so, for the reasons not judged because of it
}

func (j *judge) add(check string, l Level, format string, args ...any) {
	j.v.Reasons = append(j.v.Reasons, Reason{check, l, fmt.Sprintf(format, args...)})
	j.v.Verdict = max(j.v.Verdict, l)
}

// ms is d in milliseconds, for messages.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// offeredLoad judges whether the client offered the load it was asked to:
// send lag, unsent requests, its own queues, the achieved rate. A limit
// the user chose is not judged (held).
func (j *judge) offeredLoad(f Figures) {
	add, held, heldNote := j.add, j.held, j.heldNote
	if f.LagKnown && f.LagLimit > 0 && f.LagP99 > f.LagLimit {
		switch {
		case held:
			add(CheckSendLag, Valid, "send lag p99 %.3g ms is over %.3g ms, %s", ms(f.LagP99), ms(f.LagLimit), heldNote)
		case f.LagP99 > LagInvalidFactor*f.LagLimit:
			add(CheckSendLag, Invalid, "send lag p99 %.3g ms is over %d times its limit of %.3g ms: the client reshaped the load it was asked to offer", ms(f.LagP99), LagInvalidFactor, ms(f.LagLimit))
		default:
			add(CheckSendLag, Degraded, "send lag p99 %.3g ms is over its limit of %.3g ms: requests left later than scheduled", ms(f.LagP99), ms(f.LagLimit))
		}
	}
	if f.Unsent > 0 {
		if held {
			add(CheckUnsent, Valid, "%d requests due before the end were never sent, %s", f.Unsent, heldNote)
		} else if share := float64(f.Unsent) / float64(f.Sent+f.Unsent); share > UnsentInvalid {
			add(CheckUnsent, Invalid, "%d requests due before the end were never sent (%.2g%% of those due, over %.0f%%): the client could not offer the scheduled load", f.Unsent, 100*share, 100*UnsentInvalid)
		} else {
			add(CheckUnsent, Degraded, "%d requests due before the end were never sent (%.2g%% of those due)", f.Unsent, 100*share)
		}
	}
	if f.Backlogged > 0 || f.ConnLimitWaits > 0 {
		add(CheckBacklog, Degraded, "%d requests waited for the client's queue and %d for its connection limit: they left late", f.Backlogged, f.ConnLimitWaits)
	}
	if f.RateKnown && f.Scheduled > 0 && f.Achieved < RateDegraded*f.Scheduled {
		share := f.Achieved / f.Scheduled
		switch {
		case held:
			add(CheckRate, Valid, "achieved %.4g of %.4g requests/s (%.1f%%), %s", f.Achieved, f.Scheduled, 100*share, heldNote)
		case share < RateInvalid:
			add(CheckRate, Invalid, "achieved %.4g of the scheduled %.4g requests/s (%.1f%%, under %.0f%%): the offered load fell short", f.Achieved, f.Scheduled, 100*share, 100*RateInvalid)
		default:
			add(CheckRate, Degraded, "achieved %.4g of the scheduled %.4g requests/s (%.1f%%, under %.0f%%)", f.Achieved, f.Scheduled, 100*share, 100*RateDegraded)
		}
	}
}

// clientHost judges the machine and process the client ran on: CPU, lost
// workers, the frequency governor, descriptors, ports, clocks, and the
// share of latency nobody accounts for.
func (j *judge) clientHost(f Figures) {
	add := j.add
	if f.CPUKnown && f.CPU > CPUDegraded {
		add(CheckCPU, Degraded, "the client used %.1f%% of the CPU it can use (over %.0f%%): it may be the bottleneck", 100*f.CPU, 100*CPUDegraded)
	}
	if f.CPUWaitKnown {
		switch w := f.CPUWait; {
		case w > CPUWaitInvalid:
			add(CheckCPUWait, Invalid, "the client's threads waited %.0f µs on average for a CPU each time they became runnable (over %.0f µs): another process took the client's cores, and its timings carry the wait as the server's", usOf(w), usOf(CPUWaitInvalid))
		case w > CPUWaitDegraded:
			add(CheckCPUWait, Degraded, "the client's threads waited %.0f µs on average for a CPU each time they became runnable (over %.0f µs): another process shares the client's cores", usOf(w), usOf(CPUWaitDegraded))
		}
	}
	if f.LostWorkers > 0 {
		add(CheckWorkers, Invalid, "%d of %d load workers were lost: the load they carried stopped", f.LostWorkers, f.Workers)
	}
	if f.Governor == "powersave" {
		add(CheckGovernor, Degraded, "the CPU frequency governor is powersave: the client's own time (and so time to first token) is inflated; use performance")
	}
	if f.FDLimit > 0 && f.FDNeeded > 0 {
		switch {
		case f.FDNeeded > f.FDLimit:
			add(CheckFD, Invalid, "the run needs %d file descriptors but may open %d: connections beyond that fail in the client", f.FDNeeded, f.FDLimit)
		case float64(f.FDNeeded) > FDDegraded*float64(f.FDLimit):
			add(CheckFD, Degraded, "the run needs %d of its %d file descriptors (over %.0f%%)", f.FDNeeded, f.FDLimit, 100*FDDegraded)
		}
	}
	if f.PortRange > 0 && float64(f.ConnectionsOpened) > PortsDegraded*float64(f.PortRange) {
		add(CheckPorts, Degraded, "the run opened %d connections against %d ephemeral ports (over %.0f%%): closed ones hold their port in TIME_WAIT, so new ones may wait or fail", f.ConnectionsOpened, f.PortRange, 100*PortsDegraded)
	}
	if f.ClockKnown {
		switch u := f.ClockUncertainty; {
		case u > ClockInvalid:
			add(CheckClock, Invalid, "a load worker's clock is known only to within %.3g ms (over %.3g ms): its records' times cannot be placed", ms(u), ms(ClockInvalid))
		case u > ClockDegraded:
			add(CheckClock, Degraded, "a load worker's clock is known only to within %.3g ms (over %.3g ms)", ms(u), ms(ClockDegraded))
		}
	}
	if f.UnexplainedKnown && f.QueueReported && f.UnexplainedShare > UnexplainedDegraded {
		add(CheckUnexplained, Degraded, "%.1f%% of the mean latency is neither the server's (by its own account) nor the client's send path (over %.0f%%): network or client time", 100*f.UnexplainedShare, 100*UnexplainedDegraded)
	}
}

// Console is the verdict's console text: one line, then a line per
// reason.
func Console(v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run validity: %s", v.Verdict)
	if v.Verdict == Valid {
		b.WriteString(" (every client fidelity check passed)")
	}
	b.WriteString("\n")
	for _, r := range v.Reasons {
		fmt.Fprintf(&b, "  %s %s: %s\n", r.Level, r.Check, r.Message)
	}
	return b.String()
}

// usOf is d in microseconds.
func usOf(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
