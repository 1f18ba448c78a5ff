package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addConversationFlags registers the multi-turn session flags bound to
// cfg.Conversation: AIPerf's "Conversation Input" group, plus
// --session-header (Endpoint) and --num-warmup-sessions (Warmup), which
// AIPerf shows in those groups.
func (b *flagBuilder) addConversationFlags(cfg *config.Config) {
	c := &cfg.Conversation
	b.group = groupConv
	b.add(&intPtrValue{recorder: b.rec("num-sessions"), p: &c.NumSessions, magic: true}, spec{
		name: "num-sessions", aliases: []string{"conversation-num", "num-conversations"}, meta: "<n>",
		usage: "Number of conversations to generate and to run: profiling stops once this many sessions have finished. Cannot be combined with --request-count.",
	})
	b.add(&intValue{recorder: b.rec("session-turns-mean"), p: &c.TurnsMean, magic: true}, spec{
		name: "session-turns-mean", aliases: []string{"conversation-turn-mean"}, meta: "<n>",
		def:   "1",
		usage: "Mean number of turns per synthetic conversation. Each turn carries the conversation so far, including the server's actual responses.",
	})
	b.add(&intValue{recorder: b.rec("session-turns-stddev"), p: &c.TurnsStddev}, spec{
		name: "session-turns-stddev", aliases: []string{"conversation-turn-stddev"}, meta: "<n>",
		def:   "0",
		usage: "Standard deviation of the turns per conversation (normally distributed).",
	})
	b.add(&floatValue{recorder: b.rec("session-turn-delay-mean"), p: &c.TurnDelayMean}, spec{
		name: "session-turn-delay-mean", aliases: []string{"conversation-turn-delay-mean"}, meta: "<ms>",
		def:   "0",
		usage: "Mean pause in milliseconds between a response and the next turn of the same conversation (user think time).",
	})
	b.add(&floatValue{recorder: b.rec("session-turn-delay-stddev"), p: &c.TurnDelayStddev}, spec{
		name: "session-turn-delay-stddev", aliases: []string{"conversation-turn-delay-stddev"}, meta: "<ms>",
		def:   "0",
		usage: "Standard deviation of the pause between turns, in milliseconds.",
	})
	b.add(&floatValue{recorder: b.rec("session-delay-ratio"), p: &c.DelayRatio}, spec{
		name: "session-delay-ratio", aliases: []string{"conversation-turn-delay-ratio"}, meta: "<ratio>",
		def:   "1",
		usage: "Multiplier applied to every pause between turns: below 1 speeds conversations up, 0 removes the pauses.",
	})
	b.add(&floatPtrValue{recorder: b.rec("inter-turn-delay-cap-seconds"), p: &c.InterTurnDelayCapSeconds}, spec{
		name: "inter-turn-delay-cap-seconds", meta: "<seconds>",
		usage: "Clamp every pause between turns, generated or read from a dataset file, to at most this many seconds.",
	})

	b.group = groupEndpoint
	b.add(&stringValue{recorder: b.rec("session-header"), p: &c.SessionHeader}, spec{
		name: "session-header", meta: "<name>",
		usage: "Header that carries the per-session id shared by every turn of a conversation, instead of X-Correlation-ID (e.g. X-Session-ID), for servers that route sessions by it.",
	})

	b.group = groupWarmup
	b.add(&intPtrValue{recorder: b.rec("num-warmup-sessions"), p: &c.NumWarmupSessions}, spec{
		name: "num-warmup-sessions", meta: "<n>",
		usage: "Run this many whole sessions as warmup, excluded from the results, before profiling starts. Cannot be combined with --warmup-request-count.",
	})
}
