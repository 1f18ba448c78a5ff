package mockserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// TestMain fails the package if any test leaves a goroutine behind, e.g. a
// stream handler that outlived its client.
// Idle keep-alive connections of the default client are closed first: they
// belong to the test client, not to the server.
func TestMain(m *testing.M) {
	code := m.Run()
	http.DefaultClient.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// fastConfig is the default configuration in Fast mode, counting prompt
// tokens as whitespace-separated words so tests can predict the ISL.
func fastConfig() mockserver.Config {
	cfg := mockserver.DefaultConfig()
	cfg.Fast = true
	cfg.CountTokens = func(s string) int { return len(strings.Fields(s)) }
	return cfg
}

// testServer is an httptest server around a mock Server.
type testServer struct {
	*httptest.Server
	mock *mockserver.Server
}

// newTestServer serves cfg until the test ends.
func newTestServer(t *testing.T, cfg mockserver.Config) testServer {
	t.Helper()
	m := mockserver.New(cfg)
	ts := httptest.NewServer(m)
	t.Cleanup(ts.Close)
	return testServer{ts, m}
}

// chatBody is a chat request with one user message and extra fields.
func chatBody(extra map[string]any, content string) map[string]any {
	b := map[string]any{"model": "test-model", "messages": []any{map[string]any{"role": "user", "content": content}}}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// completionBody is a completions request with extra fields.
func completionBody(extra map[string]any, prompt any) map[string]any {
	b := map[string]any{"model": "test-model", "prompt": prompt}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// wireUsage is the usage object as a client reads it.
type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// wireResponse is a non-streaming response or one SSE chunk, as a client
// reads it.
type wireResponse struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index   int `json:"index"`
		Message *struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"message"`
		Delta        map[string]any `json:"delta"`
		Text         *string        `json:"text"`
		FinishReason *string        `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// wireError is the OpenAI error envelope.
type wireError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

// post sends body (JSON-encoded unless it is a string) and returns the
// response with its body read.
func post(t *testing.T, url string, body any) (*http.Response, []byte) {
	t.Helper()
	raw, ok := body.(string)
	if !ok {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(raw))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, data
}

// postJSON posts a non-streaming request and decodes a 200 answer.
func postJSON(t *testing.T, url string, body any) wireResponse {
	t.Helper()
	resp, data := post(t, url, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s = %d %s; want 200", url, resp.StatusCode, data)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q; want application/json", ct)
	}
	var r wireResponse
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return r
}

// sseEvents splits an SSE body into its data payloads, failing on anything
// that is not a `data: ...` event followed by a blank line.
func sseEvents(t *testing.T, body []byte) []string {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("SSE body does not end with a blank line: %q", body)
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		if !ok || strings.Contains(data, "\n") {
			t.Fatalf("malformed SSE event %q", ev)
		}
		out = append(out, data)
	}
	return out
}

// postStream posts a streaming request and returns its chunks (without the
// final [DONE], whose presence it checks).
func postStream(t *testing.T, url string, body any) []wireResponse {
	t.Helper()
	resp, data := post(t, url, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s = %d %s; want 200", url, resp.StatusCode, data)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type = %q; want text/event-stream", ct)
	}
	events := sseEvents(t, data)
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event = %q; want [DONE]", events[len(events)-1])
	}
	var chunks []wireResponse
	for _, ev := range events[:len(events)-1] {
		var c wireResponse
		if err := json.Unmarshal([]byte(ev), &c); err != nil {
			t.Fatalf("chunk %q: %v", ev, err)
		}
		chunks = append(chunks, c)
	}
	return chunks
}
