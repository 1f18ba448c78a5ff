package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addConversationFlags registers the profile flags of config.Conversation (owned by helper
// W2). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addConversationFlags(cfg *config.Config) {
	_ = cfg
}
