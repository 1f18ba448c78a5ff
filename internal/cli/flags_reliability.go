package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addReliabilityFlags registers --connection-reuse-strategy (AIPerf's
// Endpoint group) and this port's flags for misbehaving servers.
func (b *flagBuilder) addReliabilityFlags(cfg *config.Config) {
	b.group = groupEndpoint
	b.add(&choiceValue[config.ConnectionReuse]{recorder: b.rec("connection-reuse-strategy"), p: &cfg.Endpoint.ConnectionReuse, normalize: config.NormalizeConnectionReuse}, spec{
		name: "connection-reuse-strategy", meta: "<strategy>",
		def:     string(config.ReusePooled),
		choices: strs(config.ConnectionReuses()),
		usage:   "How requests share TCP connections: pooled = one shared keep-alive pool (fastest); never = a new connection per request, closed after it (every request pays the handshake); sticky-user-sessions = one connection per conversation, kept across its turns and closed after its last, for load balancers that pin connections. A request whose reused connection the server had already closed is resent once (connection_retries), never counted as an error.",
	})
	b.add(&boolValue{recorder: b.rec("strict-streams"), p: &cfg.Reliability.StrictStreams}, spec{
		name:  "strict-streams",
		usage: "Fail a streamed response that ends without [DONE] and without a finish_reason (a connection cut short can look like a clean end) instead of only flagging it stream_incomplete and counting it in stream_incomplete_count. Not an AIPerf option.",
	})
	b.add(&boolValue{recorder: b.rec("keep-going-when-unreachable"), p: &cfg.Reliability.KeepGoingUnreachable}, spec{
		name:  "keep-going-when-unreachable",
		usage: "Keep sending when the run's first requests are all refused (nothing listening at --url) instead of stopping with that message; refused connections are then retried after a pause that doubles up to 1 s. Not an AIPerf option.",
	})
}
