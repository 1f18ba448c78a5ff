package benchmark

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/aiperf-go/aiperf/internal/fdlimit"
)

// Many concurrent streams (issue 19, item 8): a run that holds tens of
// thousands of streams is bounded by descriptors and by memory per
// stream, not by CPU. The settings here scale with the run's connection
// count and leave small runs as they were.

// manyStreams is the connection count from which a run trades a little
// CPU for memory per stream: smaller connection buffers and less garbage
// collector headroom.
const manyStreams = 10000

// fileSlack is the descriptors a run needs besides its connections:
// artifacts, logs, telemetry, the runtime's own.
const fileSlack = 256

// peakConnections is how many connections the run may hold at once: the
// largest concurrency of any phase, or the pre-opened pool when larger.
func peakConnections(p *Plan) int {
	need := p.Profiling.Concurrency
	for _, ph := range p.Phases {
		need = max(need, ph.Concurrency)
	}
	if n := p.Config.PreConnections(); n > 0 {
		need = max(need, n*max(len(baseURLs(p)), 1))
	}
	return need
}

// processConnections is how many of those one process holds: all of
// them, or with --workers N a worker's share (the controller holds none).
// Ports, unlike descriptors, are shared by every process, so sourceAddrs
// counts them all.
func processConnections(p *Plan) int {
	n := peakConnections(p)
	if w := p.Config.Cluster.Workers; w > 1 {
		n = (n + w - 1) / w
	}
	return n
}

// connBufferSize is each connection's read and write buffer size: 0
// (net/http's 4 KiB) below manyStreams, 1 KiB from there on. An LLM
// stream's chunks are a few hundred bytes, and a request body larger than
// the buffer is written through it, not copied into it.
func connBufferSize(p *Plan) int {
	if processConnections(p) < manyStreams {
		return 0
	}
	return 1 << 10
}

// manyStreamsGC is the garbage collector's target (GOGC) for a run of
// manyStreams or more: the heap is then mostly long-lived per-stream
// state, and the default 100 % headroom would add as much again to the
// resident size. The user's GOGC or GOMEMLIMIT wins.
const manyStreamsGC = 25

// tuneForStreams applies the GC target for a run with many streams and
// returns the function that restores the previous one.
func tuneForStreams(p *Plan, log *slog.Logger) (restore func()) {
	if processConnections(p) < manyStreams || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(manyStreamsGC)
	log.Info("many streams: garbage collector target lowered to save memory per stream (set GOGC to override)",
		"connections", processConnections(p), "gogc", manyStreamsGC)
	return func() { debug.SetGCPercent(old) }
}

// raiseFileLimit raises the open-file limit to what this process's
// connections need, and warns, naming the remedy, when the system does not
// allow it: connections beyond the limit would fail with "too many open
// files". A --workers controller holds no stream connections; each worker
// raises its own.
func raiseFileLimit(p *Plan, worker bool, log *slog.Logger) fdlimit.Result {
	n := processConnections(p)
	if p.Config.Cluster.Workers > 0 && !worker {
		n = 0
	}
	r := fdlimit.Raise(uint64(n + fileSlack))
	switch {
	case r.Short():
		log.Warn(r.String())
	case r.Changed():
		log.Info(r.String())
	}
	return r
}
