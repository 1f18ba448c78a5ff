package config

import (
	"math"
	"strings"
)

// Compat holds the AIPerf options that exist because of AIPerf's process
// model (ZMQ message bus, worker and record-processor processes, the
// realtime stats publisher) and its scenario lock. Each is accepted with
// AIPerf's name and either mapped to the nearest setting here or
// documented as having no effect (docs/aiperf-compat.md); none is silently
// different.
type Compat struct {
	// Scenario locks the invariants of a named benchmark scenario
	// (--scenario); "" = none. See ScenarioSpecs.
	Scenario string `json:"scenario,omitempty"`
	// UnsafeOverride downgrades scenario violations to warnings and marks
	// the run submission_valid=false (--unsafe-override); no effect
	// without Scenario.
	UnsafeOverride bool `json:"unsafe_override,omitzero"`

	// ZMQHost, ZMQIPCPath and ZMQDualBind configure AIPerf's internal ZMQ
	// bus between its services. This implementation is one process with
	// no message bus: they are accepted and have no effect.
	ZMQHost     string `json:"zmq_host,omitempty"`
	ZMQIPCPath  string `json:"zmq_ipc_path,omitempty"`
	ZMQDualBind bool   `json:"zmq_dual_bind,omitzero"`

	// WorkersMax caps AIPerf's worker processes (--workers-max). Here every
	// request in flight has its own goroutine and no pool of processes
	// bounds them, so it is accepted and has no effect (load is bounded by
	// --concurrency and --request-rate alone, as in AIPerf).
	WorkersMax *int `json:"workers_max,omitempty"`
	// RecordProcessors is the number of record-processor goroutines that
	// parse, tokenize and measure finished requests
	// (--record-processor-service-count, AIPerf's record-processor
	// services); nil = one per usable CPU (GOMAXPROCS).
	RecordProcessors *int `json:"record_processor_service_count,omitempty"`
	// StatsIntervalSeconds is how often the live statistics block is written
	// to the log (--stats-interval); nil = AIPerf's default (5 s with the
	// dashboard, 30 s otherwise), 0 = never. The live views refresh on
	// their own clock either way.
	StatsIntervalSeconds *float64 `json:"stats_interval,omitempty"`
}

// Default --stats-interval values, as in AIPerf 0.13.
const (
	DefaultStatsInterval          = 30.0 // seconds
	DefaultDashboardStatsInterval = 5.0
)

// StatsInterval returns the resolved --stats-interval in seconds: the
// given value, or AIPerf's default for the UI in use (see UIType).
func (c *Config) StatsInterval(isTTY bool) float64 {
	if v := c.Compat.StatsIntervalSeconds; v != nil {
		return *v
	}
	if c.UIType(isTTY) == UIDashboard {
		return DefaultDashboardStatsInterval
	}
	return DefaultStatsInterval
}

func (c *Config) validateCompat(p *problems) {
	x := &c.Compat
	if x.WorkersMax != nil && *x.WorkersMax < 1 {
		p.add("--workers-max", "must be >= 1, got %d", *x.WorkersMax)
	}
	if x.RecordProcessors != nil && *x.RecordProcessors < 1 {
		p.add("--record-processor-service-count", "must be >= 1, got %d", *x.RecordProcessors)
	}
	if v := x.StatsIntervalSeconds; v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
		p.add("--stats-interval", "must be a finite number of seconds >= 0, got %v", *v)
	}
	if x.Scenario != "" {
		if _, ok := ScenarioSpecs()[x.Scenario]; !ok {
			p.add("--scenario", "unknown scenario %q (valid: %s)", x.Scenario, strings.Join(ScenarioNames(), ", "))
		}
	}
}
