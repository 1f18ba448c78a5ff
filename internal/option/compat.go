package option

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// zmq ends the help of the ZMQ options.
const zmq = " Accepted for compatibility; no effect here: this implementation runs in one process, with no internal message bus."

// exportOutputsJSONOptions lists the options from --export-outputs-json on, in help order.
func exportOutputsJSONOptions() []Option {
	return []Option{
		{Name: "export-outputs-json",
			Group: GroupOutput,
			Usage: "Also write outputs.json: the generated text of every request (profiling and warmup), with its ids, timestamps and key metrics, as AIPerf does.",
			Bind:  func(c *config.Config) any { return &c.Artifacts.ExportOutputsJSON },
			Keys:  []Key{{Path: "benchmark.artifacts.export_outputs_json", Doc: "Write outputs.json, the generated text of every request."}}},
		{Name: "scenario",
			Group:   GroupScenario,
			Meta:    "<name>",
			Choices: config.ScenarioNames(),
			Usage:   "Lock all benchmark invariants of a named scenario (" + strings.Join(config.ScenarioNames(), ", ") + "): its required options are filled in and any conflicting option is an error at startup unless --unsafe-override is also given. Distinct from a config file's sweep scenarios.",
			Bind:    func(c *config.Config) any { return &c.Compat.Scenario },
			Keys:    []Key{{Path: "benchmark.scenario", Doc: "Lock the invariants of a named benchmark scenario (inferencex-agentx-mvp)."}}},
		{Name: "unsafe-override",
			Group: GroupScenario,
			Usage: "Turn scenario lock errors into warnings; the run is marked submission_valid=false. No effect without --scenario.",
			Bind:  func(c *config.Config) any { return &c.Compat.UnsafeOverride },
			Keys:  []Key{{Path: "benchmark.unsafe_override", Doc: "Turn scenario lock violations into warnings; the run is marked submission_valid=false."}}},
		{Name: "workers-max",
			Aliases:     []string{"max-workers"},
			Group:       GroupWorkers,
			Meta:        "<n>",
			Usage:       "AIPerf's cap on worker processes. Accepted for compatibility; no effect here: every request in flight has its own goroutine, and load is bounded by --concurrency and --request-rate alone.",
			Bind:        func(c *config.Config) any { return &c.Compat.WorkersMax },
			InputConfig: []string{"runtime.workers"}},
		{Name: "record-processor-service-count",
			Aliases:     []string{"record-processors"},
			Group:       GroupService,
			Meta:        "<n>",
			Default:     "one per usable CPU",
			Usage:       "Number of record processors that parse, tokenize and measure finished requests in parallel (AIPerf's record-processor services; goroutines here).",
			Bind:        func(c *config.Config) any { return &c.Compat.RecordProcessors },
			InputConfig: []string{"runtime.record_processors"}},
		{Name: "stats-interval",
			Group:       GroupService,
			Meta:        "<seconds>",
			Default:     "5 with the dashboard, else 30",
			Usage:       "Seconds between the live statistics blocks written to the log (requests, errors, rates, latency percentiles so far); 0 turns them off. The live views refresh on their own either way.",
			Bind:        func(c *config.Config) any { return &c.Compat.StatsIntervalSeconds },
			InputConfig: []string{"runtime.stats_interval"}},
		{Name: "zmq-host",
			Group:   GroupZMQ,
			Meta:    "<host>",
			Default: "127.0.0.1",
			Usage:   "Host of AIPerf's internal ZMQ TCP sockets." + zmq,
			Bind:    func(c *config.Config) any { return &c.Compat.ZMQHost }},
		{Name: "zmq-ipc-path",
			Group: GroupZMQ,
			Meta:  "<dir>",
			Usage: "Directory of AIPerf's ZMQ IPC socket files." + zmq,
			Bind:  func(c *config.Config) any { return &c.Compat.ZMQIPCPath }},
		{Name: "zmq-dual-bind",
			Group: GroupZMQ,
			Usage: "Select AIPerf's dual-bind (IPC + TCP) ZMQ backend." + zmq,
			Bind:  func(c *config.Config) any { return &c.Compat.ZMQDualBind }},
	}
}
