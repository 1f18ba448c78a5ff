package benchmark

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

// These runs go against small servers written here from the APIs'
// documentation, not against the mock server, so that the endpoints are
// checked against an implementation other than the one they were
// developed with.

// apiServer counts what it received and answers with answer.
type apiServer struct {
	mu       sync.Mutex
	bodies   []map[string]json.RawMessage
	paths    map[string]int
	requests int
}

func (s *apiServer) start(t *testing.T, answer func(body map[string]json.RawMessage) any) string {
	t.Helper()
	s.paths = map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]json.RawMessage
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.paths[r.URL.Path]++
		s.requests++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// summaryTags are the metric tags in a run's summary.
func summaryTags(t *testing.T, cfg *config.Config) map[string]json.RawMessage {
	t.Helper()
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	out := map[string]json.RawMessage{}
	for k, v := range doc {
		var m struct {
			Unit *string `json:"unit"`
		}
		if json.Unmarshal(v, &m) == nil && m.Unit != nil {
			out[k] = v
		}
	}
	return out
}

func metricAvg(t *testing.T, tags map[string]json.RawMessage, tag string) float64 {
	t.Helper()
	var m struct {
		Avg *float64 `json:"avg"`
	}
	if err := json.Unmarshal(tags[tag], &m); err != nil || m.Avg == nil {
		t.Fatalf("summary has no average %s: %s", tag, tags[tag])
	}
	return *m.Avg
}

// TestEmbeddingsRunAgainstAnIndependentServer: 12 requests of 4 texts
// each (-b 4) reach /v1/embeddings as OpenAI's body; the summary has the
// request metrics and ISL, and none of the metrics of generated tokens.
func TestEmbeddingsRunAgainstAnIndependentServer(t *testing.T) {
	t.Parallel()
	var s apiServer
	url := s.start(t, func(body map[string]json.RawMessage) any {
		var input []string
		json.Unmarshal(body["input"], &input)
		data := make([]map[string]any, len(input))
		for i := range input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float64{0.1, -0.2, 0.3}}
		}
		return map[string]any{"object": "list", "data": data, "model": "e5", "usage": map[string]int{"prompt_tokens": 40, "total_tokens": 40}}
	})
	cfg := baseConfig(t, url)
	cfg.Endpoint.Type = config.EndpointEmbeddings
	cfg.Endpoint.Streaming = false
	cfg.Input.OutputTokens.Mean = nil
	cfg.Input.InputTokens.Mean = 10
	cfg.Prompt.BatchSize = 4
	cfg.Load.RequestCount = ptr(12)
	cfg.Load.Concurrency = ptr(3)
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if s.requests != 12 || s.paths["/v1/embeddings"] != 12 {
		t.Fatalf("server got %d requests at %v; want 12 at /v1/embeddings", s.requests, s.paths)
	}
	for _, b := range s.bodies {
		var input []string
		if err := json.Unmarshal(b["input"], &input); err != nil || len(input) != 4 {
			t.Fatalf("input %s; want a list of 4 texts", b["input"])
		}
		if string(b["model"]) != `"mock-model"` || b["stream"] != nil {
			t.Errorf("body %v", b)
		}
	}
	tags := summaryTags(t, cfg)
	if n := metricAvg(t, tags, "request_count"); n != 12 {
		t.Errorf("request_count %v", n)
	}
	for _, tag := range []string{"request_latency", "request_throughput", "input_sequence_length", "usage_prompt_tokens"} {
		if _, ok := tags[tag]; !ok {
			t.Errorf("summary lacks %s", tag)
		}
	}
	if isl := metricAvg(t, tags, "input_sequence_length"); isl < 4*10*0.8 || isl > 4*10*1.2 {
		t.Errorf("ISL %v; want about 4 texts x 10 tokens", isl)
	}
	for _, tag := range []string{"time_to_first_token", "inter_token_latency", "output_sequence_length", "output_token_throughput", "time_to_second_token"} {
		if _, ok := tags[tag]; ok {
			t.Errorf("summary has %s, which embeddings do not produce", tag)
		}
	}
}

// TestRankingsRunAgainstAnIndependentServer: each synthetic rankings
// request reaches /v1/ranking as NIM's body with one query and the
// configured number of passages; the answer's rankings are the output.
func TestRankingsRunAgainstAnIndependentServer(t *testing.T) {
	t.Parallel()
	var s apiServer
	url := s.start(t, func(body map[string]json.RawMessage) any {
		var passages []map[string]string
		json.Unmarshal(body["passages"], &passages)
		rankings := make([]map[string]any, len(passages))
		for i := range passages {
			rankings[i] = map[string]any{"index": i, "logit": float64(-i)}
		}
		return map[string]any{"rankings": rankings}
	})
	cfg := baseConfig(t, url)
	cfg.Endpoint.Type = config.EndpointNIMRankings
	cfg.Endpoint.Streaming = false
	cfg.Input.OutputTokens.Mean = nil
	cfg.Rankings = config.Rankings{PassagesMean: ptr(5), PassagesStddev: ptr(0), PassageTokensMean: ptr(16), QueryTokensMean: ptr(8)}
	cfg.Load.RequestCount = ptr(8)
	cfg.Load.Concurrency = ptr(2)
	if _, err := run(t, context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if s.requests != 8 || s.paths["/v1/ranking"] != 8 {
		t.Fatalf("server got %d requests at %v; want 8 at /v1/ranking", s.requests, s.paths)
	}
	for _, b := range s.bodies {
		var q struct{ Text string }
		var passages []struct{ Text string }
		if json.Unmarshal(b["query"], &q) != nil || q.Text == "" || json.Unmarshal(b["passages"], &passages) != nil || len(passages) != 5 {
			t.Fatalf("body %v; want a query and 5 passages", b)
		}
	}
	tags := summaryTags(t, cfg)
	if n := metricAvg(t, tags, "request_count"); n != 8 {
		t.Errorf("request_count %v", n)
	}
	if isl := metricAvg(t, tags, "input_sequence_length"); isl < 8+5*16-10 || isl > 8+5*16+10 {
		t.Errorf("ISL %v; want about 8 + 5 x 16 tokens", isl)
	}
	for _, tag := range []string{"time_to_first_token", "output_sequence_length", "inter_token_latency"} {
		if _, ok := tags[tag]; ok {
			t.Errorf("summary has %s, which rankings do not produce", tag)
		}
	}
	if _, ok := tags["error_request_count"]; ok {
		t.Error("requests failed")
	}
}
