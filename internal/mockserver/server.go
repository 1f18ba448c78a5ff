// Package mockserver is an OpenAI-compatible mock LLM inference server with
// a controllable latency model, modelled on AIPerf's aiperf-mock-server.
//
// It serves /v1/chat/completions and /v1/completions (streaming and not),
// /v1/models, /health and /. Output length and text are deterministic
// functions of the prompt; latency follows TTFT + i*ITL against absolute
// deadlines so that what a client measures is what was configured. It is
// used by tests in-process (httptest), by `aiperf mock-server`, and by
// `aiperf profile --mock-server`. It imports only the standard library.
package mockserver

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the mock's http.Handler. It is safe for concurrent use; its
// configuration is fixed at New.
type Server struct {
	cfg     Config
	count   func(string) int
	started time.Time

	active atomic.Int64  // inference requests in flight
	ids    atomic.Uint64 // response id counter

	// rngMu guards both generators. Errors and jitter draw from separate
	// streams so that enabling jitter does not change which requests fail.
	rngMu     sync.Mutex
	errRNG    *rand.Rand
	jitterRNG *rand.Rand
	faultRNG  *rand.Rand // --fault draws (fault.go), a stream of its own

	injected faultCounts // faults injected so far, by kind

	stats    *serverStats // what was served, for /metrics and the DCGM page
	genRate  rateWindow   // generation token rate, for the rate gauges
	controls controlLog

	done      chan struct{} // closed by shutdown: waiting handlers return
	fine      chan struct{} // fine-sleep slots (see waiter); nil disables fine sleeping
	closeOnce sync.Once

	batch *batchEngine // the batched scheduler; nil unless cfg.Batch.Slots > 0

	wordJSON []string // JSON string of " "+word for each vocabulary word
	words    []string // " "+word for each vocabulary word

	videos videoJobs // submitted video generation jobs (api_video.go)

	otlpHTTP, otlpGRPC *http.Client // --server-timing vllm-otlp's span exporters
}

var _ http.Handler = (*Server)(nil)

// New returns a Server for cfg. It does not validate cfg; callers that take
// user input call cfg.Validate first. With cfg.SeedSet the error and jitter
// draws are reproducible for a given arrival order.
func New(cfg Config) *Server {
	warmCodecs()
	s := &Server{
		cfg:     cfg,
		count:   cfg.countTokens(),
		started: time.Now(),
		done:    make(chan struct{}),
		stats:   newServerStats(),
	}
	s.genRate.window = time.Second
	if cfg.ServerTiming == ServerTimingVLLM {
		s.otlpHTTP, s.otlpGRPC = newOTLPClients()
	}
	if fineSleepSupported {
		s.fine = make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	}
	if cfg.Batch.Slots > 0 {
		s.batch = newBatchEngine(&s.cfg.Batch, s.done)
	}
	seed := uint64(cfg.RandomSeed)
	if !cfg.SeedSet {
		seed = rand.Uint64()
	}
	s.errRNG = rand.New(rand.NewPCG(seed, 0x6572726f72)) // "error"
	s.jitterRNG = rand.New(rand.NewPCG(seed, 0x6a6974746572))
	s.faultRNG = rand.New(rand.NewPCG(seed, 0x6661756c74)) // "fault"
	for _, w := range Words() {
		tok := " " + w
		b, _ := json.Marshal(tok) // a plain string always marshals
		s.words = append(s.words, tok)
		s.wordJSON = append(s.wordJSON, string(b))
	}
	return s
}

// Active returns the number of inference requests in flight now.
func (s *Server) Active() int { return int(s.active.Load()) }

// shutdown makes every waiting handler return at once. Idempotent.
func (s *Server) shutdown() { s.closeOnce.Do(func() { close(s.done) }) }

// ServeHTTP routes a request. Unknown paths get a 404 and known paths with
// the wrong method a 405, both as OpenAI-style JSON errors.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrival := time.Now() // before anything else: the latency model counts from here
	var handle func(http.ResponseWriter, *http.Request)
	method := http.MethodGet
	switch r.URL.Path {
	case "/v1/chat/completions":
		method = http.MethodPost
		handle = func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, chatAPI, arrival) }
	case "/v1/completions":
		method = http.MethodPost
		handle = func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, completionAPI, arrival) }
	case "/v1/models":
		handle = s.models
	case "/health":
		handle = s.health
	case "/":
		handle = s.info
	case controlResetPrefixCache, controlStartProfile, controlStopProfile:
		method = http.MethodPost
		handle = s.control
	default:
		if spec, ok := apiRoutes[r.URL.Path]; ok {
			method = http.MethodPost
			handle = func(w http.ResponseWriter, r *http.Request) { s.serveAPI(w, r, spec, arrival) }
			break
		}
		if strings.HasPrefix(r.URL.Path, "/v1/videos/") {
			handle = s.videoJobRoute
			break
		}
		style, prom, ok := s.metricsRoute(r.URL.Path)
		if !ok {
			writeError(w, http.StatusNotFound, "not_found_error", "no route for "+r.URL.Path)
			return
		}
		handle = func(w http.ResponseWriter, _ *http.Request) { s.serveMetrics(w, style, prom) }
	}
	if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
		w.Header().Set("Allow", method)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error",
			r.Method+" is not allowed on "+r.URL.Path+"; use "+method)
		return
	}
	handle(w, r)
}

// models lists the default model, in OpenAI's /v1/models shape.
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	writeJSON(w, http.StatusOK, struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{"list", []model{{s.cfg.DefaultModel, "model", s.started.Unix(), "aiperf-mock"}}})
}

// health reports liveness and the effective configuration, like AIPerf's
// mock ({"status": "healthy", "config": {...}}).
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Status         string           `json:"status"`
		Active         int              `json:"active"`
		FaultsInjected map[string]int64 `json:"faults_injected"`
		Batch          *batchView       `json:"batch,omitempty"`
		ControlCalls   map[string]int64 `json:"control_calls"`
		Config         configView       `json:"config"`
	}{"healthy", s.Active(), s.injectedView(), s.batch.view(), s.controls.view(), s.cfg.view()})
}

// info describes the server and its endpoints.
func (s *Server) info(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Message   string     `json:"message"`
		Endpoints []string   `json:"endpoints"`
		Config    configView `json:"config"`
	}{
		"AIPerf Mock Server (Go)",
		append(endpointList(), "GET /metrics", "GET /<style>/metrics",
			"POST "+controlResetPrefixCache, "POST "+controlStartProfile, "POST "+controlStopProfile),
		s.cfg.view(),
	})
}

// apiRoutes are the POST routes of the APIs beyond chat and completions,
// one per endpoint type AIPerf benchmarks (api_text.go, api_media.go,
// api_video.go).
var apiRoutes = map[string]*apiSpec{
	"/v1/responses":            responsesAPI,
	"/v1/messages":             messagesAPI,
	"/generate":                tgiAPI(false),
	"/generate_stream":         tgiAPI(true),
	"/rag/api/prompt":          solidoAPI,
	"/v1/embeddings":           embeddingsAPI,
	"/v1/ranking":              rankingsAPI("nim"),
	"/rerank":                  rankingsAPI("tei"),
	"/v2/rerank":               rankingsAPI("cohere"),
	"/v1/images/generations":   imagesAPI(false),
	"/v1/images/edits":         imagesAPI(true),
	"/v1/videos":               videoSubmitAPI,
	"/v1/audio/transcriptions": transcriptionAPI,
	"/v1/infer":                retrievalAPI,
}

// endpointList is what / lists.
func endpointList() []string {
	list := []string{"POST /v1/chat/completions", "POST /v1/completions"}
	var more []string
	for path := range apiRoutes {
		more = append(more, "POST "+path)
	}
	sort.Strings(more)
	list = append(list, more...)
	return append(list, "GET /v1/videos/{id}", "GET /v1/videos/{id}/content", "GET /v1/models", "GET /health", "GET /")
}

// apiError is the OpenAI error envelope.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

// apiErrorBody is the inside of an OpenAI error envelope; Code is the HTTP
// status, as vLLM reports it.
type apiErrorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
}

// writeError answers with an OpenAI-style JSON error.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, apiError{apiErrorBody{Message: msg, Type: typ, Code: status}})
}

// writeJSON answers with v as JSON. A value that cannot be encoded (only a
// non-finite float could, and Validate rejects those) becomes a 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(apiError{apiErrorBody{Message: "encoding response: " + err.Error(),
			Type: "server_error", Code: status}})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client that went away needs no answer
}
