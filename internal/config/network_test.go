package config

import (
	"strings"
	"testing"
)

// TestHTTPEngineFollowsVersion: the engine follows --http-version; naming
// net/http for HTTP/1.1 (flag, YAML field or AIPERF_HTTP_CLIENT) is
// refused with the reason and where its figures are, naming what was
// set; lean and the HTTP/2 engine are accepted as they are.
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
		{name: "auto with net/http flag", version: HTTPAuto, client: ClientNetHTTP, want: ClientNetHTTP},
		{name: "h2 with net/http env", version: HTTP2, env: "NET/HTTP", want: ClientNetHTTP},
		{name: "net/http flag", client: ClientNetHTTP, problem: "--http-client: net/http is not an HTTP/1.1 engine"},
		{name: "net/http env", env: "net/http", problem: EnvHTTPClient + ": net/http is not an HTTP/1.1 engine"},
		{name: "lean with h2", version: HTTP2, client: ClientLean, problem: "--http-version: 2 runs on net/http"},
		{name: "unknown env", env: "curl", problem: EnvHTTPClient + `: invalid value "curl"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			c.Network.HTTPClient, c.Network.HTTPVersion = tc.client, tc.version
			var errs []error
			if err := c.ApplyHTTPEnv(func(k string) string {
				if k == EnvHTTPClient {
					return tc.env
				}
				return ""
			}); err != nil {
				errs = append(errs, err)
			}
			var p problems
			c.validateNetwork(&p)
			errs = append(errs, p...)
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
