package benchmark

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// newTransportClient is the HTTP client of a run's requests: the engine,
// HTTP version, TLS and proxies of the configuration, with the pool sized
// for the run.
func newTransportClient(plan *Plan) (*transport.Client, error) {
	return buildTransportClient(plan, plan.Profiling.Concurrency, poolCap(plan))
}

// buildTransportClient is newTransportClient with the pool's idle and
// total connections per host given (0: the transport's defaults, no cap).
func buildTransportClient(plan *Plan, idle, conns int) (*transport.Client, error) {
	cfg := plan.Config
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	sign, err := plan.transportSigner()
	if err != nil {
		return nil, err
	}
	var proxy transport.ProxyFunc
	if cfg.Network.TrustEnv {
		proxy = transport.EnvProxy(plan.Env.Getenv)
	}
	return transport.New(transport.Options{
		Timeout:             seconds(cfg.Endpoint.TimeoutSeconds),
		MaxIdleConnsPerHost: idle, // 0 = the transport's large default
		MaxConnsPerHost:     conns,
		Reuse:               transportReuse(cfg),
		BackoffRefused:      cfg.Reliability.KeepGoingUnreachable,
		TraceDetail:         cfg.Fidelity.ExportHTTPTrace,
		LocalAddrs:          connBudget(plan).SourceAddrs(plan.URLs),
		ConnBufferSize:      connBudget(plan).BufferSize(),
		NetHTTP:             cfg.HTTPEngine() == config.ClientNetHTTP,
		HTTPVersion:         httpVersion(cfg),
		TLS:                 tc,
		Proxy:               proxy,
		Sign:                sign,

		MaxResponseHeaderBytes: int64(cfg.Network.MaxResponseHeaderBytes),
	}), nil
}

// tlsConfig loads the TLS files of the configuration; an unreadable one
// is a usage error naming its flag.
func tlsConfig(cfg *config.Config) (*tls.Config, error) {
	n := cfg.Network
	tc, err := transport.TLSFiles{CAFile: n.TLSCAFile, CertFile: n.TLSCertFile, KeyFile: n.TLSKeyFile, SkipVerify: n.TLSSkipVerify}.Config()
	if err != nil {
		flag := "--tls-cert-file/--tls-key-file"
		if n.TLSCAFile != "" && strings.Contains(err.Error(), n.TLSCAFile) {
			flag = "--tls-ca-file"
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return tc, nil
}

// httpVersion maps --http-version onto the transport's.
func httpVersion(cfg *config.Config) transport.HTTPVersion {
	switch cfg.HTTPVersionResolved() {
	case config.HTTP2:
		return transport.HTTP2
	case config.HTTPAuto:
		return transport.HTTPAuto
	}
	return transport.HTTP1
}

// warnIgnoredProxies says once that proxy variables are set but not used
// (AIPerf ignores them too unless AIPERF_HTTP_TRUST_ENV=true), so that a
// run that bypassed a required proxy is not a mystery.
func warnIgnoredProxies(plan *Plan, log *slog.Logger) {
	cfg := plan.Config
	warnIgnoredHTTPEnv(plan.Env.Getenv, log)
	if cfg.Network.TrustEnv {
		return
	}
	if set := transport.ProxyVars(plan.Env.Getenv); len(set) > 0 {
		log.Warn(fmt.Sprintf("%s set but not used: requests go direct; set AIPERF_HTTP_TRUST_ENV=true (or --trust-env) to send them through the proxy", strings.Join(set, ", ")))
	}
}

// scrubber removes the run's credentials from text the server wrote
// (response headers in --export-http-trace); nil when there are none.
func scrubber(cfg *config.Config) func(string) string {
	secrets := cfg.Secrets()
	if len(secrets) == 0 {
		return nil
	}
	return func(s string) string { return config.Scrub(s, secrets) }
}

// ignoredHTTPEnv is every AIPERF_HTTP_* variable of AIPerf's that this
// port does not honour, with what it does instead. The others are
// honoured: CONNECTION_LIMIT, SSL_VERIFY, TRUST_ENV, VIDEO_POLL_INTERVAL
// and the X_*_FROM_CORRELATION_ID headers.
var ignoredHTTPEnv = []struct{ name, instead string }{
	{"AIPERF_HTTP_KEEPALIVE_TIMEOUT", "idle connections are kept 90 s"},
	{"AIPERF_HTTP_SO_RCVBUF", "the kernel sizes socket buffers"},
	{"AIPERF_HTTP_SO_SNDBUF", "the kernel sizes socket buffers"},
	{"AIPERF_HTTP_SO_RCVTIMEO", "--request-timeout-seconds bounds each request"},
	{"AIPERF_HTTP_SO_SNDTIMEO", "--request-timeout-seconds bounds each request"},
	{"AIPERF_HTTP_TCP_KEEPCNT", "TCP keep-alive probes go every 30 s after 30 s idle"},
	{"AIPERF_HTTP_TCP_KEEPIDLE", "TCP keep-alive probes go every 30 s after 30 s idle"},
	{"AIPERF_HTTP_TCP_KEEPINTVL", "TCP keep-alive probes go every 30 s after 30 s idle"},
	{"AIPERF_HTTP_TCP_USER_TIMEOUT", "the kernel's default applies; --request-timeout-seconds bounds each request"},
	{"AIPERF_HTTP_TTL_DNS_CACHE", "there is no DNS cache: each new connection resolves the host"},
	{"AIPERF_HTTP_USE_DNS_CACHE", "there is no DNS cache: each new connection resolves the host"},
	{"AIPERF_HTTP_FORCE_CLOSE", "use --connection-reuse-strategy never for a new connection per request"},
	{"AIPERF_HTTP_ENABLE_CLEANUP_CLOSED", "closed connections are always released"},
	{"AIPERF_HTTP_REQUEST_CANCELLATION_SEND_TIMEOUT", "a cancelled request is bounded by --request-timeout-seconds"},
	{"AIPERF_HTTP_IP_VERSION", "both address families are tried, IPv4 and IPv6 raced (Go's dialer)"},
}

// warnIgnoredHTTPEnv names, once each, the AIPerf HTTP variables set in
// the environment that this port does not honour, and the honoured ones
// read here whose value does not parse (with the default that applies),
// so that a setting carried over from AIPerf is never silently without
// effect. (config.ApplyHTTPEnv refuses a bad AIPERF_HTTP_SSL_VERIFY,
// AIPERF_HTTP_TRUST_ENV, AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES or
// AIPERF_HTTP_CLIENT before the run.)
func warnIgnoredHTTPEnv(getenv func(string) string, log *slog.Logger) {
	for _, v := range ignoredHTTPEnv {
		if getenv(v.name) != "" {
			log.Warn(fmt.Sprintf("%s is not supported and is ignored: %s", v.name, v.instead))
		}
	}
	bad := func(name, want, def string) {
		log.Warn(fmt.Sprintf("%s=%q is not %s and is ignored: %s applies", name, getenv(name), want, def))
	}
	if _, ok := parseConnectionLimit(getenv(envConnectionLimit)); !ok {
		bad(envConnectionLimit, "a whole number from 1 to 65000", fmt.Sprintf("the default %d", DefaultConnectionLimit))
	}
	if _, ok := videoPollInterval(getenv(envVideoPollInterval)); !ok {
		bad(envVideoPollInterval, "a number of seconds from 0.001 to 10", fmt.Sprintf("the default %g s", DefaultVideoPollInterval.Seconds()))
	}
	for _, name := range affinityEnv {
		if v := getenv(name); v != "" {
			if _, err := config.EnvBool(v); err != nil {
				bad(name, "a boolean (true or false)", "the default")
			}
		}
	}
}
