package transport

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// testProxy is an HTTP proxy of the test's own: absolute-form requests
// are forwarded, CONNECT opens a tunnel; every host it is asked for is
// the backend's address (the target names do not resolve). It counts
// what it carried and the Proxy-Authorization it was sent.
type testProxy struct {
	*httptest.Server
	backend           string // "host:port" every request goes to
	forwarded, tunnel atomic.Int64
	auth              sync2
}

func newTestProxy(t *testing.T, backend string) *testProxy {
	p := &testProxy{backend: backend}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *testProxy) serve(w http.ResponseWriter, r *http.Request) {
	p.auth.add(r.Header.Get("Proxy-Authorization"))
	if r.Method == http.MethodConnect {
		p.tunnel.Add(1)
		up, err := net.Dial("tcp", p.backend)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			_ = up.Close()
			return
		}
		go func() { _, _ = io.Copy(up, brw); _ = up.Close() }()
		_, _ = io.Copy(c, up)
		_ = c.Close()
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	p.forwarded.Add(1)
	out, _ := http.NewRequest(r.Method, "http://"+p.backend+r.URL.RequestURI(), r.Body)
	out.Header = r.Header.Clone()
	out.Header.Del("Proxy-Authorization")
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// TestProxies: with the proxy variables trusted, http requests go through
// an HTTP proxy and https ones through a CONNECT tunnel, with the proxy's
// credentials, in both engines; NO_PROXY hosts and requests without a
// proxy go direct (and then fail here: the target name does not resolve).
func TestProxies(t *testing.T) {
	var served atomic.Int64
	plain := httptest.NewServer(okHandler(&served))
	defer plain.Close()
	secure := httptest.NewTLSServer(okHandler(&served))
	defer secure.Close()
	ca := mustTLS(t, TLSFiles{CAFile: serverCAFile(t, secure)})
	port := func(s *httptest.Server) string { _, p, _ := net.SplitHostPort(s.Listener.Addr().String()); return p }
	for _, e := range networkEngines {
		t.Run(e.name, func(t *testing.T) {
			hp := newTestProxy(t, plain.Listener.Addr().String())
			sp := newTestProxy(t, secure.Listener.Addr().String())
			env := map[string]string{
				"HTTP_PROXY":  strings.Replace(hp.URL, "http://", "http://pu:pw@", 1),
				"HTTPS_PROXY": strings.Replace(sp.URL, "http://", "http://pu:pw@", 1),
				"NO_PROXY":    "direct.example",
			}
			c := New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version, TLS: ca, Proxy: EnvProxy(func(k string) string { return env[k] })})
			defer c.Close()
			before := served.Load()
			// example.com is a name the test servers' certificate holds.
			if n, msg := errorsOf(runN(t, c, "http://example.com:"+port(plain)+"/v1/chat", 3)); n != 0 {
				t.Errorf("http through the proxy: %d errors (%s)", n, msg)
			}
			if n, msg := errorsOf(runN(t, c, "https://example.com:"+port(secure)+"/v1/chat", 3)); n != 0 {
				t.Errorf("https through CONNECT: %d errors (%s)", n, msg)
			}
			if got := served.Load() - before; got != 6 {
				t.Errorf("servers answered %d requests; want 6", got)
			}
			if hp.forwarded.Load() != 3 || sp.tunnel.Load() < 1 || sp.tunnel.Load() > 3 {
				t.Errorf("proxies carried %d forwarded and %d tunnels; want 3 and 1-3", hp.forwarded.Load(), sp.tunnel.Load())
			}
			for _, a := range append(hp.auth.all(), sp.auth.all()...) {
				if a != basicAuth(url.UserPassword("pu", "pw")) {
					t.Errorf("Proxy-Authorization %q; want pu:pw's", a)
				}
			}
			rec := do(t, c, t.Context(), "http://direct.example:"+port(plain)+"/")
			if rec.Error == nil || hp.forwarded.Load() != 3 {
				t.Errorf("NO_PROXY host: %+v, %d forwarded; want a direct (failing) request", rec.Error, hp.forwarded.Load())
			}
		})
	}
}
