package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addExperimentFlags registers the profile flags of config.Experiment (owned by helper
// Y2). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addExperimentFlags(cfg *config.Config) {
	_ = cfg
}
