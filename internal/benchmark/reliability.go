package benchmark

import (
	"github.com/aiperf-go/aiperf/internal/config"
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
