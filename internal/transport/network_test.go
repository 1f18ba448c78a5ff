package transport

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// sync2 is a list of strings the server side appends to.
type sync2 struct {
	mu sync.Mutex
	s  []string
}

func (l *sync2) add(v string) { l.mu.Lock(); l.s = append(l.s, v); l.mu.Unlock() }
func (l *sync2) reset()       { l.mu.Lock(); l.s = nil; l.mu.Unlock() }
func (l *sync2) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.s...)
}

// okHandler answers a JSON body and counts the requests.
func okHandler(n *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true,"proto":"` + r.Proto + `"}`))
	}
}

// writePEM writes blocks to a file in dir and returns its path.
func writePEM(t *testing.T, name string, blocks ...*pem.Block) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var b []byte
	for _, bl := range blocks {
		b = append(b, pem.EncodeToMemory(bl)...)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverCAFile is the self-signed certificate of an httptest TLS server as
// a PEM file: what --tls-ca-file takes.
func serverCAFile(t *testing.T, srv *httptest.Server) string {
	return writePEM(t, "ca.pem", &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// newClientCert makes a self-signed client certificate; it returns the
// PEM files and the certificate (for the server's pool).
func newClientCert(t *testing.T) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7),
		Subject:      pkix.Name{CommonName: "aiperf-client"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ = x509.ParseCertificate(der)
	return writePEM(t, "client.pem", &pem.Block{Type: "CERTIFICATE", Bytes: der}),
		writePEM(t, "client.key", &pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), cert
}

// run sends n requests with c to url and returns the records.
func runN(t *testing.T, c *Client, url string, n int) []*record.Record {
	t.Helper()
	recs := make([]*record.Record, n)
	for i := range recs {
		recs[i] = do(t, c, t.Context(), url)
	}
	return recs
}

// errorsOf is the error messages of recs ("" for a success).
func errorsOf(recs []*record.Record) (n int, first string) {
	for _, r := range recs {
		if r.Error != nil {
			if n == 0 {
				first = r.Error.Message
			}
			n++
		}
	}
	return n, first
}

func mustTLS(t *testing.T, f TLSFiles) *tls.Config {
	t.Helper()
	c, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSelfSignedTLS: a self-signed server is refused with an error naming
// the flags that fix it, and reached without error with either of them,
// in both engines.
func TestSelfSignedTLS(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewTLSServer(okHandler(&served))
	defer srv.Close()
	ca := serverCAFile(t, srv)
	for _, e := range networkEngines {
		t.Run(e.name, func(t *testing.T) {
			c := New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version})
			n, msg := errorsOf(runN(t, c, srv.URL, 2))
			c.Close()
			if n != 2 || !strings.Contains(msg, "--tls-ca-file") || !strings.Contains(msg, "--tls-skip-verify") || !strings.Contains(msg, "AIPERF_HTTP_SSL_VERIFY=false") {
				t.Errorf("no TLS option: %d errors, %q; want 2 naming --tls-ca-file, --tls-skip-verify and AIPERF_HTTP_SSL_VERIFY", n, msg)
			}
			for name, f := range map[string]TLSFiles{"skip-verify": {SkipVerify: true}, "ca-file": {CAFile: ca}} {
				c := New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version, TLS: mustTLS(t, f)})
				if n, msg := errorsOf(runN(t, c, srv.URL, 3)); n != 0 {
					t.Errorf("%s: %d errors (%s); want 0", name, n, msg)
				}
				c.Close()
			}
		})
	}
}

// TestMutualTLS: a server that requires a client certificate accepts the
// one of --tls-cert-file/--tls-key-file; without it the error names them.
func TestMutualTLS(t *testing.T) {
	certFile, keyFile, cert := newClientCert(t)
	var served atomic.Int64
	srv := httptest.NewUnstartedServer(okHandler(&served))
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()
	ca := serverCAFile(t, srv)
	for _, e := range networkEngines {
		t.Run(e.name, func(t *testing.T) {
			c := New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version, TLS: mustTLS(t, TLSFiles{CAFile: ca})})
			n, msg := errorsOf(runN(t, c, srv.URL, 1))
			c.Close()
			if n != 1 || !strings.Contains(msg, "--tls-cert-file") {
				t.Errorf("no client certificate: %d errors, %q; want 1 naming --tls-cert-file", n, msg)
			}
			c = New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version, TLS: mustTLS(t, TLSFiles{CAFile: ca, CertFile: certFile, KeyFile: keyFile})})
			defer c.Close()
			if n, msg := errorsOf(runN(t, c, srv.URL, 3)); n != 0 {
				t.Errorf("with the client certificate: %d errors (%s); want 0", n, msg)
			}
		})
	}
}

// TestTLSFilesErrors: an unreadable or empty file is an error naming it.
func TestTLSFilesErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.pem")
	if err := os.WriteFile(empty, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []TLSFiles{{CAFile: empty}, {CAFile: empty + ".missing"}, {CertFile: empty, KeyFile: empty}} {
		if _, err := f.Config(); err == nil || !strings.Contains(err.Error(), empty) {
			t.Errorf("%+v: %v; want an error naming %s", f, err, empty)
		}
	}
}

// TestURLUserinfoBasicAuth: http://user:pass@host sends Basic credentials
// in both engines; an Authorization header given wins.
func TestURLUserinfoBasicAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "alice" || p != "s3cr:t" {
			if r.Header.Get("Authorization") != "Bearer key" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	withUser := strings.Replace(srv.URL, "http://", "http://alice:s3cr%3At@", 1)
	for _, e := range networkEngines {
		t.Run(e.name, func(t *testing.T) {
			c := New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version})
			defer c.Close()
			if n, msg := errorsOf(runN(t, c, withUser, 3)); n != 0 {
				t.Errorf("userinfo: %d errors (%s); want 0", n, msg)
			}
			rec := &record.Record{}
			h := jsonHeader()
			h.Set("Authorization", "Bearer key")
			c.Do(t.Context(), clock.New(), &Request{URL: strings.Replace(srv.URL, "http://", "http://bob:wrong@", 1), Body: []byte(`{}`), Header: h}, rec)
			if rec.Error != nil {
				t.Errorf("explicit Authorization: %+v; want it sent instead of the userinfo", rec.Error)
			}
		})
	}
}

// TestWrongSchemeHints: https:// to a plain port and http:// to a TLS port
// fail with the scheme to use, in both engines.
func TestWrongSchemeHints(t *testing.T) {
	var served atomic.Int64
	plain := httptest.NewServer(okHandler(&served))
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(okHandler(&served))
	defer tlsSrv.Close()
	// A TLS port that answers a plain request with a TLS alert, not Go's
	// friendly 400.
	alert := rawAnswer(t, "\x15\x03\x01\x00\x02\x02\x46")
	for _, e := range networkEngines {
		t.Run(e.name, func(t *testing.T) {
			c := New(Options{NetHTTP: e.netHTTP, HTTPVersion: e.version, Timeout: 10 * time.Second})
			defer c.Close()
			for _, tc := range []struct{ url, want string }{
				{strings.Replace(plain.URL, "http://", "https://", 1), "use http://"},
				{tlsSrv.URL[len("https://"):], ""}, // no scheme: not a case
				{strings.Replace(tlsSrv.URL, "https://", "http://", 1), "use https://"},
				{"http://" + alert, "use https://"},
			} {
				if tc.want == "" {
					continue
				}
				rec := do(t, c, t.Context(), tc.url)
				if rec.Error == nil || !strings.Contains(rec.Error.Message, tc.want) {
					t.Errorf("%s: %+v; want an error saying %q", tc.url, rec.Error, tc.want)
				}
			}
		})
	}
}

// TestHTTP2 reaches an h2 server over TLS (ALPN) and an h2c server by
// prior knowledge with --http-version 2, and takes h2 by ALPN with auto;
// the lean client at an h2-only server says to add --http-version 2.
func TestHTTP2(t *testing.T) {
	var protos sync2
	h := func(w http.ResponseWriter, r *http.Request) {
		protos.add(r.Proto)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, s := range []string{`{"a":1}`, `{"a":2}`, "[DONE]"} {
			_, _ = w.Write([]byte("data: " + s + "\n\n"))
			w.(http.Flusher).Flush()
		}
	}
	h2 := httptest.NewUnstartedServer(http.HandlerFunc(h))
	h2.EnableHTTP2 = true
	h2.TLS = &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
	h2.StartTLS()
	defer h2.Close()
	h1 := httptest.NewTLSServer(http.HandlerFunc(h))
	defer h1.Close()
	h2only := httptest.NewUnstartedServer(http.HandlerFunc(h))
	h2only.TLS = &tls.Config{NextProtos: []string{"h2"}}
	h2only.Config.Protocols = new(http.Protocols)
	h2only.Config.Protocols.SetHTTP2(true)
	h2only.StartTLS()
	defer h2only.Close()
	h2c := httptest.NewUnstartedServer(http.HandlerFunc(h))
	h2c.Config.Protocols = new(http.Protocols)
	h2c.Config.Protocols.SetUnencryptedHTTP2(true)
	h2c.Start()
	defer h2c.Close()
	both := httptest.NewUnstartedServer(http.HandlerFunc(h)) // h2c and HTTP/1.1 on one port
	both.Config.Protocols = new(http.Protocols)
	both.Config.Protocols.SetUnencryptedHTTP2(true)
	both.Config.Protocols.SetHTTP1(true)
	both.Start()
	defer both.Close()
	skip := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the test's own server

	for _, tc := range []struct {
		name    string
		version HTTPVersion
		url     string
		proto   string
		lean    bool // the lean engine carried the requests
	}{
		{"h2 by ALPN", HTTP2, h2.URL, "HTTP/2.0", false},
		{"auto picks h2", HTTPAuto, h2.URL, "HTTP/2.0", false},
		{"auto at an h2-only server", HTTPAuto, h2only.URL, "HTTP/2.0", false},
		{"h2-only server", HTTP2, h2only.URL, "HTTP/2.0", false},
		{"h2c prior knowledge", HTTP2, h2c.URL, "HTTP/2.0", false},
		{"1.1 stays 1.1", HTTP1, h1.URL, "HTTP/1.1", true},
		{"auto at an HTTP/1.1 server", HTTPAuto, h1.URL, "HTTP/1.1", true},
		{"auto on http:// is HTTP/1.1, h2c only by --http-version 2", HTTPAuto, both.URL, "HTTP/1.1", true},
		{"h2c by prior knowledge on a port with both", HTTP2, both.URL, "HTTP/2.0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(Options{HTTPVersion: tc.version, TLS: skip})
			defer c.Close()
			protos.reset()
			recs := runN(t, c, tc.url, 3)
			if n, msg := errorsOf(recs); n != 0 {
				t.Fatalf("%d errors (%s)", n, msg)
			}
			for _, r := range recs {
				if !r.Streaming || len(r.Chunks) != 3 || r.Ack == 0 || !r.Trace.Traced() || r.Trace.BytesReceived == 0 {
					t.Errorf("record: streaming %v, %d chunks, ack %v, traced %v; want a full streamed record", r.Streaming, len(r.Chunks), r.Ack, r.Trace.Traced())
				}
				checkOrder(t, r)
			}
			if got := protos.all(); len(got) != 3 || got[0] != tc.proto {
				t.Errorf("server saw %v; want 3 x %s", got, tc.proto)
			}
			lt, lean := c.hc.Transport.(*leanTransport)
			if carried := lean && lt.pool.idleCount() > 0; carried != tc.lean {
				t.Errorf("lean engine carried the requests: %v; want %v", carried, tc.lean)
			}
		})
	}
	for _, e := range engines {
		t.Run("h1 client at h2-only server/"+e.name, func(t *testing.T) {
			c := New(Options{NetHTTP: e.netHTTP, TLS: skip})
			defer c.Close()
			rec := do(t, c, t.Context(), h2only.URL)
			if rec.Error == nil || !strings.Contains(rec.Error.Message, "--http-version 2") {
				t.Errorf("%+v; want an error naming --http-version 2", rec.Error)
			}
		})
	}
	t.Run("h2 client at an HTTP/1.1-only server", func(t *testing.T) {
		c := New(Options{HTTPVersion: HTTP2, NetHTTP: true, TLS: skip})
		defer c.Close()
		rec := do(t, c, t.Context(), h1.URL)
		if rec.Error == nil || !strings.Contains(rec.Error.Message, "--http-version auto or 1.1") || strings.Contains(rec.Error.Message, "add --http-version 2") {
			t.Errorf("%+v; want an error naming --http-version auto or 1.1 only", rec.Error)
		}
	})
	t.Run("h1 client at h2c port", func(t *testing.T) {
		// A raw h2c port (a gRPC server) answers an HTTP/1.1 request with
		// its SETTINGS frame and a GOAWAY.
		addr := rawAnswer(t, "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64\x00\x00\x08\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01")
		for _, e := range engines {
			c := New(Options{NetHTTP: e.netHTTP})
			rec := do(t, c, t.Context(), "http://"+addr)
			c.Close()
			if rec.Error == nil || !strings.Contains(rec.Error.Message, "--http-version 2") {
				t.Errorf("%s: %+v; want an error naming --http-version 2", e.name, rec.Error)
			}
		}
	})
}

// rawAnswer starts a TCP server that answers each connection's first
// read with answer and closes it; it returns its address.
func rawAnswer(t *testing.T, answer string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			_, _ = c.Read(buf)
			_, _ = c.Write([]byte(answer))
			_ = c.Close()
		}
	}()
	return ln.Addr().String()
}
