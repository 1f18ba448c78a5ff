// Package sagemakertest is a SageMaker Runtime-shaped server for tests:
// it checks each request's SigV4 signature with the AWS SDK's signer
// (sigv4test), routes /endpoints/{name}/invocations and
// /invocations-response-stream, refuses what SageMaker refuses, and
// streams OpenAI chat chunks as SSE lines inside binary event stream
// PayloadParts, cut at arbitrary places as SageMaker relays them.
package sagemakertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/aiperf-go/aiperf/internal/eventstream"
	"github.com/aiperf-go/aiperf/internal/sagemaker"
	"github.com/aiperf-go/aiperf/internal/sigv4/sigv4test"
)

// Request is one request the server received.
type Request struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	// SignatureError is why the signature was refused ("" when valid).
	SignatureError string
}

// Server is the test server. Its fields are set before Start.
type Server struct {
	// Endpoint is the endpoint name served; other names get 404.
	Endpoint string
	Verifier sigv4test.Verifier
	// Tokens is the number of content chunks per response (default 5).
	Tokens int
	// FailAfter, when positive, ends streams with a ModelStreamError
	// exception after that many tokens.
	FailAfter int

	*httptest.Server
	mu       sync.Mutex
	requests []Request
}

// Start starts the server on a loopback port.
func (s *Server) Start() *Server {
	if s.Tokens == 0 {
		s.Tokens = 5
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// awsError answers as SageMaker does: a status, x-amzn-ErrorType and a
// JSON message.
func awsError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("x-amzn-ErrorType", typ)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := Request{Method: r.Method, Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Body: body}
	if err := s.Verifier.Verify(r, body); err != nil {
		rec.SignatureError = err.Error()
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
	if rec.SignatureError != "" {
		typ, _, _ := strings.Cut(rec.SignatureError, ":")
		awsError(w, http.StatusForbidden, typ, rec.SignatureError)
		return
	}
	name, op, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/endpoints/"), "/")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/endpoints/") || !ok || (op != sagemaker.Invocations && op != sagemaker.InvocationsStream) {
		awsError(w, http.StatusNotFound, "UnknownOperationException", "unknown operation "+r.Method+" "+r.URL.Path)
		return
	}
	if name != s.Endpoint {
		awsError(w, http.StatusBadRequest, "ValidationError", fmt.Sprintf("Endpoint %s of account 123456789012 not found.", name))
		return
	}
	streaming := op == sagemaker.InvocationsStream
	if tm := r.Header.Get(sagemaker.HeaderTargetModel); tm != "" {
		// The streaming operation has no TargetModel; this endpoint has
		// one model.
		awsError(w, http.StatusBadRequest, "ValidationError", fmt.Sprintf("Endpoint %s is not a multi-model endpoint and does not support target model header.", name))
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		awsError(w, http.StatusFailedDependency, "ModelError", "Received client error (400) from primary with message \"invalid JSON\"")
		return
	}
	w.Header().Set("X-Amzn-Invoked-Production-Variant", "AllTraffic")
	if !streaming {
		w.Header().Set("Content-Type", "application/json")
		words := make([]string, s.Tokens)
		for i := range words {
			words[i] = fmt.Sprintf("tok%d", i)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": strings.Join(words, " ")}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 3, "completion_tokens": s.Tokens, "total_tokens": 3 + s.Tokens},
		})
		return
	}
	w.Header().Set("Content-Type", eventstream.ContentType)
	w.Header().Set("X-Amzn-SageMaker-Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	// The SSE text the container wrote, relayed in PayloadParts of
	// sizes that do not follow its lines.
	var sse strings.Builder
	for i := range s.Tokens {
		chunk, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": fmt.Sprintf("tok%d ", i)}}}})
		sse.WriteString("data: " + string(chunk) + "\n\n")
		text := sse.String()
		sse.Reset()
		// Two PayloadParts per token, split inside the JSON.
		cut := len(text) / 3
		frames := eventstream.PayloadPart(nil, []byte(text[:cut]))
		frames = eventstream.PayloadPart(frames, []byte(text[cut:]))
		if s.FailAfter > 0 && i == s.FailAfter {
			frames = eventstream.Exception(eventstream.PayloadPart(nil, []byte(text[:cut])), "ModelStreamError", "Your model container has failed")
			_, _ = w.Write(frames)
			return
		}
		_, _ = w.Write(frames)
		if flusher != nil {
			flusher.Flush()
		}
	}
	_, _ = w.Write(eventstream.PayloadPart(nil, []byte("data: [DONE]\n\n")))
}
