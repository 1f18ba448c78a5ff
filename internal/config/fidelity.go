package config

import (
	"math"
	"net"
	"strconv"
	"strings"
)

// Fidelity holds the options that make the client's own costs visible and
// avoidable: AIPerf's HTTP Trace and Network Latency groups, and this
// port's pre-connect.
type Fidelity struct {
	// ExportHTTPTrace (--export-http-trace) adds each request's trace data
	// (timestamps, transport reads and writes, headers, socket) to
	// profile_export.jsonl as trace_data. The http_req_* metrics are
	// written either way.
	ExportHTTPTrace bool `json:"export_http_trace,omitempty"`
	// ShowTraceTiming (--show-trace-timing) prints the HTTP trace timing
	// table (the http_req_* metrics) in the console.
	ShowTraceTiming bool `json:"show_trace_timing,omitempty"`
	// NetworkLatencyAutomatic (--network-latency-automatic) probes the
	// endpoint's TCP-handshake round trip during the run and subtracts its
	// mean from the request-start-anchored latencies, as separate
	// network_adjusted_* metrics.
	NetworkLatencyAutomatic bool `json:"network_latency_automatic,omitempty"`
	// NetworkLatencyEnabled is the config file's network_latency.enabled:
	// true probes unless a mean is given, false turns calibration off; nil
	// = not given.
	NetworkLatencyEnabled *bool `json:"network_latency_enabled,omitempty"`
	// NetworkLatencyMeanMS (--network-latency-mean) is a fixed round trip,
	// in milliseconds, subtracted instead of probing; nil = not given.
	NetworkLatencyMeanMS *float64 `json:"network_latency_mean_ms,omitempty"`
	// NetworkLatencyPingInterval (--network-latency-ping-interval) is the
	// pause between probes in seconds; nil = DefaultPingInterval.
	NetworkLatencyPingInterval *float64 `json:"network_latency_ping_interval,omitempty"`
	// PreConnect (--pre-connect) opens connections before the first
	// request: "auto", a count, or "" / "0" for none.
	PreConnect string `json:"pre_connect,omitempty"`
	// OTLPTracesReceiver (--otlp-traces-receiver) is the host:port where
	// the run receives the server's per-request trace spans over OTLP
	// (gRPC and HTTP/protobuf on the one port; point vLLM's
	// --otlp-traces-endpoint at it) and joins them to the records by
	// X-Request-ID; "" for none.
	OTLPTracesReceiver string `json:"otlp_traces_receiver,omitempty"`
	// FailOnInvalid (--fail-on-invalid) makes an INVALID validity
	// verdict exit with ExitInvalidRun instead of ExitOK.
	FailOnInvalid bool `json:"fail_on_invalid,omitempty"`
	// OverSaturation (--over-saturation) watches the profiling phase for
	// a server past its capacity (GuideLLM's detector): "monitor" reports
	// it, "enforce" also stops the phase when it is detected; "" is off.
	OverSaturation string `json:"over_saturation,omitempty"`
	// OverSaturationMinSeconds and OverSaturationMinTTFT override the
	// detector's 30 s before a judgement and its 2.5 s TTFT floor; nil =
	// the defaults.
	OverSaturationMinSeconds *float64 `json:"over_saturation_min_seconds,omitempty"`
	OverSaturationMinTTFT    *float64 `json:"over_saturation_min_ttft,omitempty"`
	// ProbeRequestRate (--probe-request-rate) sends light probe requests
	// (a one-word prompt, one output token) at this many per second during
	// the profiling phases, outside the concurrency cap, reported as their
	// own metrics; nil is off.
	ProbeRequestRate *float64 `json:"probe_request_rate,omitempty"`
}

// The --over-saturation modes.
const (
	OverSaturationMonitor = "monitor"
	OverSaturationEnforce = "enforce"
)

// DefaultPingInterval is AIPerf's default pause between network latency
// probes, in seconds.
const DefaultPingInterval = 1.0

// PreConnectAuto is --pre-connect's value when given without one.
const PreConnectAuto = "auto"

// MaxAutoPreConnect bounds --pre-connect auto for a rate-only run, which
// has no concurrency to size the pool by.
const MaxAutoPreConnect = 1024

// NetworkLatencyEnabled reports whether the round trip is subtracted
// (probed or given), as AIPerf's network_latency.enabled.
func (c *Config) NetworkLatencyEnabled() bool {
	f := &c.Fidelity
	if f.NetworkLatencyEnabled != nil && !f.NetworkLatencyAutomatic {
		return *f.NetworkLatencyEnabled
	}
	return f.NetworkLatencyAutomatic || f.NetworkLatencyMeanMS != nil
}

// NetworkLatencyProbe reports whether the round trip is probed during the
// run (enabled, and no fixed mean given).
func (c *Config) NetworkLatencyProbe() bool {
	return c.NetworkLatencyEnabled() && c.Fidelity.NetworkLatencyMeanMS == nil
}

// PingInterval returns the resolved probe interval in seconds.
func (c *Config) PingInterval() float64 {
	if p := c.Fidelity.NetworkLatencyPingInterval; p != nil {
		return *p
	}
	return DefaultPingInterval
}

// PreConnections returns how many connections --pre-connect opens to each
// server: the given count; for auto, the largest concurrency of any phase
// (every connection a closed loop will use), or for a rate-only run the
// requests of one second (capped at MaxAutoPreConnect); 0 when off.
func (c *Config) PreConnections() int {
	v := strings.ToLower(strings.TrimSpace(c.Fidelity.PreConnect))
	switch v {
	case "", "0", "false", "off":
		return 0
	case PreConnectAuto, "true":
		if c.Load.Concurrency == nil {
			if r := c.Load.RequestRate; r != nil && *r > 0 {
				return int(min(math.Ceil(*r), MaxAutoPreConnect))
			}
		}
		n := c.Concurrency()
		if w := c.Shape.Warmup.Concurrency; w != nil {
			n = max(n, *w)
		}
		return max(n, 1)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

func (c *Config) validateFidelity(p *problems) {
	f := &c.Fidelity
	switch f.OverSaturation {
	case "", OverSaturationMonitor, OverSaturationEnforce:
	default:
		p.add("--over-saturation", "want monitor or enforce, got %q", f.OverSaturation)
	}
	for _, o := range []struct {
		flag string
		v    *float64
	}{{"--over-saturation-min-seconds", f.OverSaturationMinSeconds}, {"--over-saturation-min-ttft", f.OverSaturationMinTTFT}} {
		switch {
		case o.v == nil:
		case !(*o.v >= 0) || math.IsInf(*o.v, 0):
			p.add(o.flag, "must be a finite number of seconds >= 0, got %v", *o.v)
		case f.OverSaturation == "":
			p.add(o.flag, "only applies with --over-saturation monitor or enforce")
		}
	}
	if r := f.ProbeRequestRate; r != nil {
		switch {
		case !(*r > 0) || math.IsInf(*r, 0):
			p.add("--probe-request-rate", "must be a finite number of requests per second > 0, got %v", *r)
		case c.Cluster.Workers > 0:
			p.add("--probe-request-rate", "cannot be used with --workers: the probes go from this process, not from the load workers")
		}
	}
	if f.NetworkLatencyAutomatic && f.NetworkLatencyMeanMS != nil {
		p.add("--network-latency-mean", "cannot be used with --network-latency-automatic: automatic measures the round trip, mean sets it")
	}
	if m := f.NetworkLatencyMeanMS; m != nil && (*m < 0 || math.IsNaN(*m) || math.IsInf(*m, 0)) {
		p.add("--network-latency-mean", "must be a finite number of milliseconds >= 0, got %v", *m)
	}
	if iv := f.NetworkLatencyPingInterval; iv != nil {
		switch {
		case !(*iv > 0) || math.IsInf(*iv, 0):
			p.add("--network-latency-ping-interval", "must be a finite number of seconds > 0, got %v", *iv)
		case !c.NetworkLatencyProbe():
			p.add("--network-latency-ping-interval", "only applies with --network-latency-automatic")
		}
	}
	switch v := strings.ToLower(strings.TrimSpace(f.PreConnect)); v {
	case "", "0", "false", "off", PreConnectAuto, "true":
	default:
		if n, err := strconv.Atoi(v); err != nil || n < 0 {
			p.add("--pre-connect", "want auto or a number of connections >= 0, got %q", f.PreConnect)
		}
	}
	if a := f.OTLPTracesReceiver; a != "" {
		if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
			p.add("--otlp-traces-receiver", "want host:port (e.g. 0.0.0.0:4317), got %q", a)
		}
	}
	if c.PreConnections() > 0 && c.ConnectionReuseStrategy() == ReuseNever {
		p.add("--pre-connect", "has no effect with --connection-reuse-strategy never, which opens a new connection for every request")
	}
}
