package mockserver

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Metrics styles: which inference server's /metrics page the mock imitates
// (--metrics-style). Every style reports the same ground truth (serverStats)
// under that server's metric names, label sets and number formatting.
const (
	StyleVLLM     = "vllm"
	StyleSGLang   = "sglang"
	StyleTRTLLM   = "trtllm"
	StyleDynamo   = "dynamo"
	StyleLlamaCpp = "llamacpp"
	StyleNone     = "none" // no /metrics page (404), like a server started without metrics
)

// MetricsStyles lists the accepted --metrics-style values.
func MetricsStyles() []string {
	return []string{StyleVLLM, StyleSGLang, StyleTRTLLM, StyleDynamo, StyleLlamaCpp, StyleNone}
}

// DefaultKVCacheTokens is the simulated KV-cache capacity in tokens that
// the KV-cache usage gauges are relative to.
const DefaultKVCacheTokens = 131072

// styleWriter renders one style's page from a snapshot.
type styleWriter func(w *promWriter, st *statsSnapshot, c *styleContext)

// styleContext is what a page needs besides the statistics.
type styleContext struct {
	model      string
	kvCapacity int
	genRate    float64 // generation tokens/s over the last window
}

var styleWriters = map[string]styleWriter{
	StyleVLLM:     writeVLLM,
	StyleSGLang:   writeSGLang,
	StyleTRTLLM:   writeTRTLLM,
	StyleDynamo:   writeDynamo,
	StyleLlamaCpp: writeLlamaCpp,
}

// goStyleNumbers are the styles whose servers are not Python and write
// integral numbers without ".0" (Rust's and C++'s formatting).
var goStyleNumbers = map[string]bool{StyleDynamo: true, StyleLlamaCpp: true}

// metricsRoute resolves a /metrics path: the configured style at /metrics
// (TRT-LLM's JSON iteration stats there, its Prometheus page at
// /prometheus/metrics), and every style at /<style>/metrics (and
// /trtllm/prometheus/metrics), so one mock can serve them all side by side.
// ok is false for paths that are not metrics pages.
func (s *Server) metricsRoute(path string) (style string, prom, ok bool) {
	style, rest := s.cfg.MetricsStyle, path
	if style == "" {
		style = StyleVLLM
	}
	if p, found := strings.CutPrefix(path, "/"); found {
		if i := strings.IndexByte(p, '/'); i > 0 {
			if _, known := styleWriters[p[:i]]; known {
				style, rest = p[:i], p[i:]
			}
		}
	}
	switch rest {
	case "/metrics":
		return style, style != StyleTRTLLM, true
	case "/prometheus/metrics":
		return style, true, style == StyleTRTLLM
	}
	return "", false, false
}

// serveMetrics answers a metrics page in style.
func (s *Server) serveMetrics(w http.ResponseWriter, style string, prom bool) {
	write, ok := styleWriters[style]
	if !ok {
		writeError(w, http.StatusNotFound, "not_found_error", "this mock serves no metrics (--metrics-style none)")
		return
	}
	now := time.Now()
	snap := s.stats.snapshot()
	if b := s.batch.view(); b != nil {
		// With the batching engine, running means "in a batch slot" and
		// the rest of the requests wait in its queue, as in vLLM.
		snap.running, snap.waiting = int(b.Running), int(b.Queued)
	}
	c := styleContext{model: s.cfg.DefaultModel, kvCapacity: s.kvCapacity(), genRate: s.genRate.rate(now, snap.generationTokens)}
	if !prom {
		writeJSON(w, http.StatusOK, trtllmIterationStats(&snap, &c, now))
		return
	}
	pw := promWriter{intPlain: goStyleNumbers[style]}
	write(&pw, &snap, &c)
	body := pw.String()
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(body))
}

func (s *Server) kvCapacity() int {
	if s.cfg.KVCacheTokens > 0 {
		return s.cfg.KVCacheTokens
	}
	return DefaultKVCacheTokens
}

// reasons are the finish reasons in a stable order.
func reasons(st *statsSnapshot) []string {
	out := []string{finishLength, finishStop}
	for r := range st.finished {
		if r != finishLength && r != finishStop {
			out = append(out, r)
		}
	}
	sort.Strings(out[2:])
	return out
}

func ratio(num, den uint64) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

func writeVLLM(w *promWriter, st *statsSnapshot, c *styleContext) {
	l := []label{{"engine", "0"}, {"model_name", c.model}}
	w.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", l, float64(st.running))
	w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", l, float64(st.waiting))
	w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", l, kvUsage(st.kvTokens, c.kvCapacity))
	w.counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.", l, float64(st.prefixQueries))
	w.counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.", l, float64(st.prefixHits))
	w.counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", l, 0)
	w.counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.", l, float64(st.promptTokens))
	w.counter("vllm:generation_tokens_total", "Number of generation tokens processed.", l, float64(st.generationTokens))
	w.family("vllm:request_success_total", "counter", "Count of successfully processed requests.")
	for _, r := range reasons(st) {
		w.sample("vllm:request_success_total", []label{{"engine", "0"}, {"finished_reason", r}, {"model_name", c.model}}, float64(st.finished[r]))
	}
	w.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", l, st.promptLen)
	w.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.", l, st.genLen)
	w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", l, st.ttft)
	w.histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", l, st.itl)
	w.histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", l, st.e2e)
	w.histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", l, st.queue)
}

func writeSGLang(w *promWriter, st *statsSnapshot, c *styleContext) {
	l := []label{{"model_name", c.model}}
	w.gauge("sglang:num_running_reqs", "The number of running requests.", l, float64(st.running))
	w.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", l, float64(st.waiting))
	w.gauge("sglang:num_used_tokens", "The number of used tokens.", l, float64(max(st.kvTokens, 0)))
	w.gauge("sglang:token_usage", "The token usage.", l, kvUsage(st.kvTokens, c.kvCapacity))
	w.gauge("sglang:gen_throughput", "The generation throughput (token/s).", l, c.genRate)
	w.gauge("sglang:cache_hit_rate", "The prefix cache hit rate.", l, ratio(st.prefixHits, st.prefixQueries))
	w.counter("sglang:prompt_tokens_total", "Number of prefill tokens processed.", l, float64(st.promptTokens))
	w.counter("sglang:generation_tokens_total", "Number of generation tokens processed.", l, float64(st.generationTokens))
	w.counter("sglang:cached_tokens_total", "Number of cached prompt tokens.", l, float64(st.prefixHits))
	w.counter("sglang:num_requests_total", "Number of requests processed.", l, float64(st.success()))
	w.histogram("sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.", l, st.ttft)
	w.histogram("sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", l, st.itl)
	w.histogram("sglang:e2e_request_latency_seconds", "Histogram of End-to-end request latency in seconds", l, st.e2e)
	w.histogram("sglang:queue_time_seconds", "Histogram of queueing time in seconds.", l, st.queue)
}

func writeTRTLLM(w *promWriter, st *statsSnapshot, c *styleContext) {
	l := []label{{"engine_type", "trtllm"}, {"model_name", c.model}}
	w.family("trtllm_request_success_total", "counter", "Count of successfully processed requests.")
	for _, r := range reasons(st) {
		w.sample("trtllm_request_success_total", []label{{"engine_type", "trtllm"}, {"finished_reason", r}, {"model_name", c.model}}, float64(st.finished[r]))
	}
	w.gauge("trtllm_kv_cache_hit_rate", "KV cache hit rate (0-1).", l, ratio(st.prefixHits, st.prefixQueries))
	w.gauge("trtllm_kv_cache_utilization", "KV cache utilization (0-1).", l, kvUsage(st.kvTokens, c.kvCapacity))
	w.histogram("trtllm_e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", l, st.e2e)
	w.histogram("trtllm_time_to_first_token_seconds", "Histogram of time to first token in seconds.", l, st.ttft)
	w.histogram("trtllm_time_per_output_token_seconds", "Histogram of time per output token in seconds.", l, st.itl)
	w.histogram("trtllm_request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", l, st.queue)
}

// trtllmIterationStats is the JSON array TRT-LLM's serve command answers at
// /metrics: recent iteration statistics, not Prometheus text.
func trtllmIterationStats(st *statsSnapshot, c *styleContext, now time.Time) []map[string]any {
	return []map[string]any{{
		"iter":              st.requests,
		"timestamp":         now.Format("01-02-2006 15:04:05"),
		"numActiveRequests": st.running,
		"numQueuedRequests": st.waiting,
		"kvCacheStats": map[string]any{
			"usedNumBlocks":  max(st.kvTokens, 0) / 32,
			"maxNumBlocks":   c.kvCapacity / 32,
			"tokensPerBlock": 32,
		},
	}}
}

func writeDynamo(w *promWriter, st *statsSnapshot, c *styleContext) {
	l := []label{{"model", c.model}}
	w.gauge("dynamo_frontend_inflight_requests", "Number of inflight requests", l, float64(st.running))
	w.gauge("dynamo_frontend_queued_requests", "Number of requests in HTTP processing queue", l, float64(st.waiting))
	w.gauge("dynamo_frontend_disconnected_clients", "Number of disconnected clients", nil, float64(st.aborted))
	w.family("dynamo_frontend_requests_total", "counter", "Total number of LLM requests processed")
	w.sample("dynamo_frontend_requests_total", []label{{"endpoint", "chat_completions"}, {"model", c.model}, {"request_type", "stream"}, {"status", "success"}}, float64(st.success()))
	w.counter("dynamo_frontend_output_tokens_total", "Total number of output tokens generated", l, float64(st.generationTokens))
	w.histogram("dynamo_frontend_time_to_first_token_seconds", "Time to first token in seconds", l, st.ttft)
	w.histogram("dynamo_frontend_inter_token_latency_seconds", "Inter-token latency in seconds", l, st.itl)
	w.histogram("dynamo_frontend_request_duration_seconds", "Duration of LLM requests", l, st.e2e)
	w.histogram("dynamo_frontend_input_sequence_tokens", "Input sequence length in tokens", l, st.promptLen)
	w.histogram("dynamo_frontend_output_sequence_tokens", "Output sequence length in tokens", l, st.genLen)
	cl := []label{{"dynamo_component", "backend"}, {"dynamo_namespace", "dynamo"}}
	w.gauge("dynamo_component_kvstats_gpu_cache_usage_percent", "GPU cache usage as a percentage (0.0-1.0)", cl, kvUsage(st.kvTokens, c.kvCapacity))
	w.gauge("dynamo_component_kvstats_active_blocks", "Number of active KV cache blocks", cl, float64(max(st.kvTokens, 0)/32))
	w.gauge("dynamo_component_kvstats_total_blocks", "Total number of KV cache blocks", cl, float64(c.kvCapacity/32))
}

func writeLlamaCpp(w *promWriter, st *statsSnapshot, c *styleContext) {
	w.counter("llamacpp:prompt_tokens_total", "Number of prompt tokens processed.", nil, float64(st.promptTokens))
	w.counter("llamacpp:tokens_predicted_total", "Number of generation tokens processed.", nil, float64(st.generationTokens))
	w.counter("llamacpp:n_decode_total", "Total number of llama_decode() calls", nil, float64(st.generationTokens))
	w.gauge("llamacpp:predicted_tokens_seconds", "Average generation throughput in tokens/s.", nil, c.genRate)
	w.gauge("llamacpp:kv_cache_usage_ratio", "KV-cache usage. 1 means 100 percent usage.", nil, kvUsage(st.kvTokens, c.kvCapacity))
	w.gauge("llamacpp:kv_cache_tokens", "KV-cache tokens.", nil, float64(max(st.kvTokens, 0)))
	w.gauge("llamacpp:requests_processing", "Number of requests processing.", nil, float64(st.running))
	w.gauge("llamacpp:requests_deferred", "Number of requests deferred.", nil, float64(st.waiting))
}
