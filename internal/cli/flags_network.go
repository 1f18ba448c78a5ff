package cli

import "github.com/aiperf-go/aiperf/internal/config"

// groupNetwork is the help group of how the client reaches the servers
// (not an AIPerf panel: AIPerf sets these through AIPERF_HTTP_*).
const groupNetwork = "Network"

// addNetworkFlags registers the HTTP engine, HTTP version, TLS and proxy
// flags. AIPERF_HTTP_CLIENT, AIPERF_HTTP_SSL_VERIFY and
// AIPERF_HTTP_TRUST_ENV set the same fields (config.ApplyHTTPEnv). The
// engine follows the version; --http-client stays so that scripts that
// name it keep working, and net/http is refused for HTTP/1.1 with why.
func (b *flagBuilder) addNetworkFlags(cfg *config.Config) {
	n := &cfg.Network
	saved := b.group
	defer func() { b.group = saved }()
	b.group = groupNetwork
	b.add(&choiceValue[config.HTTPClient]{recorder: b.rec("http-client"), p: &n.HTTPClient, normalize: config.NormalizeHTTPClient}, spec{
		name: "http-client", meta: "<engine>",
		def:     "lean for HTTP/1.1, net/http for --http-version 2 or auto",
		choices: strs(config.HTTPClients()),
		usage:   "The HTTP engine, which follows --http-version: lean = this port's own HTTP/1.1 client, the only one for HTTP/1.1 (measured cheaper and truer than net/http's; see BENCHMARKS.md); net/http = Go's standard client, the engine of HTTP/2. Giving it is never needed. Recorded in input_config. Not an AIPerf option.",
	})
	b.add(&choiceValue[config.HTTPVersion]{recorder: b.rec("http-version"), p: &n.HTTPVersion, normalize: config.NormalizeHTTPVersion}, spec{
		name: "http-version", meta: "<version>",
		def:     string(config.HTTP11),
		choices: strs(config.HTTPVersions()),
		usage:   "HTTP version: 1.1 (AIPerf's); 2 = HTTP/2 only (h2 over TLS by ALPN, h2c by prior knowledge on http:// URLs, for gateways such as Envoy and gRPC-style ports); auto = HTTP/2 where a TLS server offers it, else HTTP/1.1. One HTTP/2 connection carries many requests at once. Not an AIPerf option.",
	})
	b.add(&stringValue{recorder: b.rec("tls-ca-file"), p: &n.TLSCAFile}, spec{
		name: "tls-ca-file", meta: "<pem-file>",
		usage: "Verify https servers against the certificate authorities in this PEM file instead of the system's (an internal CA, a self-signed server's own certificate). Not an AIPerf option.",
	})
	b.add(&stringValue{recorder: b.rec("tls-cert-file"), p: &n.TLSCertFile}, spec{
		name: "tls-cert-file", meta: "<pem-file>",
		usage: "Client certificate (PEM) for servers that require one (mutual TLS); needs --tls-key-file. Not an AIPerf option.",
	})
	b.add(&stringValue{recorder: b.rec("tls-key-file"), p: &n.TLSKeyFile}, spec{
		name: "tls-key-file", meta: "<pem-file>",
		usage: "Private key (PEM) of --tls-cert-file. Not an AIPerf option.",
	})
	b.add(&boolValue{recorder: b.rec("tls-skip-verify"), p: &n.TLSSkipVerify}, spec{
		name:  "tls-skip-verify",
		usage: "Accept any https server certificate (self-signed, expired, another host's): only against servers you trust. Same as AIPerf's AIPERF_HTTP_SSL_VERIFY=false. Not an AIPerf option.",
	})
	b.add(&boolValue{recorder: b.rec("trust-env"), p: &n.TrustEnv}, spec{
		name:  "trust-env",
		usage: "Send requests through the proxies named by HTTP_PROXY, HTTPS_PROXY and NO_PROXY (https through CONNECT; loopback targets never). Same as AIPerf's AIPERF_HTTP_TRUST_ENV=true; off by default, as in AIPerf. Not an AIPerf option.",
	})
}
