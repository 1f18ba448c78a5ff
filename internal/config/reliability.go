package config

import "strings"

// ConnectionReuse is how requests share connections
// (--connection-reuse-strategy). Values are AIPerf's, with dashes; the
// empty value means "not given" (pooled).
type ConnectionReuse string

// Connection reuse strategies.
const (
	ReusePooled ConnectionReuse = "pooled"
	ReuseNever  ConnectionReuse = "never"
	ReuseSticky ConnectionReuse = "sticky-user-sessions"
)

// ConnectionReuses lists the valid --connection-reuse-strategy values in
// help order.
func ConnectionReuses() []ConnectionReuse {
	return []ConnectionReuse{ReusePooled, ReuseNever, ReuseSticky}
}

// NormalizeConnectionReuse canonicalises a strategy name: trimmed, lower
// case, underscores read as dashes (AIPerf's enum is case-insensitive).
func NormalizeConnectionReuse(s string) ConnectionReuse {
	return ConnectionReuse(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
}

// ConnectionReuseStrategy returns the resolved strategy: the given one,
// normalised, or pooled.
func (c *Config) ConnectionReuseStrategy() ConnectionReuse {
	if r := NormalizeConnectionReuse(string(c.Endpoint.ConnectionReuse)); r != "" {
		return r
	}
	return ReusePooled
}

// Reliability holds this port's options for servers that misbehave (not
// AIPerf options).
type Reliability struct {
	// StrictStreams (--strict-streams) fails a streamed response that ends
	// without [DONE] and without a finish_reason, instead of only flagging
	// it stream_incomplete.
	StrictStreams bool `json:"strict_streams,omitempty"`
	// KeepGoingUnreachable (--keep-going-when-unreachable) keeps sending
	// when the run's first requests all fail to connect, instead of stopping
	// with "nothing is listening".
	KeepGoingUnreachable bool `json:"keep_going_when_unreachable,omitempty"`
}

func (c *Config) validateReliability(p *problems) {
	if r := c.ConnectionReuseStrategy(); !contains(ConnectionReuses(), r) {
		p.add("--connection-reuse-strategy", "invalid choice %q (choose from %s)", c.Endpoint.ConnectionReuse, joinChoices(ConnectionReuses()))
	}
}
