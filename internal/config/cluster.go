package config

import "net"

// MaxLocalWorkers bounds --workers: each load worker is a process of its
// own on this machine.
const MaxLocalWorkers = 256

// Cluster is the scale-out of one run over load-worker processes (issue
// 20): the controller (this process) keeps the schedule, the dataset
// sampling and the aggregation; each worker sends the requests of the
// credits it is given and streams every record back.
type Cluster struct {
	// Workers is --workers: the number of load-worker processes to start
	// on this machine (0: the requests go out from this process).
	Workers int `json:"workers,omitempty"`
	// WorkerListen is --worker-listen: the controller serves the protocol
	// on this host:port and waits for Workers workers started elsewhere
	// (`aiperf cluster-worker --controller HOST:PORT`, one per Kubernetes
	// pod) instead of starting them itself. Empty: a loopback port and
	// local processes.
	WorkerListen string `json:"worker_listen,omitempty"`
}

// validateCluster checks --workers and the options a run over workers
// does not carry yet.
func (c *Config) validateCluster(p *problems) {
	n := c.Cluster.Workers
	if n < 0 || n > MaxLocalWorkers {
		p.add("--workers", "must be between 0 and %d, got %d", MaxLocalWorkers, n)
	}
	if n == 0 {
		if c.Cluster.WorkerListen != "" {
			p.add("--worker-listen", "needs --workers N, the number of load workers to wait for")
		}
		return
	}
	if l := c.Cluster.WorkerListen; l != "" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			p.add("--worker-listen", "want HOST:PORT (\":7070\" for every interface), got %q", l)
		}
	}
	if c.Shape.Adaptive != nil {
		p.add("--workers", "adaptive scale is not supported with load workers yet; run it in one process")
	}
	if c.Prompt.CacheBustEnabled() {
		p.add("--workers", "--cache-bust is not supported with load workers yet; run it in one process")
	}
}
