// Package mlflowtest is a fake MLflow tracking server for tests: the REST
// calls the exporter uses (experiments get-by-name and create, runs
// create, get, log-batch and update, the artifact proxy's PUT), with
// MLflow's answers and error codes, recording every request body. It
// uses only the standard library.
package mlflowtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Call is one request the server received.
type Call struct {
	Method, Path, Query, Auth string
	Body                      []byte
}

// Server is the fake.
type Server struct {
	*httptest.Server
	mu          sync.Mutex
	Calls       []Call
	experiments map[string]string // name -> id
	runs        map[string]*Run
	// Artifacts are the uploaded files by path under the artifact root.
	Artifacts map[string][]byte
	nextID    int
}

// Run is a run's state.
type Run struct {
	ID, Name, Experiment, Status string
	Tags, Params                 map[string]string
	Metrics                      map[string][]float64 // values in log order
	Steps                        map[string][]int64
}

// New starts a fake server.
func New() *Server {
	s := &Server{experiments: map[string]string{"Default": "0"}, runs: map[string]*Run{}, Artifacts: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Run returns run id.
func (s *Server) Run(id string) *Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[id]
}

// Runs lists every run.
func (s *Server) Runs() []*Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Run
	for _, r := range s.runs {
		out = append(out, r)
	}
	return out
}

// CallsTo returns the calls to path.
func (s *Server) CallsTo(path string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.Calls {
		if c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

func fail(w http.ResponseWriter, code int, ec, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error_code": ec, "message": msg})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Calls = append(s.Calls, Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization"), Body: body})
	const art = "/api/2.0/mlflow-artifacts/artifacts/"
	if strings.HasPrefix(r.URL.Path, art) && r.Method == http.MethodPut {
		s.Artifacts[strings.TrimPrefix(r.URL.Path, art)] = body
		reply(w, map[string]any{})
		return
	}
	var req map[string]any
	if len(body) > 0 && json.Unmarshal(body, &req) != nil {
		fail(w, 400, "MALFORMED_REQUEST", "invalid JSON")
		return
	}
	str := func(k string) string { v, _ := req[k].(string); return v }
	switch r.Method + " " + r.URL.Path {
	case "GET /api/2.0/mlflow/experiments/get-by-name":
		name := r.URL.Query().Get("experiment_name")
		id, ok := s.experiments[name]
		if !ok {
			fail(w, 404, "RESOURCE_DOES_NOT_EXIST", fmt.Sprintf("Could not find experiment with name '%s'", name))
			return
		}
		reply(w, map[string]any{"experiment": map[string]any{"experiment_id": id, "name": name}})
	case "POST /api/2.0/mlflow/experiments/create":
		if _, ok := s.experiments[str("name")]; ok {
			fail(w, 400, "RESOURCE_ALREADY_EXISTS", "exists")
			return
		}
		s.nextID++
		id := fmt.Sprint(100 + s.nextID)
		s.experiments[str("name")] = id
		reply(w, map[string]any{"experiment_id": id})
	case "POST /api/2.0/mlflow/runs/create":
		s.nextID++
		id := fmt.Sprintf("run%04d", s.nextID)
		run := &Run{ID: id, Name: str("run_name"), Experiment: str("experiment_id"), Status: "RUNNING",
			Tags: map[string]string{}, Params: map[string]string{}, Metrics: map[string][]float64{}, Steps: map[string][]int64{}}
		addKVs(run.Tags, req["tags"])
		s.runs[id] = run
		reply(w, map[string]any{"run": map[string]any{"info": map[string]any{"run_id": id, "run_name": run.Name,
			"experiment_id": run.Experiment, "artifact_uri": "mlflow-artifacts:/" + run.Experiment + "/" + id + "/artifacts"}}})
	case "GET /api/2.0/mlflow/runs/get":
		run, ok := s.runs[r.URL.Query().Get("run_id")]
		if !ok {
			fail(w, 404, "RESOURCE_DOES_NOT_EXIST", "Run not found")
			return
		}
		reply(w, map[string]any{"run": map[string]any{"info": map[string]any{"run_id": run.ID, "run_name": run.Name,
			"experiment_id": run.Experiment, "artifact_uri": "mlflow-artifacts:/" + run.Experiment + "/" + run.ID + "/artifacts"}}})
	case "POST /api/2.0/mlflow/runs/log-batch":
		run, ok := s.runs[str("run_id")]
		if !ok {
			fail(w, 404, "RESOURCE_DOES_NOT_EXIST", "Run not found")
			return
		}
		for _, k := range []string{"metrics", "params", "tags"} {
			if v, ok := req[k]; ok && v == nil {
				// The real server fails on a null list.
				http.Error(w, "Internal Server Error", http.StatusInternalServerError)
				return
			}
		}
		ms, _ := req["metrics"].([]any)
		ps, _ := req["params"].([]any)
		ts, _ := req["tags"].([]any)
		if len(ms) > 1000 || len(ps) > 100 || len(ts) > 100 {
			fail(w, 400, "INVALID_PARAMETER_VALUE", "too many entries in one batch")
			return
		}
		for _, m := range ms {
			mm := m.(map[string]any)
			k := mm["key"].(string)
			run.Metrics[k] = append(run.Metrics[k], mm["value"].(float64))
			step, _ := mm["step"].(float64)
			run.Steps[k] = append(run.Steps[k], int64(step))
		}
		addKVs(run.Params, req["params"])
		addKVs(run.Tags, req["tags"])
		reply(w, map[string]any{})
	case "POST /api/2.0/mlflow/runs/update":
		run, ok := s.runs[str("run_id")]
		if !ok {
			fail(w, 404, "RESOURCE_DOES_NOT_EXIST", "Run not found")
			return
		}
		run.Status = str("status")
		reply(w, map[string]any{"run_info": map[string]any{"run_id": run.ID, "status": run.Status}})
	default:
		fail(w, 404, "ENDPOINT_NOT_FOUND", r.Method+" "+r.URL.Path)
	}
}

func addKVs(dst map[string]string, v any) {
	items, _ := v.([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		k, _ := m["key"].(string)
		val, _ := m["value"].(string)
		dst[k] = val
	}
}
