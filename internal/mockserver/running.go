package mockserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// shutdownGrace bounds how long Close waits for handlers to return after
// telling them to stop; they return at once, so this only guards bugs.
const shutdownGrace = 5 * time.Second

// Running is a mock server listening and serving in the background.
type Running struct {
	srv    *Server
	http   *http.Server
	ln     net.Listener
	served chan error  // Serve's result, once it returns
	rec    *recordFile // --record-requests; nil when not recording
	dcgm   *listening  // the DCGM exporter (--dcgm-port); nil when off
	gpus   *dcgmExporter

	closeOnce sync.Once
	closeErr  error
}

// Start listens on addr ("127.0.0.1:0" picks a free port; "" means
// cfg.Host:cfg.Port) and serves a Server for cfg in the background until
// Close. The served configuration reports the actual host and port.
func Start(cfg Config, addr string) (*Running, error) {
	if addr == "" {
		addr = net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mock server: listen on %s: %w", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		cfg.Host, cfg.Port = ta.IP.String(), ta.Port
	}
	r := &Running{
		srv:    New(cfg),
		ln:     ln,
		served: make(chan error, 1),
	}
	var handler http.Handler = r.srv
	if cfg.RecordRequests != "" {
		if r.rec, err = createRecordFile(cfg.RecordRequests); err != nil {
			_ = ln.Close()
			return nil, err
		}
		handler = r.rec.Wrap(r.srv)
	}
	if cfg.DCGM.Enabled {
		// On the server's own host; port 0 picks a free one.
		daddr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.DCGM.Port))
		r.gpus = newDCGMExporter(r.srv, cfg.DCGM)
		if r.dcgm, err = listen(daddr, r.gpus); err != nil {
			_ = ln.Close()
			_ = r.rec.close()
			return nil, fmt.Errorf("mock server: DCGM exporter: %w", err)
		}
	}
	r.http = &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second}
	go func() { r.served <- r.http.Serve(ln) }()
	return r, nil
}

// listening is a second listener (the DCGM exporter) served until Close.
type listening struct {
	http   *http.Server
	ln     net.Listener
	served chan error
}

func listen(addr string, h http.Handler) (*listening, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := &listening{http: &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}, ln: ln, served: make(chan error, 1)}
	go func() { l.served <- l.http.Serve(ln) }()
	return l, nil
}

func (l *listening) close(ctx context.Context) error {
	if l == nil {
		return nil
	}
	err := l.http.Shutdown(ctx)
	if serveErr := <-l.served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}

// DCGMURL is the DCGM exporter's metrics URL, e.g.
// "http://127.0.0.1:40124/metrics"; "" when it is not running.
func (r *Running) DCGMURL() string {
	if r.dcgm == nil {
		return ""
	}
	return "http://" + r.dcgm.ln.Addr().String() + "/metrics"
}

// DCGMRenders are the pages the DCGM exporter served so far, on the
// mock's clock; nil when it is not running.
func (r *Running) DCGMRenders() []DCGMRender {
	if r.gpus == nil {
		return nil
	}
	return r.gpus.Renders()
}

// URL is the server's base URL, e.g. "http://127.0.0.1:40123".
func (r *Running) URL() string { return "http://" + r.ln.Addr().String() }

// Server returns the handler being served, e.g. to read Active.
func (r *Running) Server() *Server { return r.srv }

// Close stops listening, ends in-flight responses (streams stop where they
// are), waits for the handlers to return, and reports a serving error if
// there was one. Later calls return the first call's result.
func (r *Running) Close() error {
	r.closeOnce.Do(func() { r.closeErr = r.close() })
	return r.closeErr
}

// close does Close's work once.
func (r *Running) close() error {
	r.srv.shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := r.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(fmt.Errorf("mock server: shutdown: %w", err), r.http.Close())
	}
	if serveErr := <-r.served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, fmt.Errorf("mock server: serve: %w", serveErr))
	}
	if derr := r.dcgm.close(ctx); derr != nil {
		err = errors.Join(err, fmt.Errorf("mock server: DCGM exporter: %w", derr))
	}
	return errors.Join(err, r.rec.close()) // after Shutdown: every handler has queued its line
}
