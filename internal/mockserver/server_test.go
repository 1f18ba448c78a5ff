package mockserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// tenWords has ISL 10 under fastConfig. Its length seed is
// crc32("one\x1ftwo\x1fthree\x1ffour\x1ffive") % 1000 = 260 (checked with
// Python's zlib), so the default output length is 8 + 260 % 5 = 8.
const tenWords = "one two three four five six seven eight nine ten"

// countCases are output-length cases for a tenWords prompt (ISL 10):
// default budget max = 20, min = 8, target max = 12.
var countCases = []struct {
	name       string
	extra      map[string]any
	chatOnly   bool
	wantCount  int
	wantFinish string
}{
	{"default", nil, false, 8, "stop"},
	{"max_tokens 0 is unset", map[string]any{"max_tokens": 0}, false, 8, "stop"},
	{"ignore_eos gives max", map[string]any{"max_tokens": 12, "ignore_eos": true}, false, 12, "length"},
	{"ignore_eos default max", map[string]any{"ignore_eos": true}, false, 20, "length"},
	{"max_completion_tokens wins", map[string]any{"max_completion_tokens": 7, "max_tokens": 100, "ignore_eos": true}, true, 7, "length"},
	{"min equals max", map[string]any{"min_tokens": 5, "max_tokens": 5}, false, 5, "length"},
	{"max below default min", map[string]any{"max_tokens": 3}, false, 3, "length"},
	{"min above default max is clamped", map[string]any{"min_tokens": 30}, false, 20, "length"},
	{"min_tokens zero", map[string]any{"min_tokens": 0, "max_tokens": 1000}, false, 260, "stop"},
}

// wordSet is the vocabulary as emitted tokens.
func wordSet() map[string]bool {
	set := map[string]bool{}
	for _, w := range mockserver.Words() {
		set[" "+w] = true
	}
	return set
}

func TestNonStreamingCounts(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	words := wordSet()
	for _, tc := range countCases {
		for _, api := range []string{"chat", "completions"} {
			if tc.chatOnly && api != "chat" {
				continue
			}
			t.Run(api+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				var got wireResponse
				var text string
				if api == "chat" {
					got = postJSON(t, srv.URL+"/v1/chat/completions", chatBody(tc.extra, tenWords))
					if got.Object != "chat.completion" || got.Choices[0].Message == nil || got.Choices[0].Message.Role != "assistant" {
						t.Fatalf("response %+v is not a chat.completion with an assistant message", got)
					}
					text = got.Choices[0].Message.Content
				} else {
					got = postJSON(t, srv.URL+"/v1/completions", completionBody(tc.extra, tenWords))
					if got.Object != "text_completion" || got.Choices[0].Text == nil {
						t.Fatalf("response %+v is not a text_completion", got)
					}
					text = *got.Choices[0].Text
				}
				if got.Model != "test-model" || got.ID == "" || got.Created == 0 {
					t.Errorf("id/created/model = %q/%d/%q; want set, model echoed", got.ID, got.Created, got.Model)
				}
				var tokens []string
				for _, w := range strings.Fields(text) {
					tokens = append(tokens, " "+w)
				}
				if strings.Join(tokens, "") != text {
					t.Errorf("text %q is not a run of space-led words", text)
				}
				for _, tok := range tokens {
					if !words[tok] {
						t.Errorf("token %q not in vocabulary", tok)
					}
				}
				want := wireUsage{10, tc.wantCount, 10 + tc.wantCount}
				if len(tokens) != tc.wantCount || got.Usage == nil || *got.Usage != want {
					t.Errorf("tokens = %d, usage = %+v; want %d tokens, usage %+v", len(tokens), got.Usage, tc.wantCount, want)
				}
				if f := got.Choices[0].FinishReason; f == nil || *f != tc.wantFinish {
					t.Errorf("finish_reason = %v; want %q", f, tc.wantFinish)
				}
			})
		}
	}
}

// checkChatStream verifies the vLLM chat chunk sequence and returns the
// streamed text.
func checkChatStream(t *testing.T, chunks []wireResponse, wantCount int, wantFinish string, wantUsage *wireUsage) string {
	t.Helper()
	n := 1 + wantCount + 1
	if wantUsage != nil {
		n++
	}
	if len(chunks) != n {
		t.Fatalf("got %d chunks; want %d (role + %d tokens + finish + usage?)", len(chunks), n, wantCount)
	}
	words := wordSet()
	var text strings.Builder
	for i, c := range chunks {
		if c.Object != "chat.completion.chunk" || c.ID != chunks[0].ID || c.Model != "test-model" || c.Created == 0 {
			t.Errorf("chunk %d header %q/%q/%q/%d; want chat.completion.chunk, same id, echoed model", i, c.Object, c.ID, c.Model, c.Created)
		}
		switch {
		case i == 0:
			if len(c.Choices) != 1 || !reflect.DeepEqual(c.Choices[0].Delta, map[string]any{"role": "assistant", "content": ""}) || c.Choices[0].FinishReason != nil {
				t.Errorf("first chunk %+v; want the role chunk", c.Choices)
			}
		case i <= wantCount:
			content, _ := c.Choices[0].Delta["content"].(string)
			if len(c.Choices) != 1 || len(c.Choices[0].Delta) != 1 || !words[content] || c.Choices[0].FinishReason != nil {
				t.Errorf("token chunk %d = %+v; want one vocabulary word", i, c.Choices)
			}
			text.WriteString(content)
		case i == wantCount+1:
			if len(c.Choices) != 1 || len(c.Choices[0].Delta) != 0 || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != wantFinish {
				t.Errorf("finish chunk = %+v; want empty delta, finish_reason %q", c.Choices, wantFinish)
			}
		default:
			if len(c.Choices) != 0 || c.Usage == nil || *c.Usage != *wantUsage {
				t.Errorf("usage chunk = %+v / %+v; want no choices, usage %+v", c.Choices, c.Usage, *wantUsage)
			}
		}
		if i <= wantCount+1 && c.Usage != nil {
			t.Errorf("chunk %d carries usage", i)
		}
	}
	return text.String()
}

// checkTextStream verifies the completions chunk sequence and returns the
// streamed text.
func checkTextStream(t *testing.T, chunks []wireResponse, wantCount int, wantFinish string, wantUsage *wireUsage) string {
	t.Helper()
	n := wantCount + 1
	if wantUsage != nil {
		n++
	}
	if len(chunks) != n {
		t.Fatalf("got %d chunks; want %d", len(chunks), n)
	}
	words := wordSet()
	var text strings.Builder
	for i, c := range chunks {
		if c.Object != "text_completion" || c.ID != chunks[0].ID || c.Model != "test-model" {
			t.Errorf("chunk %d header %q/%q/%q; want text_completion, same id, echoed model", i, c.Object, c.ID, c.Model)
		}
		switch {
		case i < wantCount:
			if len(c.Choices) != 1 || c.Choices[0].Text == nil || !words[*c.Choices[0].Text] || c.Choices[0].FinishReason != nil {
				t.Errorf("token chunk %d = %+v; want one vocabulary word", i, c.Choices)
				continue
			}
			text.WriteString(*c.Choices[0].Text)
		case i == wantCount:
			if len(c.Choices) != 1 || c.Choices[0].Text == nil || *c.Choices[0].Text != "" || c.Choices[0].FinishReason == nil || *c.Choices[0].FinishReason != wantFinish {
				t.Errorf("finish chunk = %+v; want empty text, finish_reason %q", c.Choices, wantFinish)
			}
		default:
			if len(c.Choices) != 0 || c.Usage == nil || *c.Usage != *wantUsage {
				t.Errorf("usage chunk = %+v / %+v; want usage %+v", c.Choices, c.Usage, *wantUsage)
			}
		}
	}
	return text.String()
}

func TestStreamingShapeAndCounts(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	for _, tc := range countCases {
		for _, api := range []string{"chat", "completions"} {
			for _, usage := range []bool{false, true} {
				if tc.chatOnly && api != "chat" {
					continue
				}
				name := api + "/" + tc.name
				if usage {
					name += "/usage"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					extra := map[string]any{"stream": true}
					for k, v := range tc.extra {
						extra[k] = v
					}
					var wantUsage *wireUsage
					if usage {
						extra["stream_options"] = map[string]any{"include_usage": true}
						wantUsage = &wireUsage{10, tc.wantCount, 10 + tc.wantCount}
					}
					var streamed, whole string
					if api == "chat" {
						streamed = checkChatStream(t, postStream(t, srv.URL+"/v1/chat/completions", chatBody(extra, tenWords)), tc.wantCount, tc.wantFinish, wantUsage)
						whole = postJSON(t, srv.URL+"/v1/chat/completions", chatBody(tc.extra, tenWords)).Choices[0].Message.Content
					} else {
						streamed = checkTextStream(t, postStream(t, srv.URL+"/v1/completions", completionBody(extra, tenWords)), tc.wantCount, tc.wantFinish, wantUsage)
						whole = *postJSON(t, srv.URL+"/v1/completions", completionBody(tc.extra, tenWords)).Choices[0].Text
					}
					if streamed != whole {
						t.Errorf("streamed text %q != non-streaming text %q", streamed, whole)
					}
				})
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	a, b := newTestServer(t, fastConfig()), newTestServer(t, fastConfig())
	prompts := []string{tenWords, "a quick brown fox jumps over the lazy dog again and again", "x"}
	for _, p := range prompts {
		first := postJSON(t, a.URL+"/v1/chat/completions", chatBody(nil, p)).Choices[0].Message.Content
		again := postJSON(t, a.URL+"/v1/chat/completions", chatBody(nil, p)).Choices[0].Message.Content
		other := postJSON(t, b.URL+"/v1/chat/completions", chatBody(nil, p)).Choices[0].Message.Content
		if first != again || first != other {
			t.Errorf("prompt %q: texts differ: %q, %q, %q", p, first, again, other)
		}
	}
	x := postJSON(t, a.URL+"/v1/chat/completions", chatBody(map[string]any{"max_tokens": 64, "ignore_eos": true}, "alpha")).Choices[0].Message.Content
	y := postJSON(t, a.URL+"/v1/chat/completions", chatBody(map[string]any{"max_tokens": 64, "ignore_eos": true}, "beta")).Choices[0].Message.Content
	if x == y {
		t.Errorf("different prompts gave the same text %q", x)
	}
}

func TestPromptExtraction(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	tests := []struct {
		name    string
		path    string
		body    any
		wantISL int
	}{
		{"chat string", "/v1/chat/completions", chatBody(nil, "a b c"), 3},
		{"chat parts and roles", "/v1/chat/completions", map[string]any{"model": "m", "messages": []any{
			map[string]any{"role": "system", "content": "counted system words"},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "a b"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:x"}},
				map[string]any{"type": "text", "text": "c"},
			}},
			map[string]any{"role": "assistant", "content": "counted reply"},
			map[string]any{"role": "user", "content": "d e"},
		}}, 10}, // every message: a server's usage counts the whole conversation
		{"completions string", "/v1/completions", completionBody(nil, "a b c d"), 4},
		{"completions strings", "/v1/completions", completionBody(nil, []string{"a b", "", "c"}), 3},
		{"completions token ids", "/v1/completions", completionBody(nil, []int{1, 2, 3, 4, 5, 6}), 6},
		{"completions nested ids", "/v1/completions", completionBody(nil, [][]int{{1, 2}, {3}}), 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := postJSON(t, srv.URL+tc.path, tc.body)
			if got.Usage.PromptTokens != tc.wantISL {
				t.Errorf("prompt_tokens = %d; want %d", got.Usage.PromptTokens, tc.wantISL)
			}
		})
	}
}

func TestApproximateTokenCount(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.CountTokens = nil
	srv := newTestServer(t, cfg)
	for _, tc := range []struct {
		prompt string
		want   int
	}{{"abcd", 1}, {"abcde", 2}, {"x", 1}, {strings.Repeat("a", 400), 100}} {
		got := postJSON(t, srv.URL+"/v1/completions", completionBody(nil, tc.prompt))
		if got.Usage.PromptTokens != tc.want {
			t.Errorf("prompt of %d chars: prompt_tokens = %d; want %d", len(tc.prompt), got.Usage.PromptTokens, tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, fastConfig())
	tests := []struct {
		name, method, path string
		body               string
		wantStatus         int
		wantType           string
	}{
		{"bad json", "POST", "/v1/chat/completions", `{"model":`, 400, "invalid_request_error"},
		{"bad json completions", "POST", "/v1/completions", `not json`, 400, "invalid_request_error"},
		{"missing messages", "POST", "/v1/chat/completions", `{"model":"m"}`, 400, "invalid_request_error"},
		{"missing prompt", "POST", "/v1/completions", `{"model":"m"}`, 400, "invalid_request_error"},
		{"bad content", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":7}]}`, 400, "invalid_request_error"},
		{"negative max_tokens", "POST", "/v1/completions", `{"prompt":"a","max_tokens":-1}`, 400, "invalid_request_error"},
		{"huge min_tokens", "POST", "/v1/completions", `{"prompt":"a","min_tokens":100000000}`, 400, "invalid_request_error"},
		{"unknown path", "GET", "/v2/nothing", "", 404, "not_found_error"},
		{"wrong method", "GET", "/v1/chat/completions", "", 405, "invalid_request_error"},
		{"wrong method models", "POST", "/v1/models", "{}", 405, "invalid_request_error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			var e wireError
			if resp.StatusCode != tc.wantStatus || json.Unmarshal(data, &e) != nil ||
				e.Error.Type != tc.wantType || e.Error.Code != tc.wantStatus || e.Error.Message == "" ||
				resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("%s %s = %d %s; want %d with a %s JSON error", tc.method, tc.path, resp.StatusCode, data, tc.wantStatus, tc.wantType)
			}
		})
	}
}

func TestErrorRateAll(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.ErrorRate = 100
	srv := newTestServer(t, cfg)
	for _, path := range []string{"/v1/chat/completions", "/v1/completions"} {
		for _, stream := range []bool{false, true} {
			body := map[string]any{"model": "m", "stream": stream, "prompt": "a", "messages": []any{map[string]any{"role": "user", "content": "a"}}}
			resp, data := post(t, srv.URL+path, body)
			var e wireError
			if resp.StatusCode != 500 || json.Unmarshal(data, &e) != nil || e.Error.Code != 500 || e.Error.Type != "server_error" {
				t.Errorf("%s stream=%v = %d %s; want a 500 JSON error", path, stream, resp.StatusCode, data)
			}
		}
	}
	// Non-inference routes never fail.
	if resp, _ := post(t, srv.URL+"/health", ""); resp.StatusCode != 405 {
		t.Errorf("POST /health = %d; want 405", resp.StatusCode)
	}
}

// failures returns which of n sequential requests fail on a server seeded
// with seed at a 50% error rate.
func failures(t *testing.T, seed int64, n int) []bool {
	t.Helper()
	cfg := fastConfig()
	cfg.ErrorRate = 50
	cfg.RandomSeed, cfg.SeedSet = seed, true
	cfg.TTFTJitterCV = 0.3 // jitter draws must not shift the error draws
	srv := newTestServer(t, cfg)
	out := make([]bool, n)
	for i := range out {
		resp, _ := post(t, srv.URL+"/v1/completions", completionBody(nil, "a b"))
		out[i] = resp.StatusCode == 500
	}
	return out
}

func TestErrorRateSeeded(t *testing.T) {
	t.Parallel()
	const n = 64
	a, b, c := failures(t, 42, n), failures(t, 42, n), failures(t, 43, n)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seed 42 gave different failure sets:\n%v\n%v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 42 and 43 gave the same failure set %v", a)
	}
	failed := 0
	for _, f := range a {
		if f {
			failed++
		}
	}
	if failed < n/4 || failed > 3*n/4 {
		t.Errorf("%d of %d failed at a 50%% rate", failed, n)
	}
}

func TestModelsHealthInfo(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.DefaultModel = "my-model"
	cfg.TTFT = 40 * time.Millisecond
	srv := newTestServer(t, cfg)

	get := func(path string, v any) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s = %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	var models struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	get("/v1/models", &models)
	if models.Object != "list" || len(models.Data) != 1 || models.Data[0].ID != "my-model" || models.Data[0].Object != "model" {
		t.Errorf("/v1/models = %+v; want a list with my-model", models)
	}
	var health struct {
		Status string         `json:"status"`
		Config map[string]any `json:"config"`
	}
	get("/health", &health)
	if health.Status != "healthy" || health.Config["ttft"] != 40.0 || health.Config["itl"] != 5.0 ||
		health.Config["default_model"] != "my-model" || health.Config["fast"] != true ||
		health.Config["random_seed"] != nil || health.Config["tokenizer"] != "injected" {
		t.Errorf("/health = %+v", health)
	}
	var info struct {
		Message string         `json:"message"`
		Config  map[string]any `json:"config"`
	}
	get("/", &info)
	if info.Message == "" || info.Config["default_model"] != "my-model" {
		t.Errorf("/ = %+v", info)
	}
	// A request without a model is answered as the default model.
	got := postJSON(t, srv.URL+"/v1/completions", map[string]any{"prompt": "a"})
	if got.Model != "my-model" {
		t.Errorf("model = %q; want my-model", got.Model)
	}
}

// openStream starts a streaming chat request and reads up to the role chunk.
func openStream(t *testing.T, ctx context.Context, url string) (*http.Response, *bufio.Reader) {
	t.Helper()
	b, _ := json.Marshal(chatBody(map[string]any{"stream": true, "max_tokens": 8, "ignore_eos": true}, "a b"))
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/v1/chat/completions", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	if err != nil || !strings.Contains(line, `"role":"assistant"`) {
		t.Fatalf("first line %q, %v; want the role chunk", line, err)
	}
	return resp, r
}

// slowConfig never reaches its first token during a test.
func slowConfig() mockserver.Config {
	cfg := mockserver.DefaultConfig()
	cfg.TTFT = time.Hour
	return cfg
}

func TestClientDisconnectEndsHandler(t *testing.T) {
	t.Parallel()
	m := mockserver.New(slowConfig())
	ts := httptest.NewServer(m)
	ctx, cancel := context.WithCancel(context.Background())
	resp, _ := openStream(t, ctx, ts.URL)
	if got := m.Active(); got != 1 {
		t.Errorf("Active() during the stream = %d; want 1", got)
	}
	cancel()
	resp.Body.Close()
	// Close blocks until every handler has returned: it would hang (and the
	// test time out) if the handler kept waiting for its hour-long TTFT.
	ts.Close()
	if got := m.Active(); got != 0 {
		t.Errorf("Active() after disconnect = %d; want 0", got)
	}
}

func TestRunningCloseEndsStreams(t *testing.T) {
	t.Parallel()
	run, err := mockserver.Start(slowConfig(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(run.URL(), "http://127.0.0.1:") || strings.HasSuffix(run.URL(), ":0") {
		t.Errorf("URL() = %q; want http://127.0.0.1:PORT", run.URL())
	}
	var health struct {
		Config struct {
			Port int `json:"port"`
		} `json:"config"`
	}
	hr, err := http.Get(run.URL() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	_ = json.NewDecoder(hr.Body).Decode(&health)
	hr.Body.Close()
	if !strings.HasSuffix(run.URL(), ":"+strconv.Itoa(health.Config.Port)) {
		t.Errorf("/health port %d does not match URL %s", health.Config.Port, run.URL())
	}

	resp, r := openStream(t, context.Background(), run.URL())
	defer resp.Body.Close()
	if err := run.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := run.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
	rest, _ := io.ReadAll(r)
	if strings.Contains(string(rest), "[DONE]") {
		t.Errorf("stream completed after Close: %q", rest)
	}
	if got := run.Server().Active(); got != 0 {
		t.Errorf("Active() after Close = %d; want 0", got)
	}
	if _, err := http.Get(run.URL() + "/health"); err == nil {
		t.Errorf("server still answers after Close")
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	run, err := mockserver.Start(fastConfig(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if _, err := mockserver.Start(fastConfig(), strings.TrimPrefix(run.URL(), "http://")); err == nil {
		t.Errorf("Start on a busy port succeeded")
	}
}
