package cli

import "github.com/aiperf-go/aiperf/internal/config"

// variations expands the validated command line into the variations of
// the experiment, after the embedded mock server (if any) has set the
// URLs in cfg. Without a sweep it is cfg alone; see expandSweep.
func (p *profileCommand) variations(cfg config.Config) []config.Variation {
	return p.sweepVariations(cfg)
}
