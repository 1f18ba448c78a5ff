package servermetrics

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// role is what a known server metric tells about a run.
type role uint8

const (
	roleRunning       role = iota // requests being processed (gauge)
	roleWaiting                   // requests queued (gauge)
	roleKVUsage                   // KV-cache fill, 0-1 or 0-100 (gauge)
	rolePreemptions               // requests preempted or retracted (counter)
	rolePrefixHits                // prompt tokens served from the prefix cache (counter)
	rolePrefixQueries             // prompt tokens looked up in the prefix cache (counter)
	rolePrefixHitRate             // prefix-cache hit rate, 0-1 (gauge; when no counters)
	roleGenTokens                 // generated tokens (counter)
	rolePromptTokens              // prompt tokens (counter)
	roleTTFT                      // server-side time to first token (histogram, seconds)
	roleITL                       // server-side inter-token latency (histogram, seconds)
	roleE2E                       // server-side request latency (histogram, seconds)
	numRoles
)

// knownNames lists, per role, the metric names (as AIPerf names them:
// counters without _total) of vLLM (v1, then v0 spellings), SGLang,
// TRT-LLM, NVIDIA Dynamo, Triton and llama.cpp, in priority order.
var knownNames = [numRoles][]string{
	roleRunning: {"vllm:num_requests_running", "sglang:num_running_reqs", "dynamo_frontend_inflight_requests",
		"llamacpp:requests_processing", "nv_inference_pending_request_count"},
	roleWaiting: {"vllm:num_requests_waiting", "sglang:num_queue_reqs", "dynamo_frontend_queued_requests",
		"llamacpp:requests_deferred"},
	roleKVUsage: {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage",
		"trtllm_kv_cache_utilization", "dynamo_component_kvstats_gpu_cache_usage_percent", "llamacpp:kv_cache_usage_ratio"},
	rolePreemptions:   {"vllm:num_preemptions", "sglang:num_retracted_reqs"},
	rolePrefixHits:    {"vllm:prefix_cache_hits", "sglang:cached_tokens"},
	rolePrefixQueries: {"vllm:prefix_cache_queries", "sglang:prompt_tokens"},
	rolePrefixHitRate: {"sglang:cache_hit_rate", "trtllm_kv_cache_hit_rate", "vllm:gpu_prefix_cache_hit_rate"},
	roleGenTokens: {"vllm:generation_tokens", "sglang:generation_tokens", "dynamo_frontend_output_tokens",
		"llamacpp:tokens_predicted"},
	rolePromptTokens: {"vllm:prompt_tokens", "sglang:prompt_tokens", "llamacpp:prompt_tokens"},
	roleTTFT: {"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds", "trtllm_time_to_first_token_seconds",
		"dynamo_frontend_time_to_first_token_seconds"},
	roleITL: {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds", "sglang:inter_token_latency_seconds",
		"sglang:time_per_output_token_seconds", "trtllm_time_per_output_token_seconds", "dynamo_frontend_inter_token_latency_seconds"},
	roleE2E: {"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds", "trtllm_e2e_request_latency_seconds",
		"dynamo_frontend_request_duration_seconds"},
}

// roleTypes is the metric type each role expects; a metric of another type
// with the same name (SGLang's num_retracted_reqs gauge and counter) is
// not it.
var roleTypes = [numRoles]prom.Type{
	roleRunning: prom.Gauge, roleWaiting: prom.Gauge, roleKVUsage: prom.Gauge, rolePreemptions: prom.Counter,
	rolePrefixHits: prom.Counter, rolePrefixQueries: prom.Counter, rolePrefixHitRate: prom.Gauge,
	roleGenTokens: prom.Counter, rolePromptTokens: prom.Counter,
	roleTTFT: prom.Histogram, roleITL: prom.Histogram, roleE2E: prom.Histogram,
}

// Backend names the server a page comes from by its metric prefixes ("" when
// no known one).
func Backend(names []string) string {
	prefixes := []struct{ prefix, name string }{
		{"vllm:", "vLLM"}, {"sglang:", "SGLang"}, {"trtllm_", "TensorRT-LLM"}, {"dynamo_", "Dynamo"},
		{"nv_inference_", "Triton"}, {"llamacpp:", "llama.cpp"},
	}
	for _, p := range prefixes {
		for _, n := range names {
			if strings.HasPrefix(n, p.prefix) {
				return p.name
			}
		}
	}
	return ""
}

// toPct turns a ratio gauge into a percentage, as AIPerf does: values up
// to 1 are ratios, larger ones are already percentages.
func toPct(v float64) float64 {
	if v <= 1 {
		return v * 100
	}
	return v
}
