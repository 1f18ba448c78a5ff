package benchmark

import (
	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// transportReuse maps --connection-reuse-strategy onto the transport's.
// Validation has rejected unknown names; they pool.
func transportReuse(cfg *config.Config) transport.Reuse {
	switch cfg.ConnectionReuseStrategy() {
	case config.ReuseNever:
		return transport.ReuseNever
	case config.ReuseSticky:
		return transport.ReuseSticky
	}
	return transport.ReusePooled
}

// datasetKeep is how many conversations of an --input-file the run can
// send, when that is known before reading it: the run samples in order
// (the format's default or --dataset-sampling-strategy sequential) and
// every phase stops after a number of requests or sessions. Each
// conversation gives at least one request, so the first that many are all
// it can use; the loader keeps only those (0: keep every one). A duration
// bound, random sampling or a shuffle may reach any entry.
func (p *Plan) datasetKeep() int {
	if s := p.Config.Dataset.SamplingStrategy; (s != "" && string(s) != dataset.SamplingSequential) || p.Config.Replay.FixedSchedule {
		return 0
	}
	need := func(s *PhaseSpec) int {
		if s.Sessions > 0 {
			return s.Sessions
		}
		return s.Count // 0 when only a duration bounds the phase
	}
	n := need(&p.Profiling)
	if n == 0 {
		return 0
	}
	if p.Warmup != nil {
		w := need(p.Warmup)
		if w == 0 {
			return 0
		}
		n += w
	}
	return n
}
