package config

// Conversation holds the options of --num-sessions, --session-turns-mean/-stddev, --session-turn-delay-mean/-stddev/-ratio, --inter-turn-delay-cap-seconds, --session-header, --num-warmup-sessions.
//
// Owned by helper W2 (multi-turn sessions): fields, defaults (in Defaults via a
// defaultConversation function), validation (a validateConversation method called from
// Validate) and JSON names (AIPerf's snake_case) are filled in there.
type Conversation struct{}
