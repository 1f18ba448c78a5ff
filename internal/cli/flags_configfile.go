package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addConfigFileFlags registers the profile flags of config.ConfigFile (owned by helper
// Y1). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addConfigFileFlags(cfg *config.Config) {
	_ = cfg
}
