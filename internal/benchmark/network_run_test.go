package benchmark

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
