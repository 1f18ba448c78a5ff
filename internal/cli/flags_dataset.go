package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addDatasetFlags registers the profile flags of config.Dataset (owned by helper
// W1). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addDatasetFlags(cfg *config.Config) {
	_ = cfg
}
