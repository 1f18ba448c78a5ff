package cli

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/config"
)

// groupCluster is the help panel of the scale-out options (not AIPerf
// options: AIPerf scales out with its own services and Kubernetes).
const groupCluster = "Scale-out"

// addClusterFlags registers --workers, bound to cfg.Cluster. It sets
// b.group itself.
func (b *flagBuilder) addClusterFlags(cfg *config.Config) {
	b.group = groupCluster
	b.add(&intValue{recorder: b.rec("workers"), p: &cfg.Cluster.Workers}, spec{
		name: "workers", meta: "<int>", def: "0",
		usage: "Send the requests from this many load-worker processes started on this machine (at most " +
			strconv.Itoa(config.MaxLocalWorkers) + "). This process stays the controller: it keeps the schedule " +
			"(one global clock for rates and concurrency), picks every conversation and aggregates every record, " +
			"so the artifacts are those of a one-process run; each worker's clock offset is measured at start " +
			"and written to cluster.json. A worker that dies mid-run costs only its requests in flight, " +
			"recorded as WorkerLostError. 0 sends from this process.",
	})
	b.add(&stringValue{recorder: b.rec("worker-listen"), p: &cfg.Cluster.WorkerListen}, spec{
		name: "worker-listen", meta: "<host:port>",
		usage: "With --workers N: serve the load workers' protocol on this address and wait for N workers started " +
			"elsewhere (aiperf cluster-worker --controller HOST:PORT, e.g. one per Kubernetes pod) instead of starting them here.",
	})
}
