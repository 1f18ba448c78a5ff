package benchmark

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/transport"
)

// newTransportClient is the HTTP client of a run's requests: the engine,
// HTTP version, TLS and proxies of the configuration, with the pool sized
// for the run.
func newTransportClient(plan *Plan) (*transport.Client, error) {
	cfg := plan.Config
	tc, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	var proxy transport.ProxyFunc
	if cfg.Network.TrustEnv {
		proxy = transport.EnvProxy(os.Getenv)
	}
	return transport.New(transport.Options{
		Timeout:             seconds(cfg.Endpoint.TimeoutSeconds),
		MaxIdleConnsPerHost: plan.Profiling.Concurrency, // 0 = the transport's large default
		MaxConnsPerHost:     poolCap(plan),
		Reuse:               transportReuse(cfg),
		BackoffRefused:      cfg.Reliability.KeepGoingUnreachable,
		TraceDetail:         cfg.Fidelity.ExportHTTPTrace,
		LocalAddrs:          connBudget(plan).SourceAddrs(plan.URLs),
		ConnBufferSize:      connBudget(plan).BufferSize(),
		NetHTTP:             cfg.HTTPEngine() == config.ClientNetHTTP,
		HTTPVersion:         httpVersion(cfg),
		TLS:                 tc,
		Proxy:               proxy,
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
func warnIgnoredProxies(cfg *config.Config, log *slog.Logger) {
	if cfg.Network.TrustEnv {
		return
	}
	if set := transport.ProxyVars(os.Getenv); len(set) > 0 {
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
