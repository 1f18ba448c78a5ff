package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/http/httpproxy"

	"github.com/aiperf-go/aiperf/internal/fdlimit"
)

// HTTPVersion is the HTTP version a Client speaks.
type HTTPVersion int

// HTTP versions. Only net/http's Transport speaks HTTP/2; the lean
// transport is HTTP/1.1.
const (
	// HTTP1 is HTTP/1.1 only (ALPN offers http/1.1), as AIPerf.
	HTTP1 HTTPVersion = iota
	// HTTP2 is HTTP/2 only: h2 over TLS by ALPN, h2c by prior knowledge
	// on http:// URLs.
	HTTP2
	// HTTPAuto offers h2 and http/1.1 over TLS and takes what the server
	// picks (h2 on net/http's Transport, HTTP/1.1 on the lean one);
	// http:// URLs stay HTTP/1.1, on the lean transport.
	HTTPAuto
)

// TLSFiles are the TLS settings of a run: the authorities to trust, the
// client certificate, and whether to verify at all.
type TLSFiles struct {
	CAFile, CertFile, KeyFile string
	SkipVerify                bool
}

// Config builds the tls.Config of f; nil when f asks for nothing (the
// system's authorities, no client certificate). A file that cannot be
// read or holds no usable PEM is an error naming it.
func (f TLSFiles) Config() (*tls.Config, error) {
	if f == (TLSFiles{}) {
		return nil, nil
	}
	cfg := &tls.Config{InsecureSkipVerify: f.SkipVerify} //nolint:gosec // opt-in for self-signed servers
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate", f.CAFile)
		}
		cfg.RootCAs = pool
	}
	if f.CertFile != "" || f.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("client certificate %s with key %s: %w", f.CertFile, f.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// ProxyFunc is how a request finds its proxy: nil URL for none.
type ProxyFunc func(*url.URL) (*url.URL, error)

// EnvProxy returns the proxies named by HTTP_PROXY, HTTPS_PROXY and
// NO_PROXY (or their lower-case forms) as read by getenv, with Go's
// rules (golang.org/x/net/http/httpproxy): https URLs use HTTPS_PROXY
// through CONNECT, http URLs HTTP_PROXY; NO_PROXY lists hosts, domains
// and CIDRs that go direct; loopback targets always go direct. Nil when
// no proxy is set.
func EnvProxy(getenv func(string) string) ProxyFunc {
	pick := func(upper string) string {
		if v := getenv(upper); v != "" {
			return v
		}
		return getenv(strings.ToLower(upper))
	}
	cfg := &httpproxy.Config{HTTPProxy: pick("HTTP_PROXY"), HTTPSProxy: pick("HTTPS_PROXY"), NoProxy: pick("NO_PROXY")}
	if cfg.HTTPProxy == "" && cfg.HTTPSProxy == "" {
		return nil
	}
	f := cfg.ProxyFunc()
	return func(u *url.URL) (*url.URL, error) { return f(u) }
}

// ProxyVars lists the proxy variables set in the environment (for the
// warning that they are ignored unless trusted).
func ProxyVars(getenv func(string) string) []string {
	var set []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		if getenv(k) != "" {
			set = append(set, k)
		}
	}
	return set
}

// basicAuth is the Authorization value of URL userinfo, as net/http's
// Client sends it.
func basicAuth(u *url.Userinfo) string {
	pw, _ := u.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw))
}

// protocols is the HTTP versions net/http's Transport may use for v.
func protocols(v HTTPVersion) *http.Protocols {
	p := new(http.Protocols)
	switch v {
	case HTTP2:
		p.SetHTTP2(true)
		p.SetUnencryptedHTTP2(true)
	case HTTPAuto:
		p.SetHTTP1(true)
		p.SetHTTP2(true)
	default:
		p.SetHTTP1(true)
	}
	return p
}

// Hints appended to connection errors that have a likely cause the user
// can fix. They name flags of the CLI: the transport's errors are read by
// people running it.
const (
	hintUnknownCA = "the server's certificate is not signed by a trusted authority: give its CA (or the certificate itself) with --tls-ca-file, or accept it with --tls-skip-verify (AIPERF_HTTP_SSL_VERIFY=false)"
	hintCertHost  = "the server's certificate does not name this host: use the host it names in --url, or --tls-skip-verify (AIPERF_HTTP_SSL_VERIFY=false)"
	hintNotTLS    = "the server does not speak TLS on this port: use http:// in --url"
	hintIsTLS     = "the server speaks TLS on this port: use https:// in --url"
	hintH2Only    = "the server speaks HTTP/2 only: add --http-version 2 (or auto)"
	hintNoH2      = "the server does not offer HTTP/2 over TLS: use --http-version auto or 1.1"
	hintH2C       = "the server answered in HTTP/2 (an h2c or gRPC port): add --http-version 2"
	hintClientCrt = "the server asks for a client certificate: give one with --tls-cert-file and --tls-key-file"
)

// withHint returns err with the fix for its likely cause appended, or err
// unchanged when it has none.
func withHint(err error) error {
	var he *hintError
	if errors.As(err, &he) {
		return err // diagnose gave it the hint its version calls for
	}
	if h := hint(err); h != "" {
		return &hintError{err: err, hint: h}
	}
	return err
}

func hint(err error) string {
	var (
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		rec     tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown):
		return hintUnknownCA
	case errors.As(err, &host):
		return hintCertHost
	case errors.As(err, &invalid):
		return hintUnknownCA
	case errors.As(err, &rec):
		return hintNotTLS
	}
	if errors.Is(err, syscall.EMFILE) {
		return hintFileLimit()
	}
	s := err.Error()
	switch {
	case strings.Contains(s, "server gave HTTP response to HTTPS client"):
		return hintNotTLS
	case strings.Contains(s, "no application protocol"):
		return hintH2Only
	case strings.Contains(s, "certificate required"), strings.Contains(s, "bad certificate"):
		return hintClientCrt
	case strings.Contains(s, `\x00\x00`) && strings.Contains(s, "malformed HTTP"):
		return hintH2C // a SETTINGS frame where a status line should be
	case strings.Contains(s, `\x15\x03`) && strings.Contains(s, "malformed HTTP"):
		return hintIsTLS // a TLS alert where a status line should be
	}
	return ""
}

// hintFileLimit names the open-file limit a connection ran into (every
// connection holds a descriptor in this process) and the two ways past
// it: more processes, or a higher hard limit.
func hintFileLimit() string {
	limit := "this process's open-file limit"
	if l, ok := fdlimit.Current(); ok {
		limit = fmt.Sprintf("this process's open-file limit (%d, hard %d)", l.Soft, l.Hard)
	}
	return limit + " is reached, one descriptor per connection: spread the connections over load-worker processes with --workers N, or raise the hard limit (ulimit -Hn)"
}

// hintError is an error with the likely fix after it.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() + " (" + e.hint + ")" }
func (e *hintError) Unwrap() error { return e.err }

// plainToTLSHint is the hint of a 400 answer whose body says a plain
// request reached a TLS port (Go's, nginx's, Envoy's wording).
func plainToTLSHint(status int, body []byte) string {
	if status != http.StatusBadRequest {
		return ""
	}
	b := strings.ToLower(string(body))
	if strings.Contains(b, "http request to an https server") || strings.Contains(b, "plain http request was sent to https port") {
		return hintIsTLS
	}
	return ""
}

// diagnose adds to err, the failure of a request to u before any
// response, the hint that the server speaks HTTP/2 only, when it does: a
// TLS server that dropped an HTTP/1.1 request and picks h2 when offered
// it alone. The probe is one TLS handshake, made once per host and
// remembered, so a run of failures costs one.
func (c *Client) diagnose(ctx context.Context, u string, err error) error {
	if c.version == HTTP2 && strings.Contains(err.Error(), "no application protocol") {
		return &hintError{err: unwrapURL(err), hint: hintNoH2}
	}
	// Whether the server closed before or after net/http wrote the
	// request is a race: "server closed idle connection" is the same
	// dropped request as an EOF (closedBeforeResponse).
	if c.version != HTTP1 || hint(err) != "" || !closedBeforeResponse(err) {
		return err
	}
	pu, perr := c.parseURL(u)
	if perr != nil || pu.Scheme != "https" {
		return err
	}
	key, kerr := urlHost(pu)
	if kerr != nil {
		return err
	}
	h2, ok := c.h2only.Load(key.addr)
	if !ok {
		h2 = probeH2(ctx, c.dial, key.addr, pu.Hostname(), c.tlsBase)
		c.h2only.Store(key.addr, h2)
	}
	if h2.(bool) {
		return &hintError{err: unwrapURL(err), hint: hintH2Only}
	}
	return err
}

// unwrapURL is err without url.Error's "Post URL:" wrapper: the hint goes
// on what Do records (see fail), which drops that wrapper.
func unwrapURL(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

// probeH2 reports whether the TLS server at addr picks h2 when it is the
// only protocol offered.
func probeH2(ctx context.Context, dial dialFunc, addr, host string, base *tls.Config) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	nc, err := dial(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer nc.Close()
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	cfg.ServerName, cfg.NextProtos = host, []string{"h2"}
	tc := tls.Client(nc, cfg)
	if tc.HandshakeContext(ctx) != nil {
		return false
	}
	return tc.ConnectionState().NegotiatedProtocol == "h2"
}
