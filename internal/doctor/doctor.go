// Package doctor tells, before a benchmark, what on this machine and in
// this configuration would make its numbers the client's or the
// network's rather than the server's: the CPU governor, other processes
// on the client's cores, the open-file limit and the ephemeral ports
// against the connections asked for, the network path to the server, an
// output length the server may cut short, a chat template that pushes
// the prompt across a power-of-two length bucket, a tokenizer that needs
// the network, and server metrics that cannot be read.
//
// Every check is a pure function of Facts; gathering them (facts.go,
// probe.go) reads /sys, /proc and the rlimit through injectable readers,
// so the checks are table-tested on fixtures. A check never alarms for a
// limit the user chose: an explicit ignore_eos:false, a CPU set the
// process was pinned to, a remote server.
//
// `aiperf doctor` runs them all; before every run, `aiperf profile` logs
// the cheap ones (Preflight) as warnings, and says nothing when all is
// fine.
package doctor

import (
	"fmt"
	"io"
)

// Status is a check's outcome.
type Status uint8

const (
	// OK: nothing here shifts the numbers.
	OK Status = iota
	// Warn: the numbers may carry the client's or the network's share,
	// or the run may not be the one asked for; it can still run.
	Warn
	// Fail: the run cannot measure what was asked (the server is
	// unreachable, the connections cannot be opened).
	Fail
)

// String is the status as the report prints it.
func (s Status) String() string {
	switch s {
	case Warn:
		return "WARN"
	case Fail:
		return "FAIL"
	}
	return "OK"
}

// Result is one check's outcome: what was found and, when it is not OK,
// what to do about it.
type Result struct {
	Check  string
	Status Status
	Reason string
	Fix    string // "" when there is nothing to do
}

// Line is the result as one line of the report.
func (r Result) Line() string {
	s := fmt.Sprintf("%-4s %-20s %s", r.Status, r.Check, r.Reason)
	if r.Fix != "" {
		s += "; fix: " + r.Fix
	}
	return s
}

// check is one named check over the facts.
type check struct {
	name string
	// cheap checks read only settings of the machine and the
	// configuration, which do not change during a run, in microseconds;
	// Preflight runs them before every benchmark. The others probe the
	// network or read the tokenizer, or read a state of the moment (the
	// load average), which the run's validity verdict judges on its own.
	cheap bool
	run   func(*Facts) Result
}

// checks are every check, in report order.
var checks = []check{
	{"cpu_governor", true, checkGovernor},
	{"cpu_contention", false, checkContention},
	{"open_files", false, checkOpenFiles},
	{"ephemeral_ports", true, checkPorts},
	{"network_path", false, checkNetwork},
	{"output_length", true, checkOutputLength},
	{"chat_template_isl", false, checkChatBucket},
	{"tokenizer_offline", false, checkTokenizer},
	{"server_metrics", false, checkMetrics},
}

// Run judges every check.
func Run(f *Facts) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		r := c.run(f)
		r.Check = c.name
		out = append(out, r)
	}
	return out
}

// Preflight judges the cheap checks and returns only those that are not
// OK: the warnings a run logs before it starts. The open-file limit is
// not among them: the run raises it itself and says when it cannot
// (connbudget).
func Preflight(f *Facts) []Result {
	var out []Result
	for _, c := range checks {
		if !c.cheap {
			continue
		}
		if r := c.run(f); r.Status != OK {
			r.Check = c.name
			out = append(out, r)
		}
	}
	return out
}

// Worst is the worst status of results (OK for none).
func Worst(results []Result) Status {
	w := OK
	for _, r := range results {
		w = max(w, r.Status)
	}
	return w
}

// Write prints one line per result.
func Write(w io.Writer, results []Result) error {
	for _, r := range results {
		if _, err := fmt.Fprintln(w, r.Line()); err != nil {
			return err
		}
	}
	return nil
}
