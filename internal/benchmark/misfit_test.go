package benchmark

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// TestRunSaysWhichEndpointTypeTheResponsesFit: a server that answers with
// chat completions, benchmarked with --endpoint-type completions, fails
// every request, and the one error summary row says what the body looks
// like and "did you mean --endpoint-type chat?".
func TestRunSaysWhichEndpointTypeTheResponsesFit(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"mock-model","object":"model"}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":"x","object":"chat.completion","model":"mock-model","choices":[{"index":0,"message":{"role":"assistant","content":"hello there"},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(srv.Close)
	cfg := baseConfig(t, srv.URL)
	cfg.Endpoint.Type = config.EndpointCompletions
	cfg.Endpoint.Streaming = false
	cfg.Load.RequestCount = ptr(4)
	out, _ := run(t, context.Background(), cfg)

	var rows []struct {
		Details struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error_details"`
		Count int `json:"count"`
	}
	if err := json.Unmarshal(summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))["error_summary"], &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Count != 4 {
		t.Fatalf("error_summary %+v, want one row of 4\n%s", rows, out)
	}
	msg := rows[0].Details.Message
	for _, want := range []string{`the body is a JSON object with "object": "chat.completion"`, "did you mean --endpoint-type chat?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error message %q lacks %q", msg, want)
		}
	}
	if n := strings.Count(out, "did you mean"); n != 1 {
		t.Errorf("the console says \"did you mean\" %d times, want once\n%s", n, out)
	}
}
