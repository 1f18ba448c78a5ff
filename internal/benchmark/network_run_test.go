package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestHTTPTraceRedactsEchoedCredentials: a server that echoes the API key
// and the URL's Basic credentials in its response headers leaves none of
// them in profile_export.jsonl with --export-http-trace, in both engines
// (lean for HTTP/1.1, and for --http-version auto, which speaks HTTP/1.1
// to an http:// server; net/http, the HTTP/2 engine, with --http-version
// 2, h2c by prior knowledge); the run's input_config names the engine,
// and the server saw the protocol of that engine.
func TestHTTPTraceRedactsEchoedCredentials(t *testing.T) {
	t.Parallel()
	h := mockserver.New(mockConfig(t, nil))
	var protos sync.Map // "HTTP/1.1", "HTTP/2.0" -> true
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		protos.Store(r.Proto, true)
		w.Header().Set("X-Echo-Auth", r.Header.Get("Authorization"))
		w.Header().Set("X-Debug", "key=sk-echoed-1234 user=alice")
		h.ServeHTTP(w, r)
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	for _, tc := range []struct {
		version config.HTTPVersion
		engine  config.HTTPClient
		proto   string
	}{
		{config.HTTP11, config.ClientLean, "HTTP/1.1"},
		{config.HTTPAuto, config.ClientLean, "HTTP/1.1"},
		{config.HTTP2, config.ClientNetHTTP, "HTTP/2.0"},
	} {
		version, engine := tc.version, tc.engine
		t.Run(string(version)+"_"+strings.ReplaceAll(string(engine), "/", "_"), func(t *testing.T) {
			protos.Clear()
			defer func() {
				seen := 0
				protos.Range(func(k, _ any) bool {
					seen++
					if k != tc.proto {
						t.Errorf("the server saw a %s request; want %s only", k, tc.proto)
					}
					return true
				})
				if seen == 0 {
					t.Errorf("the server saw no request")
				}
			}()
			for _, auth := range []string{"url", "key"} {
				url := srv.URL
				cfg := baseConfig(t, url)
				if auth == "url" {
					cfg.Endpoint.URLs = []string{strings.Replace(url, "http://", "http://alice:pw-9876@", 1)}
				} else {
					cfg.Endpoint.APIKey = "sk-echoed-1234"
				}
				cfg.Load.RequestCount = ptr(2)
				cfg.Fidelity.ExportHTTPTrace = true
				cfg.Network.HTTPVersion = version
				if out, err := run(t, context.Background(), cfg); err != nil {
					t.Fatalf("Run: %v\n%s", err, out)
				}
				b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				secrets := []string{"sk-echoed-1234"}
				if auth == "url" {
					secrets = []string{"pw-9876", "YWxpY2U6cHctOTg3Ng=="} // the key is not a secret of this run
				}
				for _, secret := range secrets {
					if strings.Contains(string(b), secret) {
						t.Errorf("%s: profile_export.jsonl holds %q", auth, secret)
					}
				}
				if !strings.Contains(string(b), "response_headers") {
					t.Errorf("%s: no response_headers in the trace", auth)
				}
				in, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(in), `"http_client": "`+string(engine)+`"`) && !strings.Contains(string(in), `"http_client":"`+string(engine)+`"`) {
					t.Errorf("input_config does not name the engine %s", engine)
				}
			}
		})
	}
}

// TestIgnoredHTTPEnv: each AIPerf HTTP variable this port does not honour
// is named when set, with what happens instead; honoured ones are not.
func TestIgnoredHTTPEnv(t *testing.T) {
	env := map[string]string{"AIPERF_HTTP_TCP_KEEPIDLE": "10", "AIPERF_HTTP_FORCE_CLOSE": "true", "AIPERF_HTTP_CONNECTION_LIMIT": "10", "AIPERF_HTTP_SSL_VERIFY": "false"}
	var buf bytes.Buffer
	warnIgnoredHTTPEnv(func(k string) string { return env[k] }, slog.New(slog.NewTextHandler(&buf, nil)))
	out := buf.String()
	for _, want := range []string{"AIPERF_HTTP_TCP_KEEPIDLE is not supported", "AIPERF_HTTP_FORCE_CLOSE is not supported and is ignored: use --connection-reuse-strategy never"} {
		if !strings.Contains(out, want) {
			t.Errorf("log %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "CONNECTION_LIMIT") || strings.Contains(out, "SSL_VERIFY") || strings.Count(out, "\n") != 2 {
		t.Errorf("log %q; want exactly the two ignored variables", out)
	}
}

// aiperfHTTPEnv is every AIPERF_HTTP_* variable of AIPerf 0.13: the table
// of its docs/environment_variables.md, and those its HTTP client reads
// besides (SSL_VERIFY, TRUST_ENV, IP_VERSION, VIDEO_POLL_INTERVAL and the
// X_*_FROM_CORRELATION_ID headers).
var aiperfHTTPEnv = []string{
	"AIPERF_HTTP_CONNECTION_LIMIT", "AIPERF_HTTP_KEEPALIVE_TIMEOUT", "AIPERF_HTTP_SO_RCVBUF",
	"AIPERF_HTTP_SO_RCVTIMEO", "AIPERF_HTTP_SO_SNDBUF", "AIPERF_HTTP_SO_SNDTIMEO", "AIPERF_HTTP_TCP_KEEPCNT",
	"AIPERF_HTTP_TCP_KEEPIDLE", "AIPERF_HTTP_TCP_KEEPINTVL", "AIPERF_HTTP_TCP_USER_TIMEOUT",
	"AIPERF_HTTP_TTL_DNS_CACHE", "AIPERF_HTTP_FORCE_CLOSE", "AIPERF_HTTP_ENABLE_CLEANUP_CLOSED",
	"AIPERF_HTTP_USE_DNS_CACHE", "AIPERF_HTTP_REQUEST_CANCELLATION_SEND_TIMEOUT",
	"AIPERF_HTTP_SSL_VERIFY", "AIPERF_HTTP_TRUST_ENV", "AIPERF_HTTP_IP_VERSION", "AIPERF_HTTP_VIDEO_POLL_INTERVAL",
	"AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID", "AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID",
	"AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID", "AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID",
}

// TestAIPerfHTTPEnv: every AIPERF_HTTP_* variable of AIPerf 0.13 is
// either honoured (a valid value takes effect without a word; one that
// does not parse is refused before the run or warned about by name, with
// the default that applies) or, when set, named in the log as ignored
// with what happens instead. None is silently without effect.
func TestAIPerfHTTPEnv(t *testing.T) {
	configEnv := func(env map[string]string) (*config.Config, error) {
		var c config.Config
		return &c, c.ApplyHTTPEnv(func(k string) string { return env[k] })
	}
	affinity := func(name, header string, on bool) func(*testing.T, string) {
		return func(t *testing.T, v string) {
			got := slices.Contains(affinityHeaders(func(k string) string { return map[string]string{name: v}[k] }), header)
			if got != on {
				t.Errorf("%s=%s: %s sent %v; want %v", name, v, header, got, on)
			}
		}
	}
	honoured := map[string]struct {
		valid, invalid string
		effect         func(t *testing.T, v string)
		refused        bool // an invalid value stops the run (else: warned)
	}{
		"AIPERF_HTTP_CONNECTION_LIMIT": {valid: "10", invalid: "0", effect: func(t *testing.T, v string) {
			if n, ok := parseConnectionLimit(v); !ok || n != 10 {
				t.Errorf("limit %d; want 10", n)
			}
		}},
		"AIPERF_HTTP_VIDEO_POLL_INTERVAL": {valid: "0.5", invalid: "fast", effect: func(t *testing.T, v string) {
			if d, ok := videoPollInterval(v); !ok || d != 500*time.Millisecond {
				t.Errorf("interval %v; want 500ms", d)
			}
		}},
		"AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID":        {valid: "true", invalid: "sure", effect: affinity("AIPERF_HTTP_X_SESSION_ID_FROM_CORRELATION_ID", "X-Session-ID", true)},
		"AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID":  {valid: "false", invalid: "sure", effect: affinity("AIPERF_HTTP_X_SESSION_AFFINITY_FROM_CORRELATION_ID", "X-Session-Affinity", false)},
		"AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID":   {valid: "1", invalid: "sure", effect: affinity("AIPERF_HTTP_X_SMG_ROUTING_KEY_FROM_CORRELATION_ID", "X-SMG-Routing-Key", true)},
		"AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID": {valid: "yes", invalid: "sure", effect: affinity("AIPERF_HTTP_X_DYNAMO_SESSION_ID_FROM_CORRELATION_ID", "X-Dynamo-Session-ID", true)},
		"AIPERF_HTTP_SSL_VERIFY": {valid: "false", invalid: "maybe", refused: true, effect: func(t *testing.T, v string) {
			if c, err := configEnv(map[string]string{"AIPERF_HTTP_SSL_VERIFY": v}); err != nil || !c.Network.TLSSkipVerify {
				t.Errorf("skip verify %v, %v; want true", c.Network.TLSSkipVerify, err)
			}
		}},
		"AIPERF_HTTP_TRUST_ENV": {valid: "true", invalid: "maybe", refused: true, effect: func(t *testing.T, v string) {
			if c, err := configEnv(map[string]string{"AIPERF_HTTP_TRUST_ENV": v}); err != nil || !c.Network.TrustEnv {
				t.Errorf("trust env %v, %v; want true", c.Network.TrustEnv, err)
			}
		}},
	}
	ignored := map[string]bool{}
	for _, v := range ignoredHTTPEnv {
		ignored[v.name] = true
	}
	logOf := func(name, value string) string {
		var buf bytes.Buffer
		warnIgnoredHTTPEnv(func(k string) string { return map[string]string{name: value}[k] }, slog.New(slog.NewTextHandler(&buf, nil)))
		return buf.String()
	}
	for _, name := range aiperfHTTPEnv {
		t.Run(name, func(t *testing.T) {
			h, ok := honoured[name]
			switch {
			case ok && ignored[name]:
				t.Fatalf("%s is both honoured and named as ignored", name)
			case ok:
				if out := logOf(name, h.valid); strings.Contains(out, name) {
					t.Errorf("valid value %q: log %q; want nothing about it", h.valid, out)
				}
				h.effect(t, h.valid)
				if h.refused {
					if _, err := configEnv(map[string]string{name: h.invalid}); err == nil || !strings.Contains(err.Error(), name) {
						t.Errorf("invalid value %q: %v; want a problem naming %s", h.invalid, err, name)
					}
				} else if out := logOf(name, h.invalid); !strings.Contains(out, name+`=\"`+h.invalid+`\" is not`) || !strings.Contains(out, "applies") {
					t.Errorf("invalid value %q: log %q; want a warning naming it and the default that applies", h.invalid, out)
				}
			case ignored[name]:
				if out := logOf(name, "1"); !strings.Contains(out, name+" is not supported and is ignored: ") {
					t.Errorf("log %q; want %s named as ignored, with what happens instead", out, name)
				}
			default:
				t.Errorf("%s is neither honoured nor named as ignored", name)
			}
		})
	}
}

// TestNetworkSettingsInInputConfig: the network settings a run was given
// (TLS, proxies, the response head cap) are written to input_config under
// their config-file keys.
func TestNetworkSettingsInInputConfig(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mockserver.New(mockConfig(t, nil)))
	defer srv.Close()
	cfg := baseConfig(t, srv.URL)
	cfg.Load.RequestCount = ptr(2)
	cfg.Network.TLSSkipVerify, cfg.Network.TrustEnv, cfg.Network.MaxResponseHeaderBytes = true, true, 65536
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		InputConfig struct {
			Endpoint struct {
				TLS struct {
					SkipVerify bool `json:"skip_verify"`
				} `json:"tls"`
				TrustEnv    bool `json:"trust_env"`
				HeaderLimit int  `json:"http_max_response_header_bytes"`
			} `json:"endpoint"`
		} `json:"input_config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if e := doc.InputConfig.Endpoint; !e.TLS.SkipVerify || !e.TrustEnv || e.HeaderLimit != 65536 {
		t.Errorf("input_config endpoint: %+v; want skip_verify, trust_env and http_max_response_header_bytes 65536", e)
	}
}
