package cli

import "github.com/aiperf-go/aiperf/internal/config"

// Help groups of the fidelity flags (AIPerf 0.13's names).
const (
	groupHTTPTrace      = "HTTP Trace"
	groupNetworkLatency = "Network Latency"
)

// addFidelityFlags registers AIPerf's HTTP Trace and Network Latency
// groups, and --pre-connect (this port's, in the Endpoint group).
func (b *flagBuilder) addFidelityFlags(cfg *config.Config) {
	f := &cfg.Fidelity
	saved := b.group
	defer func() { b.group = saved }()

	b.group = groupEndpoint
	pc := b.add(&stringValue{recorder: b.rec("pre-connect"), p: &f.PreConnect}, spec{
		name: "pre-connect", meta: "<n|auto>",
		usage: "Open connections to each server before the first request, so no early request pays the TCP handshake inside its time to first token (k6 and wrk open theirs first; AIPerf does not). auto (the value when the flag is given alone) opens --concurrency connections, or one second of --request-rate (at most 1,024) for a rate-only run; a number opens that many. The summary counts the requests that still opened a connection (client_health.connections_opened). Not an AIPerf option.",
	})
	pc.NoOptDefVal = config.PreConnectAuto

	b.group = groupHTTPTrace
	b.add(&boolValue{recorder: b.rec("export-http-trace"), p: &f.ExportHTTPTrace}, spec{
		name:  "export-http-trace",
		usage: "Include each request's HTTP trace data in profile_export.jsonl (trace_data: timestamps of every phase, each transport read and write, the headers with credentials redacted, the socket's addresses). The http_req_* metrics are written whether or not this is set.",
	})
	b.add(&boolValue{recorder: b.rec("show-trace-timing"), p: &f.ShowTraceTiming}, spec{
		name:  "show-trace-timing",
		usage: "Print the HTTP trace timing table at the end of the run: blocked, DNS, connecting, sending, waiting (TTFB), receiving and total, in k6's terms.",
	})

	b.group = groupNetworkLatency
	b.add(&boolValue{recorder: b.rec("network-latency-automatic"), p: &f.NetworkLatencyAutomatic}, spec{
		name:  "network-latency-automatic",
		usage: "Measure the network round trip during the run (a fresh TCP handshake to each server every --network-latency-ping-interval, written to profile_export_network_latency.jsonl) and subtract its mean from request_latency, time_to_first_token and time_to_first_output_token, as separate network_adjusted_* metrics plus network_rtt; the raw metrics are kept. Not with --network-latency-mean.",
	})
	b.add(&floatPtrValue{recorder: b.rec("network-latency-mean"), p: &f.NetworkLatencyMeanMS}, spec{
		name: "network-latency-mean", meta: "<ms>",
		usage: "A fixed network round trip in milliseconds to subtract instead of probing (enables the network_adjusted_* metrics). Not with --network-latency-automatic.",
	})
	b.add(&floatPtrValue{recorder: b.rec("network-latency-ping-interval"), p: &f.NetworkLatencyPingInterval}, spec{
		name: "network-latency-ping-interval", meta: "<seconds>", def: "1.0",
		usage: "Seconds between round-trip probes; only with --network-latency-automatic.",
	})
}
