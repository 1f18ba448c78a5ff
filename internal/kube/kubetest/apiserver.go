// Package kubetest holds Kubernetes test helpers: StartControlPlane runs
// envtest's etcd and kube-apiserver (controlplane.go), and Server is a
// small Kubernetes API server for tests of what
// client-go's fake clientset cannot do: the pods/proxy and pods/log
// subresources, which go over the REST client. It serves a fixed set of
// pods (list by label selector, get), their logs, and forwards each pod's
// proxy requests (/api/v1/namespaces/NS/pods/NAME:PORT/proxy/PATH) to an
// http.Handler standing in for the pod, as the real API server forwards
// them to the pod's port. Server uses the standard library only (the JSON it
// writes is the API's wire form, built by hand here).
package kubetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Pod is one pod the server knows.
type Pod struct {
	Namespace, Name string
	Labels          map[string]string
	// Phase is status.phase (Running, Pending, Succeeded, Failed).
	Phase string
	// Ports are the container's named ports.
	Ports map[string]int
	// Log is what pods/log returns.
	Log string
	// Backend answers the pod's proxied requests (nil: 503, as the API
	// server answers for a pod that does not listen).
	Backend http.Handler
}

// Server is the fake API server. Requests lists every request's method
// and path, in order.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	pods     []*Pod
	Requests []string
	waiters  []waiter
}

type waiter struct {
	method, part string
	ch           chan struct{}
}

// WaitFor returns a channel closed once a request with method and a path
// containing part has been answered (at once if one was).
func (s *Server) WaitFor(method, part string) <-chan struct{} {
	ch := make(chan struct{})
	if s.Seen(method, part) > 0 {
		close(ch)
		return ch
	}
	s.mu.Lock()
	s.waiters = append(s.waiters, waiter{method, part, ch})
	s.mu.Unlock()
	return ch
}

// New starts a server with pods.
func New(pods ...*Pod) *Server {
	s := &Server{pods: pods}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetPhase changes a pod's phase.
func (s *Server) SetPhase(name, phase string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pods {
		if p.Name == name {
			p.Phase = phase
		}
	}
}

// Seen reports how many requests had method and a path containing part.
func (s *Server) Seen(method, part string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.Requests {
		if strings.HasPrefix(r, method+" ") && strings.Contains(r, part) {
			n++
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.Requests = append(s.Requests, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	defer s.wake(r.Method, r.URL.Path)
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v1/namespaces/"), "/")
	if !strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/") || len(parts) < 2 || parts[1] != "pods" {
		status(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
		return
	}
	ns := parts[0]
	switch {
	case len(parts) == 2 && r.Method == http.MethodGet:
		s.list(w, ns, r.URL.Query().Get("labelSelector"))
	case len(parts) == 3 && r.Method == http.MethodGet:
		if p := s.find(ns, parts[2]); p != nil {
			writeJSON(w, podJSON(p))
		} else {
			status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("pods %q not found", parts[2]))
		}
	case len(parts) == 4 && parts[3] == "log":
		p := s.find(ns, parts[2])
		if p == nil {
			status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("pods %q not found", parts[2]))
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, p.Log)
	case len(parts) >= 4 && parts[3] == "proxy":
		name, port, _ := strings.Cut(parts[2], ":")
		p := s.find(ns, name)
		if p == nil {
			status(w, http.StatusNotFound, "NotFound", fmt.Sprintf("pods %q not found", name))
			return
		}
		if p.Backend == nil || p.Phase != "Running" || !hasPort(p, port) {
			status(w, http.StatusServiceUnavailable, "ServiceUnavailable", "error trying to reach service: connection refused")
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + strings.Join(parts[4:], "/")
		r2.RequestURI = ""
		p.Backend.ServeHTTP(w, r2)
	default:
		status(w, http.StatusMethodNotAllowed, "MethodNotAllowed", r.Method+" "+r.URL.Path)
	}
}

func (s *Server) wake(method, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.waiters[:0]
	for _, w := range s.waiters {
		if w.method == method && strings.Contains(path, w.part) {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	s.waiters = kept
}

func hasPort(p *Pod, port string) bool {
	for _, n := range p.Ports {
		if fmt.Sprint(n) == port {
			return true
		}
	}
	return false
}

func (s *Server) find(ns, name string) *Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pods {
		if p.Namespace == ns && p.Name == name {
			return p
		}
	}
	return nil
}

// list answers a pod list; the selector is a comma-separated list of
// key=value terms (all the callers here use).
func (s *Server) list(w http.ResponseWriter, ns, selector string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	items := []any{}
	for _, p := range s.pods {
		if p.Namespace != ns || !matches(p.Labels, selector) {
			continue
		}
		items = append(items, podJSON(p))
	}
	writeJSON(w, map[string]any{"kind": "PodList", "apiVersion": "v1", "metadata": map[string]any{}, "items": items})
}

func matches(labels map[string]string, selector string) bool {
	for _, term := range strings.Split(selector, ",") {
		if term == "" {
			continue
		}
		k, v, _ := strings.Cut(term, "=")
		if labels[k] != v {
			return false
		}
	}
	return true
}

func podJSON(p *Pod) map[string]any {
	ports := []any{}
	for name, n := range p.Ports {
		ports = append(ports, map[string]any{"name": name, "containerPort": n, "protocol": "TCP"})
	}
	return map[string]any{
		"kind": "Pod", "apiVersion": "v1",
		"metadata": map[string]any{"name": p.Name, "namespace": p.Namespace, "labels": p.Labels, "creationTimestamp": "2026-12-02T00:00:00Z"},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "controller", "image": "aiperf", "ports": ports}}},
		"status":   map[string]any{"phase": p.Phase},
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// status writes a metav1.Status failure, as the API server does.
func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code})
}
