package benchmark

import "github.com/aiperf-go/aiperf/internal/config"

// compatNotes lists the AIPerf options that were given but have no effect
// here, each with the reason, so that the log says so rather than the
// option being silently ignored (docs/aiperf-compat.md has the table).
func compatNotes(cfg *config.Config) []string {
	x := &cfg.Compat
	const bus = ": AIPerf's internal ZMQ message bus; this implementation runs in one process without one"
	var notes []string
	if x.ZMQHost != "" {
		notes = append(notes, "--zmq-host has no effect"+bus)
	}
	if x.ZMQIPCPath != "" {
		notes = append(notes, "--zmq-ipc-path has no effect"+bus)
	}
	if x.ZMQDualBind {
		notes = append(notes, "--zmq-dual-bind has no effect"+bus)
	}
	if x.WorkersMax != nil {
		notes = append(notes, "--workers-max has no effect: every request in flight has its own goroutine; --concurrency and --request-rate bound the load")
	}
	if x.UnsafeOverride && x.Scenario == "" {
		notes = append(notes, "--unsafe-override has no effect without --scenario")
	}
	return notes
}
