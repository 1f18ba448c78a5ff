// Package servertrace receives the per-request trace spans an inference
// server exports over OTLP (vLLM's --otlp-traces-endpoint) and turns each
// into the server's account of that request's time (record.ServerTiming),
// keyed by the request id the client sent as X-Request-ID.
//
// One listener serves both OTLP transports: gRPC (TraceService/Export over
// cleartext HTTP/2) and OTLP/HTTP (POST /v1/traces, protobuf, gzip or
// not). It is the only package that links the OTLP trace types and the
// gRPC server for them.
package servertrace

import (
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/aiperf-go/aiperf/internal/record"
)

// maxBody bounds one OTLP/HTTP export request.
const maxBody = 64 << 20

// Receiver is a running OTLP trace receiver. Its methods are safe for
// concurrent use.
type Receiver struct {
	ln   net.Listener
	srv  *http.Server
	grpc *grpc.Server
	log  *slog.Logger

	mu      sync.Mutex
	timings map[string]record.ServerTiming // by request id, prefixes stripped
	arrived chan struct{}                  // closed and replaced when spans arrive
	spans   int                            // request spans received
	other   int                            // spans that were not a request's (no request id)
}

// Start listens on addr ("host:port"; port 0 picks one) and serves both
// transports until Close.
func Start(addr string, log *slog.Logger) (*Receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	r := &Receiver{ln: ln, log: log, timings: map[string]record.ServerTiming{}, arrived: make(chan struct{})}
	r.grpc = grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(r.grpc, &traceService{r: r})
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serveHTTP), ReadHeaderTimeout: 10 * time.Second, Protocols: new(http.Protocols)}
	r.srv.Protocols.SetHTTP1(true)
	r.srv.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// Addr is the listening address (host:port).
func (r *Receiver) Addr() string { return r.ln.Addr().String() }

// Close stops serving.
func (r *Receiver) Close() {
	if r == nil { // no receiver was asked for
		return
	}
	r.grpc.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}

// serveHTTP routes gRPC calls to the gRPC server and serves OTLP/HTTP.
func (r *Receiver) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if req.ProtoMajor == 2 && strings.HasPrefix(req.Header.Get("Content-Type"), "application/grpc") {
		r.grpc.ServeHTTP(w, req)
		return
	}
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.NotFound(w, req)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/x-protobuf") {
		http.Error(w, "only application/x-protobuf is accepted", http.StatusUnsupportedMediaType)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, maxBody)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = io.LimitReader(zr, maxBody)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var m coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(&m)
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{}) // an empty message always marshals
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// traceService is the gRPC TraceService.
type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	r *Receiver
}

func (s *traceService) Export(_ context.Context, m *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.r.add(m)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// add keeps the request spans of m and wakes the waiters.
func (r *Receiver) add(m *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rs := range m.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				id, t, ok := spanTiming(sp)
				if !ok {
					r.other++
					continue
				}
				r.timings[id] = t
				r.spans++
				n++
			}
		}
	}
	if n > 0 {
		close(r.arrived)
		r.arrived = make(chan struct{})
	}
}

// Take returns and forgets the server's account of the request sent with
// X-Request-ID id; ok is false when its span has not arrived.
func (r *Receiver) Take(id string) (record.ServerTiming, bool) {
	if id == "" {
		return record.ServerTiming{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.timings[id]
	if ok {
		delete(r.timings, id)
	}
	return t, ok
}

// Arrived returns a channel closed when the next spans arrive.
func (r *Receiver) Arrived() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.arrived
}

// Counts returns how many request spans arrived, how many of them no
// request has taken (yet), and how many spans were not a request's.
func (r *Receiver) Counts() (spans, untaken, other int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spans, len(r.timings), r.other
}
