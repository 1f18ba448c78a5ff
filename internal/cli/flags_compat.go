package cli

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// AIPerf's help panels of the flags registered here.
const (
	groupScenario = "Scenario"
	groupWorkers  = "Workers"
	groupZMQ      = "ZMQ Communication"
)

// addCompatFlags registers AIPerf's scenario lock, the options of its
// process model (ZMQ bus, worker and record-processor processes, the stats
// publisher) and --export-outputs-json. Every one is accepted under
// AIPerf's name; what each does here is in its help and in
// docs/aiperf-compat.md. It sets b.group itself.
func (b *flagBuilder) addCompatFlags(cfg *config.Config) {
	x := &cfg.Compat

	b.group = groupOutput
	b.add(&boolValue{recorder: b.rec("export-outputs-json"), p: &cfg.Artifacts.ExportOutputsJSON}, spec{
		name:  "export-outputs-json",
		usage: "Also write outputs.json: the generated text of every request (profiling and warmup), with its ids, timestamps and key metrics, as AIPerf does.",
	})

	b.group = groupScenario
	b.add(&stringValue{recorder: b.rec("scenario"), p: &x.Scenario}, spec{
		name: "scenario", meta: "<name>", choices: config.ScenarioNames(),
		usage: "Lock all benchmark invariants of a named scenario (" + strings.Join(config.ScenarioNames(), ", ") + "): its required options are filled in and any conflicting option is an error at startup unless --unsafe-override is also given. Distinct from a config file's sweep scenarios.",
	})
	b.add(&boolValue{recorder: b.rec("unsafe-override"), p: &x.UnsafeOverride}, spec{
		name:  "unsafe-override",
		usage: "Turn scenario lock errors into warnings; the run is marked submission_valid=false. No effect without --scenario.",
	})

	b.group = groupWorkers
	b.add(&intPtrValue{recorder: b.rec("workers-max"), p: &x.WorkersMax}, spec{
		name: "workers-max", aliases: []string{"max-workers"}, meta: "<n>",
		usage: "AIPerf's cap on worker processes. Accepted for compatibility; no effect here: every request in flight has its own goroutine, and load is bounded by --concurrency and --request-rate alone.",
	})

	b.group = groupService
	b.add(&intPtrValue{recorder: b.rec("record-processor-service-count"), p: &x.RecordProcessors}, spec{
		name: "record-processor-service-count", aliases: []string{"record-processors"}, meta: "<n>",
		def:   "one per usable CPU",
		usage: "Number of record processors that parse, tokenize and measure finished requests in parallel (AIPerf's record-processor services; goroutines here).",
	})
	b.add(&floatPtrValue{recorder: b.rec("stats-interval"), p: &x.StatsIntervalSeconds}, spec{
		name: "stats-interval", meta: "<seconds>",
		def:   "5 with the dashboard, else 30",
		usage: "Seconds between the live statistics blocks written to the log (requests, errors, rates, latency percentiles so far); 0 turns them off. The live views refresh on their own either way.",
	})

	b.group = groupZMQ
	const zmq = " Accepted for compatibility; no effect here: this implementation runs in one process, with no internal message bus."
	b.add(&stringValue{recorder: b.rec("zmq-host"), p: &x.ZMQHost}, spec{
		name: "zmq-host", meta: "<host>", def: "127.0.0.1",
		usage: "Host of AIPerf's internal ZMQ TCP sockets." + zmq,
	})
	b.add(&stringValue{recorder: b.rec("zmq-ipc-path"), p: &x.ZMQIPCPath}, spec{
		name: "zmq-ipc-path", meta: "<dir>",
		usage: "Directory of AIPerf's ZMQ IPC socket files." + zmq,
	})
	b.add(&boolValue{recorder: b.rec("zmq-dual-bind"), p: &x.ZMQDualBind}, spec{
		name:  "zmq-dual-bind",
		usage: "Select AIPerf's dual-bind (IPC + TCP) ZMQ backend." + zmq,
	})
}
