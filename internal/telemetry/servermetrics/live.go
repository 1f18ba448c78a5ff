package servermetrics

import (
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// Live panel gauges, named after AIPerf's realtime server-metrics snapshot
// (ServerMetricsAccumulator.realtime_snapshot).
const (
	LiveRunning         = "num_running"
	LiveWaiting         = "num_waiting"
	LiveKVCache         = "kv_cache_usage_pct"
	LivePrefixHitRate   = "prefix_cache_hit_rate"
	LivePreemptions     = "num_preemptions"
	LiveInputTokenRate  = "input_token_throughput_srv"
	LiveOutputTokenRate = "output_token_throughput_srv"
)

// livePanel is the endpoint's latest known values, for the dashboard:
// gauges as last scraped, counters as their increase (or rate) since the
// profiling phase started (since the first sample before it). The caller
// holds c.mu.
func (c *Collector) livePanel(url string, at time.Duration) *live.Panel {
	ep := c.store.endpoints[url]
	if ep == nil {
		return nil
	}
	p := &live.Panel{Source: "server_metrics", Title: prom.EndpointDisplay(url), At: at}
	add := func(name, unit string, v float64) {
		p.Gauges = append(p.Gauges, c.history.Gauge(url+"\x00"+name, unit, v))
		p.Gauges[len(p.Gauges)-1].Name = name
	}
	if v, ok := ep.latest(roleRunning); ok {
		add(LiveRunning, "requests", v)
	}
	if v, ok := ep.latest(roleWaiting); ok {
		add(LiveWaiting, "requests", v)
	}
	if v, ok := ep.latest(roleKVUsage); ok {
		add(LiveKVCache, "%", toPct(v))
	}
	hits, okH := ep.delta(rolePrefixHits, c.phaseStart)
	queries, okQ := ep.delta(rolePrefixQueries, c.phaseStart)
	switch {
	case okH && okQ && queries > 0:
		add(LivePrefixHitRate, "%", 100*min(hits, queries)/queries)
	default:
		if v, ok := ep.latest(rolePrefixHitRate); ok {
			add(LivePrefixHitRate, "%", toPct(v))
		}
	}
	if v, ok := ep.delta(rolePreemptions, c.phaseStart); ok {
		add(LivePreemptions, "requests", v)
	}
	if v, ok := ep.rate(rolePromptTokens, c.phaseStart); ok {
		add(LiveInputTokenRate, "tokens/sec", v)
	}
	if v, ok := ep.rate(roleGenTokens, c.phaseStart); ok {
		add(LiveOutputTokenRate, "tokens/sec", v)
	}
	if len(p.Gauges) == 0 {
		return nil
	}
	return p
}

// series returns the endpoint's entries of the role's first known metric
// that it serves.
func (ep *endpoint) series(r role) []*entry {
	for _, name := range knownNames[r] {
		var out []*entry
		for _, e := range ep.order {
			if e.name == name && e.typ == roleTypes[r] && e.scalar != nil {
				out = append(out, e)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// latest is the largest latest value of the role's gauge series.
func (ep *endpoint) latest(r role) (float64, bool) {
	var best float64
	found := false
	for _, e := range ep.series(r) {
		if n := len(e.scalar.vals); n > 0 {
			v := e.scalar.vals[n-1]
			if !found || v > best {
				best, found = v, true
			}
		}
	}
	return best, found
}

// delta is the role's counter increase since startNs (from the last sample
// before it; from the first sample when startNs is 0), summed over label
// sets and clamped at 0.
func (ep *endpoint) delta(r role, startNs int64) (float64, bool) {
	var total float64
	found := false
	for _, e := range ep.series(r) {
		s := e.scalar
		if len(s.vals) < 2 {
			continue
		}
		base := 0
		if startNs > 0 {
			i := first(s.ts, startNs)
			if i >= len(s.vals) {
				continue
			}
			base = max(i-1, 0)
		}
		total += max(s.vals[len(s.vals)-1]-s.vals[base], 0)
		found = true
	}
	return total, found
}

// rate is the role's counter increase per second from the first sample at
// or after startNs to the latest one.
func (ep *endpoint) rate(r role, startNs int64) (float64, bool) {
	var total float64
	var span int64
	for _, e := range ep.series(r) {
		s := e.scalar
		n := len(s.vals)
		base := 0
		if startNs > 0 {
			base = first(s.ts, startNs)
		}
		if n < 2 || base >= n-1 {
			continue
		}
		total += max(s.vals[n-1]-s.vals[base], 0)
		span = max(span, s.ts[n-1]-s.ts[base])
	}
	if span <= 0 {
		return 0, false
	}
	return total / (float64(span) / 1e9), true
}
