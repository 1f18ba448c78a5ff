package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// connectionReuseStrategyOptions lists the options from --connection-reuse-strategy on, in help order.
func connectionReuseStrategyOptions() []Option {
	return []Option{
		{Name: "connection-reuse-strategy",
			Group:     GroupEndpoint,
			Meta:      "<strategy>",
			Default:   string(config.ReusePooled),
			Choices:   strs(config.ConnectionReuses()),
			Usage:     "How requests share TCP connections: pooled = one shared keep-alive pool (fastest); never = a new connection per request, closed after it (every request pays the handshake); sticky-user-sessions = one connection per conversation, kept across its turns and closed after its last, for load balancers that pin connections. A request whose reused connection the server had already closed is resent once (connection_retries), never counted as an error.",
			Bind:      func(c *config.Config) any { return &c.Endpoint.ConnectionReuse },
			Normalize: func(s string) string { return string(config.NormalizeConnectionReuse(s)) },
			Keys:      []Key{{Path: "benchmark.endpoint.connection_reuse", Doc: "pooled (one shared keep-alive pool), never (a connection per request) or sticky-user-sessions (a connection per conversation)."}}},
		{Name: "strict-streams",
			Group: GroupEndpoint,
			Usage: "Fail a streamed response that ends without [DONE] and without a finish_reason (a connection cut short can look like a clean end) instead of only flagging it stream_incomplete and counting it in stream_incomplete_count. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Reliability.StrictStreams }},
		{Name: "keep-going-when-unreachable",
			Group: GroupEndpoint,
			Usage: "Keep sending when the run's first requests are all refused (nothing listening at --url) instead of stopping with that message; refused connections are then retried after a pause that doubles up to 1 s. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Reliability.KeepGoingUnreachable }},
	}
}
