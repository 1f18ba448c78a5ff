package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addMediaFlags registers the profile flags of config.Media (owned by helper
// W4). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addMediaFlags(cfg *config.Config) {
	_ = cfg
}
