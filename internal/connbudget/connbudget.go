// Package connbudget sizes a client process for the connections a run
// holds at once. A run of tens of thousands of streams is bounded by
// descriptors, ports and memory per stream, not by CPU: the settings here
// scale with the connection count and leave small runs as they were.
package connbudget

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"runtime/debug"

	"github.com/aiperf-go/aiperf/internal/environ"
	"github.com/aiperf-go/aiperf/internal/fdlimit"
)

// ManyStreams is the connection count from which a run trades a little
// CPU for memory per stream: smaller connection buffers and less garbage
// collector headroom.
const ManyStreams = 10000

// fileSlack is the descriptors a run needs besides its connections:
// artifacts, logs, telemetry, the runtime's own.
const fileSlack = 256

// manyStreamsGC is the garbage collector's target (GOGC) for a run of
// ManyStreams or more: the heap is then mostly long-lived per-stream
// state, and the default 100 % headroom would add as much again to the
// resident size. The user's GOGC or GOMEMLIMIT wins.
const manyStreamsGC = 25

// loopbackConnsPerAddr is how many connections one loopback source
// address is given before the run dials from several: the kernel's
// ephemeral range (32768-60999 by default) holds about 28,000 ports per
// source address towards one server, minus those in TIME_WAIT.
const loopbackConnsPerAddr = 20000

// maxLoopbackSources bounds the 127.0.0.x source addresses a run uses.
const maxLoopbackSources = 32

// Budget is a run's connections: Peak, the most it may hold at once (the
// largest concurrency of any phase, or the pre-opened pool when larger),
// spread over Workers load-worker processes (--workers; 0 = this process
// alone).
type Budget struct {
	Peak    int
	Workers int
}

// PerProcess is how many of those one process holds: all of them, or
// with --workers N a worker's share (the controller holds none). Ports,
// unlike descriptors, are shared by every process, so SourceAddrs counts
// them all.
func (b Budget) PerProcess() int {
	n := b.Peak
	if w := b.Workers; w > 1 {
		n = (n + w - 1) / w
	}
	return n
}

// BufferSize is each connection's read and write buffer size: 0
// (net/http's 4 KiB) below ManyStreams, 1 KiB from there on. An LLM
// stream's chunks are a few hundred bytes, and a request body larger than
// the buffer is written through it, not copied into it.
func (b Budget) BufferSize() int {
	if b.PerProcess() < ManyStreams {
		return 0
	}
	return 1 << 10
}

// SourceAddrs returns the source addresses new connections to urls are
// dialed from: several 127.0.0.x when every server is on the IPv4
// loopback and the run may hold more connections than one address has
// ports, nil (the kernel's choice) otherwise. The whole 127.0.0.0/8 is the
// loopback, so no set-up is needed.
func (b Budget) SourceAddrs(urls []string) []net.IP {
	if b.Peak <= loopbackConnsPerAddr {
		return nil
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return nil
		}
		ip := net.ParseIP(u.Hostname())
		if ip == nil || ip.To4() == nil || !ip.IsLoopback() {
			return nil
		}
	}
	n := min((b.Peak+loopbackConnsPerAddr-1)/loopbackConnsPerAddr, maxLoopbackSources)
	addrs := make([]net.IP, n)
	for i := range addrs {
		addrs[i] = net.IPv4(127, 0, 0, byte(1+i))
	}
	return addrs
}

// TuneGC applies the GC target for a process with many streams and
// returns the function that restores the previous one.
func (b Budget) TuneGC(log *slog.Logger) (restore func()) {
	if b.PerProcess() < ManyStreams || environ.Getenv("GOGC") != "" || environ.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(manyStreamsGC)
	log.Info("many streams: garbage collector target lowered to save memory per stream (set GOGC to override)",
		"connections", b.PerProcess(), "gogc", manyStreamsGC)
	return func() { debug.SetGCPercent(old) }
}

// RaiseFileLimit raises the open-file limit to what this process's
// connections need, and warns, naming the remedy, when the system does not
// allow it: connections beyond the limit would fail with "too many open
// files". A --workers controller (worker false) holds no stream
// connections; each worker raises its own.
func (b Budget) RaiseFileLimit(worker bool, log *slog.Logger) fdlimit.Result {
	n := b.PerProcess()
	if b.Workers > 0 && !worker {
		n = 0
	}
	r := fdlimit.Raise(uint64(n + fileSlack))
	switch {
	case r.Short():
		log.Warn(b.shortMessage(r))
	case r.Changed():
		log.Info(r.String())
	}
	return r
}

// shortMessage is the warning for a limit Raise could not reach: the
// limit and the privileged remedy, and, since one process's limit is no
// bound on the run, the --workers count whose shares fit under it.
func (b Budget) shortMessage(r fdlimit.Result) string {
	msg := r.String()
	if r.After.Soft <= 2*fileSlack {
		return msg
	}
	perProcess := int(r.After.Soft) - fileSlack
	workers := (b.Peak + perProcess - 1) / perProcess
	if workers > b.Workers {
		msg += fmt.Sprintf("; or spread the connections over load-worker processes under this limit: --workers %d (%d connections each at most)", workers, perProcess)
	}
	return msg
}
