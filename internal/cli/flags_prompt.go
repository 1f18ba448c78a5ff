package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addPromptFlags registers the profile flags of config.Prompt (owned by helper
// W3). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addPromptFlags(cfg *config.Config) {
	_ = cfg
}
