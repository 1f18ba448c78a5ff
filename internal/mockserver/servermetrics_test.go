package mockserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// scrape GETs a metrics page and returns it with its content type.
func scrape(t *testing.T, url string) (string, string, int) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.Header.Get("Content-Type"), resp.StatusCode
}

// samples reads the sample lines of a Prometheus text page into
// name{labels} -> value. The page is the mock's own output, so this
// deliberately simple reader (no escapes inside label values) suffices; the
// telemetry package parses the same pages with expfmt.
func samples(t *testing.T, page string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, line := range strings.Split(page, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("malformed sample line %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// lookup finds the one sample whose key starts with prefix (a name, or a
// name with its first labels).
func lookup(t *testing.T, s map[string]float64, prefix string) float64 {
	t.Helper()
	var found []string
	for k := range s {
		if k == prefix || strings.HasPrefix(k, prefix+"{") || strings.HasPrefix(k, prefix+",") {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		t.Fatalf("samples matching %q: %q; want exactly one", prefix, found)
	}
	return s[found[0]]
}

func TestVLLMMetricsFollowWhatWasServed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	var completion int
	for i := range 5 {
		chunks := postStream(t, ts.URL+"/v1/chat/completions", chatBody(map[string]any{
			"stream": true, "max_tokens": 3 + i, "ignore_eos": true, "stream_options": map[string]any{"include_usage": true}}, "one two three four"))
		completion += chunks[len(chunks)-1].Usage.CompletionTokens
	}
	r := postJSON(t, ts.URL+"/v1/chat/completions", chatBody(map[string]any{"max_tokens": 7, "ignore_eos": true}, "five six"))
	completion += r.Usage.CompletionTokens

	page, ct, code := scrape(t, ts.URL+"/metrics")
	if code != 200 || !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("GET /metrics = %d %q", code, ct)
	}
	s := samples(t, page)
	m := `{engine="0",model_name="mock-model"}`
	for name, want := range map[string]float64{
		"vllm:generation_tokens_total":           float64(completion),
		"vllm:prompt_tokens_total":               5*4 + 2,
		"vllm:num_requests_running":              0,
		"vllm:kv_cache_usage_perc":               0,
		"vllm:time_to_first_token_seconds_count": 6,
		"vllm:e2e_request_latency_seconds_count": 6,
		// 5 streams of 3..7 tokens have 2+3+4+5+6 gaps; the non-streaming
		// answer has none.
		"vllm:inter_token_latency_seconds_count":                                                20,
		"vllm:request_generation_tokens_sum":                                                    float64(completion),
		`vllm:time_to_first_token_seconds_bucket{engine="0",model_name="mock-model",le="+Inf"}`: 6,
	} {
		key := name
		if !strings.Contains(name, "{") {
			key = name + m
		}
		if got, ok := s[key]; !ok || got != want {
			t.Errorf("%s = %v (present %v); want %v", key, got, ok, want)
		}
	}
	if got := lookup(t, s, `vllm:request_success_total{engine="0",finished_reason="length"`); got != 6 {
		t.Errorf("successful requests that hit max_tokens = %v; want 6", got)
	}
	if got := ts.mock.GenerationTokens(); got != uint64(completion) {
		t.Errorf("GenerationTokens() = %d; want %d", got, completion)
	}
	hits, queries := lookup(t, s, "vllm:prefix_cache_hits_total"), lookup(t, s, "vllm:prefix_cache_queries_total")
	if !(hits >= 0.3*queries-6 && hits <= 0.6*queries) {
		t.Errorf("prefix cache hits %v of %v queried tokens; want 30-60 %%", hits, queries)
	}
	// Buckets are cumulative and end at the count.
	prev := -1.0
	for _, le := range []string{"0.001", "0.005", "0.01", "1.0", "2560.0", "+Inf"} {
		v := s[`vllm:time_to_first_token_seconds_bucket{engine="0",model_name="mock-model",le="`+le+`"}`]
		if v < prev {
			t.Errorf("TTFT bucket le=%s = %v < previous %v", le, v, prev)
		}
		prev = v
	}
}

func TestRunningGaugeCountsRequestsInFlight(t *testing.T) {
	t.Parallel()
	cfg := slowConfig() // streams stay open until the test lets go
	cfg.CountTokens = func(s string) int { return len(strings.Fields(s)) }
	m := mockserver.New(cfg)
	ts := httptest.NewServer(m)
	ctx, cancel := context.WithCancel(context.Background())
	const n = 3
	for range n {
		resp, _ := openStream(t, ctx, ts.URL) // returns once the handler answers
		defer resp.Body.Close()
	}
	s := samples(t, mustScrape(t, ts.URL+"/sglang/metrics"))
	if got := lookup(t, s, "sglang:num_running_reqs"); got != n {
		t.Errorf("sglang:num_running_reqs = %v; want %d", got, n)
	}
	if got := lookup(t, s, "sglang:num_used_tokens"); got != 2*n {
		t.Errorf("sglang:num_used_tokens = %v; want %d (the prompts held in the KV cache)", got, 2*n)
	}
	cancel()
	ts.Close() // waits for every handler to return
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sglang/metrics", nil))
	s = samples(t, rec.Body.String())
	if got := lookup(t, s, "sglang:num_running_reqs"); got != 0 {
		t.Errorf("after the clients left, sglang:num_running_reqs = %v; want 0", got)
	}
	if got := lookup(t, s, "sglang:num_used_tokens"); got != 0 {
		t.Errorf("after the clients left, sglang:num_used_tokens = %v; want 0", got)
	}
}

func mustScrape(t *testing.T, url string) string {
	t.Helper()
	page, _, code := scrape(t, url)
	if code != 200 {
		t.Fatalf("GET %s = %d", url, code)
	}
	return page
}

func TestMetricsStyles(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	postStream(t, ts.URL+"/v1/chat/completions", chatBody(map[string]any{"stream": true, "max_tokens": 4}, "x y"))
	tests := []struct {
		path, contentType string
		code              int
		want              []string // sample names the page must have
	}{
		{"/sglang/metrics", "text/plain", 200, []string{"sglang:generation_tokens_total", "sglang:token_usage", "sglang:time_to_first_token_seconds_count"}},
		{"/dynamo/metrics", "text/plain", 200, []string{"dynamo_frontend_inflight_requests", "dynamo_frontend_output_tokens_total", "dynamo_component_kvstats_total_blocks"}},
		{"/llamacpp/metrics", "text/plain", 200, []string{"llamacpp:tokens_predicted_total", "llamacpp:requests_processing"}},
		{"/trtllm/metrics", "application/json", 200, nil},
		{"/trtllm/prometheus/metrics", "text/plain", 200, []string{"trtllm_time_to_first_token_seconds_count", "trtllm_kv_cache_hit_rate"}},
		{"/prometheus/metrics", "", 404, nil}, // only the TRT-LLM style has it
		{"/nope/metrics", "", 404, nil},
	}
	for _, tc := range tests {
		page, ct, code := scrape(t, ts.URL+tc.path)
		if code != tc.code || !strings.HasPrefix(ct, tc.contentType) {
			t.Errorf("GET %s = %d %q; want %d %q", tc.path, code, ct, tc.code, tc.contentType)
			continue
		}
		if code != 200 || tc.contentType != "text/plain" {
			continue
		}
		s := samples(t, page)
		for _, name := range tc.want {
			lookup(t, s, name)
		}
	}
	// The Rust and C++ servers write integral numbers without ".0".
	if page := mustScrape(t, ts.URL+"/dynamo/metrics"); !strings.Contains(page, `le="1"}`) || strings.Contains(page, `le="1.0"`) {
		t.Errorf("dynamo page does not write le=\"1\":\n%s", page)
	}
	if page := mustScrape(t, ts.URL+"/metrics"); !strings.Contains(page, `le="1.0"}`) {
		t.Errorf("vLLM page does not write le=\"1.0\" as Python does")
	}
}

func TestMetricsStyleNoneAndTRTLLMDefault(t *testing.T) {
	t.Parallel()
	for style, want := range map[string]int{"none": 404, "trtllm": 200} {
		cfg := fastConfig()
		cfg.MetricsStyle = style
		ts := newTestServer(t, cfg)
		_, ct, code := scrape(t, ts.URL+"/metrics")
		if code != want {
			t.Errorf("style %s: GET /metrics = %d; want %d", style, code, want)
		}
		if style == "trtllm" {
			if ct != "application/json" {
				t.Errorf("style trtllm: /metrics Content-Type = %q; want the JSON iteration stats", ct)
			}
			if _, _, code := scrape(t, ts.URL+"/prometheus/metrics"); code != 200 {
				t.Errorf("style trtllm: GET /prometheus/metrics = %d; want 200", code)
			}
		}
	}
}

func TestControlEndpointsAreRecorded(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	for _, p := range []string{"/reset_prefix_cache", "/start_profile", "/stop_profile"} {
		resp, err := http.Post(ts.URL+p, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("POST %s = %d; want 200", p, resp.StatusCode)
		}
	}
	if _, _, code := scrape(t, ts.URL+"/start_profile"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET /start_profile = %d; want 405", code)
	}
	calls := ts.mock.ControlCalls()
	var paths []string
	for _, c := range calls {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, " ") != "/reset_prefix_cache /start_profile /stop_profile" {
		t.Errorf("ControlCalls() = %q", paths)
	}
}

func TestDCGMEnergyIntegratesReportedPower(t *testing.T) {
	t.Parallel()
	cfg := mockserver.DefaultConfig()
	cfg.CountTokens = func(s string) int { return len(strings.Fields(s)) }
	cfg.ITL = 2 * time.Millisecond
	cfg.TTFT = time.Millisecond
	cfg.DCGM.Enabled, cfg.DCGM.GPUs, cfg.DCGM.Window = true, 3, 200*time.Millisecond
	cfg.DCGM.MinThroughput = 1e4 // load stays well below 1, so power is not capped
	srv, err := mockserver.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	if srv.DCGMURL() == "" {
		t.Fatal("DCGMURL() is empty with DCGM enabled")
	}
	// The server reads its clock somewhere between the client's send and
	// receipt; the checks below hold for any such moment.
	type reading struct {
		sent, got time.Time
		power     []float64
		energy    []float64
	}
	read := func() reading {
		sent := time.Now()
		s := samples(t, mustScrape(t, srv.DCGMURL()))
		r := reading{sent: sent, got: time.Now()}
		for i := range 3 {
			g := `{gpu="` + strconv.Itoa(i) + `"`
			r.power = append(r.power, lookup(t, s, "DCGM_FI_DEV_POWER_USAGE"+g))
			r.energy = append(r.energy, lookup(t, s, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"+g))
		}
		return r
	}
	first := read()
	for i := range 3 {
		if first.power[i] < 75 || first.power[i] > 80 {
			t.Errorf("idle power of GPU %d = %v W; want about 75 W (H200 idle)", i, first.power[i])
		}
	}
	postStream(t, srv.URL()+"/v1/chat/completions", chatBody(map[string]any{"stream": true, "max_tokens": 60, "ignore_eos": true}, "p q r"))
	second := read()
	third := read()
	for i := range 3 {
		if !(second.power[i] > first.power[i]) {
			t.Errorf("GPU %d power after 60 tokens = %v W; want above idle %v W", i, second.power[i], first.power[i])
		}
		// Energy between two readings is the power reported by the first
		// (W) held until the second, in mJ; the counter is whole mJ.
		for _, pair := range [][2]reading{{first, second}, {second, third}} {
			a, b := pair[0], pair[1]
			got := b.energy[i] - a.energy[i]
			lo := a.power[i]*b.sent.Sub(a.got).Seconds()*1000 - 1
			hi := a.power[i]*b.got.Sub(a.sent).Seconds()*1000 + 1
			if got < lo || got > hi {
				t.Errorf("GPU %d energy delta = %v mJ; want within [%v, %v] (power %v W held between the readings)", i, got, lo, hi, a.power[i])
			}
		}
	}
}

func TestWaitingGaugeFollowsTheBatchQueue(t *testing.T) {
	t.Parallel()
	cfg := slowConfig()
	cfg.Batch.Slots, cfg.Batch.StepMs = 1, 3.6e6 // one slot, and an hour-long step: the rest queue
	srv, err := mockserver.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 3 {
		resp, _ := openStream(t, ctx, srv.URL())
		defer resp.Body.Close()
	}
	// The engine admits the first request on its own goroutine; scrape
	// until it has (each scrape is a round trip, not a sleep).
	var r, w float64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		s := samples(t, mustScrape(t, srv.URL()+"/metrics"))
		if r, w = lookup(t, s, "vllm:num_requests_running"), lookup(t, s, "vllm:num_requests_waiting"); r == 1 {
			break
		}
	}
	if r != 1 || w != 2 {
		t.Errorf("running, waiting = %v, %v; want 1, 2 (one batch slot)", r, w)
	}
	if err := srv.Close(); err != nil { // ends the streams and the engine
		t.Error(err)
	}
}
