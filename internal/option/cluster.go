package option

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/config"
)

// workersOptions lists the options from --workers on, in help order.
func workersOptions() []Option {
	return []Option{
		{Name: "workers",
			Group:   GroupCluster,
			Meta:    "<int>",
			Default: "0",
			Usage: "Send the requests from this many load-worker processes started on this machine (at most " +
				strconv.Itoa(config.MaxLocalWorkers) + "). This process stays the controller: it keeps the schedule " +
				"(one global clock for rates and concurrency), picks every conversation and aggregates every record, " +
				"so the artifacts are those of a one-process run; each worker's clock offset is measured at start " +
				"and written to cluster.json. A worker that dies mid-run costs only its requests in flight, " +
				"recorded as WorkerLostError. 0 sends from this process.",
			Bind: func(c *config.Config) any { return &c.Cluster.Workers }},
		{Name: "worker-listen",
			Group: GroupCluster,
			Meta:  "<host:port>",
			Usage: "With --workers N: serve the load workers' protocol on this address and wait for N workers started " +
				"elsewhere (aiperf cluster-worker --controller HOST:PORT, e.g. one per Kubernetes pod) instead of starting them here.",
			Bind: func(c *config.Config) any { return &c.Cluster.WorkerListen }},
	}
}
