// Package wandbtest is a fake Weights & Biases server for tests: the
// GraphQL operations the uploader uses (viewer, upsertBucket,
// createRunFiles), the run file stream and the file upload URLs, keeping
// every request. It uses only the standard library.
package wandbtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Call is one request.
type Call struct {
	Method, Path, Auth string
	Body               []byte
}

// Server is the fake.
type Server struct {
	*httptest.Server
	mu    sync.Mutex
	Calls []Call
	// Uploaded files by name; Stream are the file_stream bodies.
	Uploaded map[string][]byte
	Stream   []map[string]any
	// Entity is the viewer's default entity.
	Entity string
}

// New starts the fake.
func New() *Server {
	s := &Server{Uploaded: map[string][]byte{}, Entity: "alice"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// GraphQL returns the GraphQL requests whose query contains op.
func (s *Server) GraphQL(op string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, c := range s.Calls {
		if c.Path != "/graphql" {
			continue
		}
		var m map[string]any
		json.Unmarshal(c.Body, &m)
		if q, _ := m["query"].(string); strings.Contains(q, op) {
			out = append(out, m)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Calls = append(s.Calls, Call{Method: r.Method, Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Body: body})
	if user, _, ok := r.BasicAuth(); r.Method != http.MethodPut && (!ok || user != "api") {
		http.Error(w, `{"errors":[{"message":"unauthorized"}]}`, http.StatusUnauthorized)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/upload/"):
		s.Uploaded[strings.TrimPrefix(r.URL.Path, "/upload/")] = body
	case r.URL.Path == "/graphql":
		var req struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		json.Unmarshal(body, &req)
		switch {
		case strings.Contains(req.Query, "viewer"):
			json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"viewer": map[string]any{"entity": s.Entity}}})
		case strings.Contains(req.Query, "upsertBucket"):
			v := req.Variables
			json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"upsertBucket": map[string]any{
				"bucket":   map[string]any{"id": "QnVja2V0", "name": v["name"], "displayName": v["displayName"], "project": map[string]any{"name": v["project"], "entity": map[string]any{"name": v["entity"]}}},
				"inserted": true}}})
		case strings.Contains(req.Query, "createRunFiles"):
			files, _ := req.Variables["files"].([]any)
			var out []map[string]any
			for _, f := range files {
				out = append(out, map[string]any{"name": f, "uploadUrl": s.URL + "/upload/" + f.(string)})
			}
			json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"createRunFiles": map[string]any{
				"runID": "x", "uploadHeaders": []string{"Content-Type:application/octet-stream"}, "files": out}}})
		default:
			json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{"message": "unknown operation"}}})
		}
	case strings.HasSuffix(r.URL.Path, "/file_stream"):
		var m map[string]any
		json.Unmarshal(body, &m)
		s.Stream = append(s.Stream, m)
		w.Write([]byte(`{"exitcode": null, "limits": {}}`))
	default:
		http.NotFound(w, r)
	}
}
