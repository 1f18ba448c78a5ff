package metrics

// Tags of the built-in metrics that other definitions, the processor or the
// accumulator refer to.
const (
	tagTTFT                 = "time_to_first_token"
	tagTTST                 = "time_to_second_token"
	tagTTFO                 = "time_to_first_output_token"
	tagRequestLatency       = "request_latency"
	tagITL                  = "inter_token_latency"
	tagICL                  = "inter_chunk_latency"
	tagStreamSetup          = "stream_setup_latency"
	tagISL                  = "input_sequence_length"
	tagOutputTokens         = "output_token_count"
	tagReasoningTokens      = "reasoning_token_count"
	tagOSL                  = "output_sequence_length"
	tagErrorISL             = "error_isl"
	tagTotalISL             = "total_isl"
	tagTotalOutputTokens    = "total_output_tokens"
	tagTotalReasoning       = "total_reasoning_tokens"
	tagTotalOSL             = "total_osl"
	tagRequestCount         = "request_count"
	tagErrorRequestCount    = "error_request_count"
	tagContextOverflowCount = "context_overflow_count"
	tagMinRequest           = "min_request_timestamp"
	tagMaxResponse          = "max_response_timestamp"
	tagBenchmarkDuration    = "benchmark_duration"
	tagGoodRequestCount     = "good_request_count"
	tagUsagePrompt          = "usage_prompt_tokens"
	tagUsageCompletion      = "usage_completion_tokens"
	tagUsageTotal           = "usage_total_tokens"
	tagUsageReasoning       = "usage_reasoning_tokens"
	tagUsageCacheRead       = "usage_prompt_cache_read_tokens"
	tagTotalUsagePrompt     = "total_usage_prompt_tokens"
	tagTotalUsageCacheRead  = "total_usage_prompt_cache_read_tokens"
	tagUsagePromptDiff      = "usage_prompt_tokens_diff_pct"
	tagUsageCompletionDiff  = "usage_completion_tokens_diff_pct"
	tagUsageReasoningDiff   = "usage_reasoning_tokens_diff_pct"
	tagRequestedOSL         = "requested_osl"
	tagOSLMismatchDiff      = "osl_mismatch_diff_pct"
	tagScheduleLag          = "schedule_lag"
	tagEffectiveLatency     = "effective_latency"
)

// BuiltinMetrics returns fresh copies of every built-in metric definition:
// AIPerf's core latency, token, run-level, usage and OSL-mismatch metrics
// (tags, headers, units, flags, display orders and console groups as in
// AIPerf 0.13), plus this port's schedule-lag metrics. The definitions are
// listed explicitly here; nothing registers itself.
func BuiltinMetrics() []*Metric {
	var all []*Metric
	all = append(all, latencyMetrics()...)
	all = append(all, tokenMetrics()...)
	all = append(all, runMetrics()...)
	all = append(all, usageMetrics()...)
	all = append(all, oslMismatchMetrics()...)
	all = append(all, lagMetrics()...)
	all = append(all, mediaMetrics()...)
	all = append(all, replayMetrics()...)
	all = append(all, videoMetrics()...)
	all = append(all, compatMetrics()...)
	all = append(all, httpTraceMetrics()...)
	all = append(all, networkMetrics()...)
	all = append(all, serverMetrics()...)
	all = append(all, interactivityMetrics()...)
	all = append(all, specDecodeMetrics()...)
	return all
}

// Builtin returns a registry of the built-in metrics. It panics only if the
// built-in table itself is inconsistent, which TestBuiltinRegistry rules out.
func Builtin() *Registry {
	r, err := NewRegistry(BuiltinMetrics()...)
	if err != nil {
		panic(err)
	}
	return r
}

// seconds converts nanoseconds to seconds the way AIPerf does (ns * 1e-9).
func seconds(ns float64) float64 { return ns * nsToSec }

// nsToSec and nsToMS are scale's factors, computed once (scale looks its
// units up by name, and every record converts a few times).
var (
	nsToSec, _ = scale(UnitNS, UnitSec)
	nsToMS, _  = scale(UnitNS, UnitMS)
	msToNS, _  = scale(UnitMS, UnitNS)
)
