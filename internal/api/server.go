package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/results"
)

// Info is what the server knows about the run before it starts.
type Info struct {
	// Config is /api/config: the run's configuration as JSON, its
	// credentials already redacted.
	Config json.RawMessage
	// Run is /api/run.
	Run RunInfo
	// Labels identify the run on every Prometheus series and in
	// /api/metrics (model, endpoint_type, streaming, concurrency,
	// request_rate), in order.
	Labels []Label
	// ArtifactDir holds the run's files; SummaryFile is its summary JSON
	// (profile_export_aiperf.json), read when the run finishes.
	ArtifactDir, SummaryFile string
	// Experiment: the run is a sweep, repeated runs or a search, whose
	// runs write their summaries in subdirectories; finishing without a
	// top-level summary is then not an incomplete run.
	Experiment bool
	// Version is this build's version (aiperf_info's version label).
	Version string
	// Secrets are scrubbed from every response body once more.
	Secrets []string
	// Header names a metric tag for display ("Request Latency"); nil or
	// "" = the tag.
	Header func(tag string) string
	// Log receives connection problems; nil discards them.
	Log *slog.Logger
}

// Label is one identifying label of the run.
type Label struct{ Name, Value string }

// RunInfo is the run's identity, the run_info block of the summary JSON.
type RunInfo struct {
	BenchmarkID string  `json:"benchmark_id"`
	CLICommand  string  `json:"cli_command,omitempty"`
	RandomSeed  *uint64 `json:"random_seed,omitempty"`
	Trial       *int    `json:"trial,omitempty"`
	RunLabel    string  `json:"run_label,omitempty"`
}

// Server is the HTTP API of one run. Observe and ObserveRecord feed it;
// Finish marks the run done; Close stops it.
type Server struct {
	info Info
	st   state
	hub  *hub
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	// stopReq is closed by POST /api/shutdown (once the run is finished).
	stopReq  chan struct{}
	stopOnce sync.Once
	// lastMetrics is the At of the last realtime_metrics broadcast.
	lastMetrics time.Duration
}

var (
	_ live.Observer       = (*Server)(nil)
	_ live.RecordObserver = (*Server)(nil)
)

// Start listens on addr ("host:port") and serves the API until Close.
func Start(addr string, info Info) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--api-port: %w", err)
	}
	if info.Log == nil {
		info.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{info: info, ln: ln, done: make(chan struct{}), stopReq: make(chan struct{}), lastMetrics: -time.Hour}
	s.hub = newHub(info.Log, info.Secrets)
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			info.Log.Warn("api server stopped", "error", err)
		}
	}()
	return s, nil
}

// URL is the server's base URL (http://host:port).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server: WebSocket clients get a going-away close, HTTP
// requests in flight get up to a few seconds.
func (s *Server) Close() error {
	s.hub.closeAll()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}

// Observe takes one snapshot of the run (live.Observer) and streams its
// progress to WebSocket subscribers: credit_phase_progress on every
// snapshot, realtime_metrics and worker_status_summary once a second,
// credit_phase_complete when a phase ends.
func (s *Server) Observe(snap *live.Snapshot) {
	s.st.mu.Lock()
	prev := s.st.snap
	s.st.mu.Unlock()
	s.st.observe(snap)
	if prev != nil && snap.Seq == 1 {
		s.lastMetrics = -time.Hour
	}
	wall := snap.Wall.UnixNano()
	if prev != nil && len(snap.Finished) > len(prev.Finished) && prev.Seq < snap.Seq {
		for _, p := range snap.Finished[len(prev.Finished):] {
			s.hub.broadcast("credit_phase_complete", wall, map[string]any{"stats": phaseOf(p, snap.Wall, true)})
		}
	}
	if snap.Phase.Phase != "" {
		s.hub.broadcast("credit_phase_progress", wall, map[string]any{"stats": phaseOf(snap.Phase, snap.Wall, snap.Final)})
	}
	if snap.Final || snap.At-s.lastMetrics >= time.Second {
		s.lastMetrics = snap.At
		s.hub.broadcast("realtime_metrics", wall, map[string]any{"metrics": metricList(liveMetrics(snap))})
		s.st.mu.Lock()
		wd := s.st.workersDoc()
		s.st.mu.Unlock()
		statuses := map[string]string{}
		for id, w := range wd.Workers {
			statuses[id] = w.Status
		}
		s.hub.broadcast("worker_status_summary", wall, map[string]any{"worker_statuses": statuses})
	}
	if snap.Final && snap.Phase.Phase != "" {
		s.hub.broadcast("credit_phase_complete", wall, map[string]any{"stats": phaseOf(snap.Phase, snap.Wall, true)})
	}
}

// ObserveRecord counts one finished request for /api/workers
// (live.RecordObserver).
func (s *Server) ObserveRecord(r *live.Record) { s.st.observeRecord(r) }

// Finish marks the run done with status (StatusComplete, StatusCancelled,
// StatusFailed, ...): /api/results then serves the summary JSON when it
// was written, and the artifact files become downloadable. WebSocket
// subscribers get benchmark_complete and, with a summary,
// results_exported.
func (s *Server) Finish(status, errText string) {
	var sum []byte
	if s.info.SummaryFile != "" {
		if b, err := os.ReadFile(s.info.SummaryFile); err == nil && json.Valid(b) {
			sum = b
		}
	}
	if sum == nil && status == StatusComplete && !s.info.Experiment {
		status = StatusIncomplete
	}
	s.st.mu.Lock()
	s.st.finished, s.st.status, s.st.errText, s.st.results = true, status, errText, sum
	s.st.mu.Unlock()
	now := time.Now().UnixNano()
	s.hub.broadcast("benchmark_complete", now, map[string]any{"was_cancelled": status == StatusCancelled, "status": status})
	if sum != nil {
		s.hub.broadcast("results_exported", now, map[string]any{"files": len(s.listFiles(false))})
	}
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { plain(w, http.StatusOK, "ok") })
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /api/config", func(w http.ResponseWriter, _ *http.Request) { s.writeRaw(w, s.info.Config) })
	mux.HandleFunc("GET /api/run", func(w http.ResponseWriter, _ *http.Request) { s.writeJSON(w, http.StatusOK, s.info.Run) })
	mux.HandleFunc("GET /api/progress", s.progress)
	mux.HandleFunc("GET /api/workers", s.workers)
	mux.HandleFunc("GET /api/metrics", s.jsonMetrics)
	mux.HandleFunc("GET /metrics", s.promMetrics)
	mux.HandleFunc("GET /api/results", s.results)
	mux.HandleFunc("GET /api/results/list", s.resultsList)
	mux.HandleFunc("GET /api/results/files/{name...}", s.resultFile)
	mux.HandleFunc("GET /ws", s.websocket)
	mux.HandleFunc("POST /api/shutdown", s.shutdown)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found: " + r.URL.Path})
	})
	return mux
}

// ShutdownRequested is closed when a client asks the server to stop
// (POST /api/shutdown after the run): a command keeping the API up after
// its run waits on it.
func (s *Server) ShutdownRequested() <-chan struct{} { return s.stopReq }

// shutdown is POST /api/shutdown: 409 while the run goes, as in AIPerf.
func (s *Server) shutdown(w http.ResponseWriter, _ *http.Request) {
	s.st.mu.Lock()
	finished := s.st.finished
	s.st.mu.Unlock()
	if !finished {
		s.writeJSON(w, http.StatusConflict, map[string]string{"detail": "Benchmark is still running. Cannot shut down API service."})
		return
	}
	s.stopOnce.Do(func() { close(s.stopReq) })
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "shutting_down"})
}

// readyz is ready once the run is under way (its first snapshot) and
// stays ready until the server closes.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	s.st.mu.Lock()
	ready := s.st.snap != nil || s.st.finished
	s.st.mu.Unlock()
	if ready {
		plain(w, http.StatusOK, "ok")
		return
	}
	plain(w, http.StatusServiceUnavailable, "not ready")
}

func (s *Server) progress(w http.ResponseWriter, _ *http.Request) {
	s.st.mu.Lock()
	d := s.st.progress()
	s.st.mu.Unlock()
	s.writeJSON(w, http.StatusOK, d)
}

func (s *Server) workers(w http.ResponseWriter, _ *http.Request) {
	s.st.mu.Lock()
	d := s.st.workersDoc()
	s.st.mu.Unlock()
	s.writeJSON(w, http.StatusOK, d)
}

// currentMetrics are the final summary's metrics once the run has one,
// the live headline metrics before.
func (s *Server) currentMetrics() (ms []metricResult, final bool) {
	s.st.mu.Lock()
	snap, sum := s.st.snap, s.st.results
	s.st.mu.Unlock()
	if sum != nil {
		if parsed, err := results.ParseSummary(sum); err == nil {
			return finalMetrics(parsed, s.info.Header), true
		}
	}
	return liveMetrics(snap), false
}

func metricList(ms []metricResult) []map[string]any {
	out := make([]map[string]any, len(ms))
	for i, m := range ms {
		out[i] = map[string]any{"tag": m.Tag, "header": m.Header, "unit": m.Unit}
		for k, v := range m.Stats {
			out[i][k] = v
		}
	}
	return out
}

// jsonMetrics is /api/metrics: AIPerf's MetricsResponse (version,
// benchmark_id, the run's labels, metrics keyed by tag), plus "final":
// whether these are the run's final results or the live window.
func (s *Server) jsonMetrics(w http.ResponseWriter, _ *http.Request) {
	ms, final := s.currentMetrics()
	doc := map[string]any{"aiperf_version": s.info.Version, "benchmark_id": s.info.Run.BenchmarkID, "final": final}
	for _, l := range s.info.Labels {
		doc[l.Name] = coerce(l.Value)
	}
	byTag := map[string]metricResult{}
	for _, m := range ms {
		byTag[m.Tag] = m
	}
	doc["metrics"] = byTag
	s.writeJSON(w, http.StatusOK, doc)
}

// coerce types a label value for JSON as AIPerf does: numbers and
// booleans as such.
func coerce(v string) any {
	var x any
	if err := json.Unmarshal([]byte(v), &x); err == nil {
		switch x.(type) {
		case float64, bool:
			return x
		}
	}
	return v
}

func (s *Server) promMetrics(w http.ResponseWriter, _ *http.Request) {
	ms, _ := s.currentMetrics()
	labels := []label{{"benchmark_id", s.info.Run.BenchmarkID}}
	for _, l := range s.info.Labels {
		labels = append(labels, label{l.Name, l.Value})
	}
	body := prometheusText(ms, labels, s.info.Version)
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(s.scrub(body)))
}

// results is /api/results: {"status": ...} while running, and with the
// summary JSON as "results" once it was written.
func (s *Server) results(w http.ResponseWriter, _ *http.Request) {
	s.st.mu.Lock()
	finished, status, errText, sum := s.st.finished, s.st.status, s.st.errText, s.st.results
	s.st.mu.Unlock()
	doc := map[string]any{"status": StatusRunning}
	if finished {
		doc["status"] = status
		if errText != "" {
			doc["error"] = errText
		}
		if sum != nil {
			doc["results"] = json.RawMessage(sum)
		}
	}
	s.writeJSON(w, http.StatusOK, doc)
}

// writeJSON marshals v and writes it scrubbed of the run's secrets.
func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write([]byte(s.scrub(string(b))))
}

func (s *Server) writeRaw(w http.ResponseWriter, b []byte) {
	if len(b) == 0 {
		b = []byte("{}")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(s.scrub(string(b))))
}

func (s *Server) scrub(text string) string { return scrub(text, s.info.Secrets) }

func scrub(text string, secrets []string) string {
	for _, x := range secrets {
		if x != "" {
			text = strings.ReplaceAll(text, x, "<redacted>")
		}
	}
	return text
}

func plain(w http.ResponseWriter, code int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(text))
}
