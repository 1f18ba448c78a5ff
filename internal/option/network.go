package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// httpClientOptions lists the options from --http-client on, in help order.
func httpClientOptions() []Option {
	return []Option{
		{Name: "http-client",
			Group:   GroupNetwork,
			Meta:    "<engine>",
			Default: "lean for HTTP/1.1 and auto, net/http for --http-version 2",
			Choices: strs(config.HTTPClients()),
			Usage:   "The HTTP engine, which follows --http-version: lean = this port's own HTTP/1.1 client, the only one for HTTP/1.1, auto's included (measured cheaper and truer than net/http's; see BENCHMARKS.md); net/http = Go's standard client, the engine of HTTP/2. Giving it is never needed. Recorded in input_config. Not an AIPerf option.",
			Bind:    func(c *config.Config) any { return &c.Network.HTTPClient },
			// input_config's runtime records the engine that ran.
			NoInputConfig: true,
			Normalize:     func(s string) string { return string(config.NormalizeHTTPClient(s)) },
			Keys:          []Key{{Path: "benchmark.endpoint.http_client", Conv: ConvChoice, Doc: "HTTP engine, which follows http_version: lean for 1.1 and auto, net/http for 2; net/http is refused for 1.1 and auto (not an AIPerf key)."}}},
		{Name: "http-version",
			Group:   GroupNetwork,
			Meta:    "<version>",
			Default: string(config.HTTP11),
			Choices: strs(config.HTTPVersions()),
			Usage:   "HTTP version: 1.1 (AIPerf's); 2 = HTTP/2 only (h2 over TLS by ALPN, h2c by prior knowledge on http:// URLs, for gateways such as Envoy and gRPC-style ports); auto = HTTP/2 where a TLS server picks it by ALPN, else HTTP/1.1 (http:// URLs: HTTP/1.1). One HTTP/2 connection carries many requests at once. Not an AIPerf option.",
			Bind:    func(c *config.Config) any { return &c.Network.HTTPVersion },
			// input_config's runtime records the version that ran.
			NoInputConfig: true,
			Normalize:     func(s string) string { return string(config.NormalizeHTTPVersion(s)) },
			Keys:          []Key{{Path: "benchmark.endpoint.http_version", Conv: ConvChoice, Doc: "1.1 (the default), 2 (h2 by ALPN, h2c on http://) or auto (h2 where a TLS server picks it, else HTTP/1.1) (not an AIPerf key)."}}},
		{Name: "tls-ca-file",
			Group: GroupNetwork,
			Meta:  "<pem-file>",
			Usage: "Verify https servers against the certificate authorities in this PEM file instead of the system's (an internal CA, a self-signed server's own certificate). Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Network.TLSCAFile },
			Keys:  []Key{{Path: "benchmark.endpoint.tls.ca_file", Doc: "PEM bundle of the authorities that sign the server's certificate (not an AIPerf key)."}}},
		{Name: "tls-cert-file",
			Group: GroupNetwork,
			Meta:  "<pem-file>",
			Usage: "Client certificate (PEM) for servers that require one (mutual TLS); needs --tls-key-file. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Network.TLSCertFile },
			Keys:  []Key{{Path: "benchmark.endpoint.tls.cert_file", Doc: "PEM client certificate for mutual TLS; needs key_file (not an AIPerf key)."}}},
		{Name: "tls-key-file",
			Group: GroupNetwork,
			Meta:  "<pem-file>",
			Usage: "Private key (PEM) of --tls-cert-file. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Network.TLSKeyFile },
			Keys:  []Key{{Path: "benchmark.endpoint.tls.key_file", Doc: "PEM key of cert_file (not an AIPerf key)."}}},
		{Name: "tls-skip-verify",
			Group: GroupNetwork,
			Usage: "Accept any https server certificate (self-signed, expired, another host's): only against servers you trust. Same as AIPerf's AIPERF_HTTP_SSL_VERIFY=false. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Network.TLSSkipVerify },
			Keys:  []Key{{Path: "benchmark.endpoint.tls.skip_verify", Doc: "Accept any server certificate, as AIPERF_HTTP_SSL_VERIFY=false (not an AIPerf key)."}}},
		{Name: "http-max-response-header-bytes",
			Group: GroupNetwork,
			Meta:  "<bytes>",
			Usage: "Most bytes read of a response's status line and headers (interim 1xx heads included), 10485760 (net/http's 10 MiB) when not given: a server that sends more fails its request with an error naming this limit, instead of growing the client. Same as AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Network.MaxResponseHeaderBytes },
			Keys:  []Key{{Path: "benchmark.endpoint.http_max_response_header_bytes", Doc: "Most bytes of a response's status line and headers, as AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES; 10485760 when absent (not an AIPerf key)."}}},
		{Name: "trust-env",
			Group: GroupNetwork,
			Usage: "Send requests through the proxies named by HTTP_PROXY, HTTPS_PROXY and NO_PROXY (https through CONNECT; loopback targets never). Same as AIPerf's AIPERF_HTTP_TRUST_ENV=true; off by default, as in AIPerf. Not an AIPerf option.",
			Bind:  func(c *config.Config) any { return &c.Network.TrustEnv },
			Keys:  []Key{{Path: "benchmark.endpoint.trust_env", Doc: "Use the proxies of HTTP_PROXY, HTTPS_PROXY and NO_PROXY, as AIPERF_HTTP_TRUST_ENV=true (not an AIPerf key)."}}},
	}
}
