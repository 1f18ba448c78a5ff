package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addReplayFlags registers the profile flags of config.Replay (owned by helper
// W2). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addReplayFlags(cfg *config.Config) {
	_ = cfg
}
