package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// HTTPVersion is the HTTP version the client speaks (--http-version).
type HTTPVersion string

// HTTP versions. "" means not given: 1.1, as AIPerf.
const (
	HTTP11   HTTPVersion = "1.1"
	HTTP2    HTTPVersion = "2"
	HTTPAuto HTTPVersion = "auto"
)

// HTTPVersions lists the valid --http-version values in help order.
func HTTPVersions() []HTTPVersion { return []HTTPVersion{HTTP11, HTTP2, HTTPAuto} }

// HTTPClient is the HTTP engine that sends the requests. It follows
// the HTTP version and is recorded in input_config; --http-client and
// AIPERF_HTTP_CLIENT may name it only as it is.
type HTTPClient string

// HTTP engines. "" means not given: see Config.HTTPEngine.
const (
	// ClientLean is the project's own HTTP/1.1 client, the only engine
	// of HTTP/1.1: of --http-version 1.1, and of auto, which hands only
	// the TLS servers that pick h2 to net/http.
	ClientLean HTTPClient = "lean"
	// ClientNetHTTP is Go's net/http Transport: the engine of
	// --http-version 2, and in tests the reference the lean client is
	// checked against. It is not offered for HTTP/1.1, by
	// measurement: it costs more CPU per request and loses early
	// responses and stray bytes the lean client keeps (BENCHMARKS.md,
	// "Transport truth").
	ClientNetHTTP HTTPClient = "net/http"
)

// HTTPClients lists the engines in help order.
func HTTPClients() []HTTPClient { return []HTTPClient{ClientLean, ClientNetHTTP} }

// netHTTPRefused is why net/http cannot be chosen for HTTP/1.1.
const netHTTPRefused = "net/http is not an HTTP/1.1 engine any more: HTTP/1.1 runs on the lean client only, " +
	"decided by measurement (it uses less CPU per request and keeps an early 413 and stray responses that net/http loses; " +
	"see BENCHMARKS.md, \"Transport truth\"); net/http runs HTTP/2 (--http-version 2, and under auto the TLS servers that pick h2)"

// Network is how the HTTP client reaches the servers: engine, HTTP
// version, TLS and proxies. None is an AIPerf flag; AIPerf sets TLS
// verification and proxy use through AIPERF_HTTP_SSL_VERIFY and
// AIPERF_HTTP_TRUST_ENV, which ApplyHTTPEnv reads into these fields so
// that input_config records what the run did.
type Network struct {
	// HTTPClient is the engine (--http-client names it, if at all, as
	// the version implies); "" = Config.HTTPEngine.
	HTTPClient HTTPClient `json:"http_client,omitempty"`
	// HTTPVersion (--http-version); "" = 1.1.
	HTTPVersion HTTPVersion `json:"http_version,omitempty"`
	// TLSCAFile (--tls-ca-file) is a PEM bundle of the authorities that
	// may sign the server's certificate, in place of the system's.
	TLSCAFile string `json:"tls_ca_file,omitempty"`
	// TLSCertFile and TLSKeyFile (--tls-cert-file, --tls-key-file) are
	// the PEM client certificate and its key, for servers that ask for
	// one (mutual TLS).
	TLSCertFile string `json:"tls_cert_file,omitempty"`
	TLSKeyFile  string `json:"tls_key_file,omitempty"`
	// TLSSkipVerify (--tls-skip-verify, AIPERF_HTTP_SSL_VERIFY=false)
	// accepts any server certificate.
	TLSSkipVerify bool `json:"tls_skip_verify,omitempty"`
	// TrustEnv (--trust-env, AIPERF_HTTP_TRUST_ENV=true) sends requests
	// through the proxies of HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
	TrustEnv bool `json:"trust_env,omitempty"`
	// MaxResponseHeaderBytes (--http-max-response-header-bytes,
	// AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES) caps a response's head, its
	// status line and headers; a server that sends more fails its request
	// with an error naming the limit. 0 = the transport's default
	// (net/http's 10 MiB).
	MaxResponseHeaderBytes int `json:"http_max_response_header_bytes,omitempty"`
}

// HTTPVersionResolved is --http-version, or 1.1 when not given.
func (c *Config) HTTPVersionResolved() HTTPVersion {
	if c.Network.HTTPVersion == "" {
		return HTTP11
	}
	return c.Network.HTTPVersion
}

// HTTPEngine is the engine that sends the run's requests: the lean
// client for HTTP/1.1 and auto (whose HTTP/1.1 it carries; a TLS server
// that picks h2 goes to net/http), net/http for HTTP/2 (the lean client
// speaks HTTP/1.1 only). A given engine that does not match the version
// is a validation problem.
func (c *Config) HTTPEngine() HTTPClient {
	if c.Network.HTTPClient != "" {
		return c.Network.HTTPClient
	}
	if c.HTTPVersionResolved() == HTTP2 {
		return ClientNetHTTP
	}
	return ClientLean
}

// NormalizeHTTPClient canonicalises an engine name ("NET/HTTP",
// " nethttp ", "net-http" are net/http).
func NormalizeHTTPClient(s string) HTTPClient {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "nethttp", "net-http", "net_http", "go":
		return ClientNetHTTP
	}
	return HTTPClient(s)
}

// NormalizeHTTPVersion canonicalises a version ("1", "http/1.1", "h2",
// "HTTP/2", "2.0").
func NormalizeHTTPVersion(s string) HTTPVersion {
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "http/")
	switch s {
	case "1", "1.1", "h1", "http1.1":
		return HTTP11
	case "2", "2.0", "h2", "http2":
		return HTTP2
	}
	return HTTPVersion(s)
}

// The AIPERF_HTTP_* variables this port reads into the configuration.
const (
	// EnvHTTPClient named the engine when --http-client was not given
	// (this port's variable): lean is accepted, net/http is refused for
	// HTTP/1.1 with the reason.
	EnvHTTPClient = "AIPERF_HTTP_CLIENT"
	// EnvSSLVerify is AIPerf's switch for certificate verification.
	EnvSSLVerify = "AIPERF_HTTP_SSL_VERIFY"
	// EnvTrustEnv is AIPerf's opt-in to the proxy variables.
	EnvTrustEnv = "AIPERF_HTTP_TRUST_ENV"
	// EnvMaxResponseHeaderBytes caps a response's head (this port's
	// variable, as --http-max-response-header-bytes).
	EnvMaxResponseHeaderBytes = "AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES"
)

// ApplyHTTPEnv reads AIPerf's AIPERF_HTTP_* settings that shape the
// client into the configuration (a flag given wins over its variable)
// and resolves the engine, so that input_config names the one that ran.
// A value that does not parse is a problem naming the variable.
func (c *Config) ApplyHTTPEnv(getenv func(string) string) error {
	var p problems
	n := &c.Network
	if v := getenv(EnvHTTPClient); v != "" && n.HTTPClient == "" {
		n.HTTPClient = NormalizeHTTPClient(v)
		if !slices.Contains(HTTPClients(), n.HTTPClient) {
			p.add(EnvHTTPClient, "invalid value %q (choose from %s)", v, joinChoices(HTTPClients()))
			n.HTTPClient = "" // one problem, named by the variable
		} else if n.HTTPClient == ClientNetHTTP && c.HTTPVersionResolved() != HTTP2 {
			p.add(EnvHTTPClient, "%s", netHTTPRefused)
			n.HTTPClient = ""
		}
	}
	if v := getenv(EnvSSLVerify); v != "" {
		if on, err := EnvBool(v); err != nil {
			p.add(EnvSSLVerify, "%v", err)
		} else if !on {
			n.TLSSkipVerify = true
		}
	}
	if v := getenv(EnvTrustEnv); v != "" {
		if on, err := EnvBool(v); err != nil {
			p.add(EnvTrustEnv, "%v", err)
		} else if on {
			n.TrustEnv = true
		}
	}
	if v := getenv(EnvMaxResponseHeaderBytes); v != "" && n.MaxResponseHeaderBytes == 0 {
		if b, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || b <= 0 {
			p.add(EnvMaxResponseHeaderBytes, "invalid value %s (a positive number of bytes)", strconv.Quote(v))
		} else {
			n.MaxResponseHeaderBytes = b
		}
	}
	if len(p) == 0 && n.HTTPClient == "" {
		n.HTTPClient = c.HTTPEngine()
	}
	return errors.Join(p...)
}

// EnvBool parses a boolean as pydantic does for AIPerf's settings; an
// error names the value and what is accepted.
func EnvBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "t", "yes", "y", "on":
		return true, nil
	case "0", "false", "f", "no", "n", "off":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean %s (use true or false)", strconv.Quote(v))
}

func (c *Config) validateNetwork(p *problems) {
	n := &c.Network
	if n.HTTPClient != "" && !slices.Contains(HTTPClients(), n.HTTPClient) {
		p.add("--http-client", "invalid choice %q (choose from %s)", n.HTTPClient, joinChoices(HTTPClients()))
	}
	if v := c.HTTPVersionResolved(); !slices.Contains(HTTPVersions(), v) {
		p.add("--http-version", "invalid choice %q (choose from %s)", n.HTTPVersion, joinChoices(HTTPVersions()))
	} else if v == HTTP2 && n.HTTPClient == ClientLean {
		p.add("--http-version", "%s runs on net/http, the HTTP/2 engine: --http-client lean speaks HTTP/1.1 only", v)
	} else if v != HTTP2 && n.HTTPClient == ClientNetHTTP {
		p.add("--http-client", "%s", netHTTPRefused)
	}
	if (n.TLSCertFile == "") != (n.TLSKeyFile == "") {
		p.add("--tls-cert-file", "a client certificate needs both --tls-cert-file and --tls-key-file")
	}
	if n.MaxResponseHeaderBytes < 0 {
		p.add("--http-max-response-header-bytes", "must be a positive number of bytes (%d given)", n.MaxResponseHeaderBytes)
	}
	if n.TLSSkipVerify && n.TLSCAFile != "" {
		p.add("--tls-ca-file", "has no effect with --tls-skip-verify (AIPERF_HTTP_SSL_VERIFY=false), which accepts any certificate")
	}
}
