package config

import (
	"strings"
	"testing"
)

// TestHTTPEngineFollowsVersion: the engine follows --http-version; naming
// net/http for HTTP/1.1 (flag, YAML field or AIPERF_HTTP_CLIENT) is
// refused with the reason and where its figures are, naming what was
// set (auto included: its HTTP/1.1 runs on lean); lean and the HTTP/2
// engine are accepted as they are.
func TestHTTPEngineFollowsVersion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		client  HTTPClient
		version HTTPVersion
		env     string
		want    HTTPClient // the engine resolved, when no problem
		problem string     // "" = none; else the start of the one problem
	}{
		{name: "default", want: ClientLean},
		{name: "lean flag", client: ClientLean, want: ClientLean},
		{name: "lean env", env: "lean", want: ClientLean},
		{name: "h2 default", version: HTTP2, want: ClientNetHTTP},
		{name: "auto default", version: HTTPAuto, want: ClientLean},
		{name: "auto with lean flag", version: HTTPAuto, client: ClientLean, want: ClientLean},
		{name: "auto with net/http flag", version: HTTPAuto, client: ClientNetHTTP, problem: "--http-client: net/http is not an HTTP/1.1 engine"},
		{name: "auto with net/http env", version: HTTPAuto, env: "net/http", problem: EnvHTTPClient + ": net/http is not an HTTP/1.1 engine"},
		{name: "h2 with net/http env", version: HTTP2, env: "NET/HTTP", want: ClientNetHTTP},
		{name: "net/http flag", client: ClientNetHTTP, problem: "--http-client: net/http is not an HTTP/1.1 engine"},
		{name: "net/http env", env: "net/http", problem: EnvHTTPClient + ": net/http is not an HTTP/1.1 engine"},
		{name: "lean with h2", version: HTTP2, client: ClientLean, problem: "--http-version: 2 runs on net/http"},
		{name: "unknown env", env: "curl", problem: EnvHTTPClient + `: invalid value "curl"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Network.HTTPClient, c.Network.HTTPVersion = tc.client, tc.version
			errs := applyAndValidate(&c, EnvHTTPClient, tc.env)
			if tc.problem == "" {
				if len(errs) != 0 || c.Network.HTTPClient != tc.want {
					t.Fatalf("engine %q, problems %v; want %q and none", c.Network.HTTPClient, errs, tc.want)
				}
				return
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.problem) {
				t.Fatalf("problems %v; want one starting %q", errs, tc.problem)
			}
			if strings.Contains(tc.problem, "not an HTTP/1.1 engine") && !strings.Contains(errs[0].Error(), `BENCHMARKS.md, "Transport truth"`) {
				t.Errorf("%v does not say where the decision is", errs[0])
			}
		})
	}
}

// TestMaxResponseHeaderBytes: AIPERF_HTTP_MAX_RESPONSE_HEADER_BYTES sets
// the response head cap unless the flag gave one; a value that is not a
// positive number is a problem naming the variable or the flag.
func TestMaxResponseHeaderBytes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flag    int
		env     string
		want    int
		problem string
	}{
		{name: "default", want: 0},
		{name: "env", env: "65536", want: 65536},
		{name: "flag wins", flag: 4096, env: "65536", want: 4096},
		{name: "env not a number", env: "64k", problem: EnvMaxResponseHeaderBytes + `: invalid value "64k"`},
		{name: "env zero", env: "0", problem: EnvMaxResponseHeaderBytes + `: invalid value "0"`},
		{name: "flag negative", flag: -1, problem: "--http-max-response-header-bytes: must be a positive number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Network.MaxResponseHeaderBytes = tc.flag
			errs := applyAndValidate(&c, EnvMaxResponseHeaderBytes, tc.env)
			if tc.problem == "" {
				if len(errs) != 0 || c.Network.MaxResponseHeaderBytes != tc.want {
					t.Fatalf("limit %d, problems %v; want %d and none", c.Network.MaxResponseHeaderBytes, errs, tc.want)
				}
				return
			}
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.problem) {
				t.Fatalf("problems %v; want one starting %q", errs, tc.problem)
			}
		})
	}
}

// applyAndValidate applies an environment where only name is set (to
// value) and validates the network settings: the problems of both.
func applyAndValidate(c *Config, name, value string) []error {
	var errs []error
	if err := c.ApplyHTTPEnv(func(k string) string {
		if k == name {
			return value
		}
		return ""
	}); err != nil {
		errs = append(errs, err)
	}
	var p problems
	c.validateNetwork(&p)
	return append(errs, p...)
}
