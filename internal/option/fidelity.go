package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// preConnectOptions lists the options from --pre-connect on, in help order.
func preConnectOptions() []Option {
	return []Option{
		{Name: "pre-connect",
			Group:       GroupEndpoint,
			Meta:        "<n|auto>",
			Usage:       "Open connections to each server before the first request, so no early request pays the TCP handshake inside its time to first token (k6 and wrk open theirs first; AIPerf does not). auto (the value when the flag is given alone) opens --concurrency connections, or one second of --request-rate (at most 1,024) for a rate-only run; a number opens that many. The summary counts the requests that still opened a connection (client_health.connections_opened). Not an AIPerf option.",
			Bind:        func(c *config.Config) any { return &c.Fidelity.PreConnect },
			NoOptDefVal: "auto",
			Keys:        []Key{{Path: "benchmark.endpoint.pre_connect", Doc: "Connections to open to each server before the first request: auto or a number (not an AIPerf key)."}}},
		{Name: "otlp-traces-receiver",
			Group: GroupEndpoint,
			Meta:  "<host:port>",
			Usage: "Receive the server's per-request OpenTelemetry trace spans on this address (OTLP over gRPC and HTTP/protobuf, both on the one port) and join them to the records by X-Request-ID, for the time decomposition: point vLLM's --otlp-traces-endpoint here. A record waits up to 10 s for its span. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Fidelity.OTLPTracesReceiver },
			Keys:  []Key{{Path: "benchmark.endpoint.otlp_traces_receiver", Doc: "host:port to receive the server's per-request OTLP trace spans on (gRPC and HTTP/protobuf), joined to the records by X-Request-ID (not an AIPerf key)."}}},
		{Name: "fail-on-invalid",
			Group: GroupEndpoint,
			Usage: "Exit with status 4 when the run's validity verdict (client_health.validity) is INVALID: the client did not offer the load it reports (requests due and never sent, a send-lag tail over 10 times its limit, under 90% of the scheduled rate, a lost load worker, too few file descriptors). Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Fidelity.FailOnInvalid },
			Keys:  []Key{{Path: "benchmark.artifacts.fail_on_invalid", Doc: "Exit with status 4 when the run's validity verdict is INVALID (not an AIPerf key)."}}},
		{Name: "export-http-trace",
			Group: GroupHTTPTrace,
			Usage: "Include each request's HTTP trace data in profile_export.jsonl (trace_data: timestamps of every phase, each transport read and write, the headers with credentials redacted, the socket's addresses). The http_req_* metrics are written whether or not this is set.",
			Bind:  func(c *config.Config) any { return &c.Fidelity.ExportHTTPTrace },
			Keys:  []Key{{Path: "benchmark.artifacts.trace", Doc: "Write each request's HTTP trace data (trace_data) into profile_export.jsonl."}}},
		{Name: "show-trace-timing",
			Group: GroupHTTPTrace,
			Usage: "Print the HTTP trace timing table at the end of the run: blocked, DNS, connecting, sending, waiting (TTFB), receiving and total, in k6's terms.",
			Bind:  func(c *config.Config) any { return &c.Fidelity.ShowTraceTiming },
			Keys:  []Key{{Path: "benchmark.artifacts.show_trace_timing", Doc: "Print the HTTP trace timing table in the console."}}},
		{Name: "network-latency-automatic",
			Group: GroupNetworkLatency,
			Usage: "Measure the network round trip during the run (a fresh TCP handshake to each server every --network-latency-ping-interval, written to profile_export_network_latency.jsonl) and subtract its mean from request_latency, time_to_first_token and time_to_first_output_token, as separate network_adjusted_* metrics plus network_rtt; the raw metrics are kept. Not with --network-latency-mean.",
			Bind:  func(c *config.Config) any { return &c.Fidelity.NetworkLatencyAutomatic },
			Keys:  []Key{{Path: "benchmark.network_latency.enabled", Bind: func(c *config.Config) any { return &c.Fidelity.NetworkLatencyEnabled }, Doc: "Subtract the network round trip from request-start-anchored latencies (network_adjusted_* metrics): probed every ping_interval, or mean_ms when given."}}},
		{Name: "network-latency-mean",
			Group: GroupNetworkLatency,
			Meta:  "<ms>",
			Usage: "A fixed network round trip in milliseconds to subtract instead of probing (enables the network_adjusted_* metrics). Not with --network-latency-automatic.",
			Bind:  func(c *config.Config) any { return &c.Fidelity.NetworkLatencyMeanMS },
			Keys:  []Key{{Path: "benchmark.network_latency.mean_ms", Doc: "A fixed round trip in milliseconds, subtracted instead of probing."}}},
		{Name: "network-latency-ping-interval",
			Group:   GroupNetworkLatency,
			Meta:    "<seconds>",
			Default: "1.0",
			Usage:   "Seconds between round-trip probes; only with --network-latency-automatic.",
			Bind:    func(c *config.Config) any { return &c.Fidelity.NetworkLatencyPingInterval },
			Keys:    []Key{{Path: "benchmark.network_latency.ping_interval", Conv: ConvDuration, Doc: "Seconds between round-trip probes (default 1)."}}},
	}
}
