package metrics

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestBuiltinRegistry(t *testing.T) {
	t.Parallel()
	reg, err := NewRegistry(BuiltinMetrics()...)
	if err != nil {
		t.Fatalf("NewRegistry(BuiltinMetrics()) = %v", err)
	}
	// Dependency order: every dependency precedes its dependent.
	pos := map[string]int{}
	for i, m := range reg.Metrics() {
		pos[m.Tag] = i
		if m.idx != i {
			t.Errorf("%s.idx = %d; want %d", m.Tag, m.idx, i)
		}
	}
	for _, m := range reg.Metrics() {
		for _, dep := range slices.Concat(m.Requires, m.Optional) {
			if pos[dep] >= pos[m.Tag] {
				t.Errorf("%s (at %d) does not come after its dependency %s (at %d)", m.Tag, pos[m.Tag], dep, pos[dep])
			}
		}
	}
}

// aiperfDef is one metric definition as AIPerf 0.13's registry reports it.
// testdata/aiperf013_metrics.json was generated from the installed AIPerf
// 0.13.0 (MetricRegistry.get_class for each tag we implement).
type aiperfDef struct {
	Tag         string   `json:"tag"`
	Header      string   `json:"header"`
	ShortHeader string   `json:"short_header"`
	Kind        string   `json:"kind"`
	Unit        string   `json:"unit"`
	DisplayUnit string   `json:"display_unit"`
	Flags       Flags    `json:"flags"`
	Order       int      `json:"order"`
	Group       string   `json:"group"`
	Requires    []string `json:"requires"`
	Optional    []string `json:"optional"`
	ValueType   string   `json:"value_type"` // int, float or list[int]
}

// TestBuiltinMatchesAIPerf compares every definition we share with AIPerf
// 0.13: tag, header, short header, kind, units, flags, display order,
// console group and dependencies.
func TestBuiltinMatchesAIPerf(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("testdata/aiperf013_metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs []aiperfDef
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	groups := map[string]Group{"default": GroupDefault, "none": GroupNone, "usage": GroupUsage}
	// Deliberate differences, each explained in its definition.
	extraOptional := map[string][]string{
		// The reasoning diff is read when present; AIPerf does not order it.
		"usage_discrepancy_count": {tagUsageReasoningDiff},
	}
	reg := Builtin()
	for _, d := range defs {
		m, ok := reg.Lookup(d.Tag)
		if !ok {
			t.Errorf("metric %q is missing", d.Tag)
			continue
		}
		// good_request_count is declared without a type (float) but its
		// values are the ints 0 and 1, which is what exports show.
		integer := strings.Contains(d.ValueType, "int") || d.Tag == tagGoodRequestCount
		checks := []struct {
			field     string
			got, want any
		}{
			{"Header", m.Header, d.Header},
			{"ShortHeader", m.ShortHeader, d.ShortHeader},
			{"Kind", m.Kind.String(), d.Kind},
			{"Unit", string(m.Unit), d.Unit},
			{"DisplayUnit", string(m.displayUnit()), d.DisplayUnit},
			{"Flags", m.Flags, d.Flags},
			{"Order", m.Order, d.Order},
			{"Group", m.Group, groups[d.Group]},
			{"Requires", sortedCopy(m.Requires), sortedCopy(d.Requires)},
			{"Optional", sortedCopy(m.Optional), sortedCopy(append(d.Optional, extraOptional[d.Tag]...))},
			{"Integer", m.Integer, integer},
			{"List", m.List, strings.HasPrefix(d.ValueType, "list")},
		}
		for _, c := range checks {
			if !equalAny(c.got, c.want) {
				t.Errorf("%s.%s = %v; want %v (AIPerf 0.13)", d.Tag, c.field, c.got, c.want)
			}
		}
	}
}

func sortedCopy(s []string) string {
	c := slices.Clone(s)
	slices.Sort(c)
	return strings.Join(c, ",")
}

func equalAny(a, b any) bool { return a == b }

// TestBuiltinUnitsMatchReferenceRun checks the display unit of every metric
// in AIPerf 0.13's streaming-chat profile_export_aiperf.json (units copied
// from /tmp/aipref/ref-chat-stream).
func TestBuiltinUnitsMatchReferenceRun(t *testing.T) {
	t.Parallel()
	ref := map[string]Unit{
		"request_throughput": "requests/sec", "request_latency": "ms", "request_count": "requests",
		"time_to_first_token": "ms", "time_to_second_token": "ms", "inter_token_latency": "ms",
		"output_token_throughput": "tokens/sec", "output_token_throughput_per_user": "tokens/sec/user",
		"output_sequence_length": "tokens", "input_sequence_length": "tokens", "goodput": "requests/sec",
		"good_request_count": "requests", "output_token_count": "tokens", "inter_chunk_latency": "ms",
		"total_output_tokens": "tokens", "benchmark_duration": "sec", "total_isl": "tokens",
		"total_osl": "tokens", "usage_prompt_tokens": "tokens", "usage_completion_tokens": "tokens",
		"usage_total_tokens": "tokens", "time_to_first_output_token": "ms", "osl_mismatch_diff_pct": "%",
		"e2e_output_token_throughput": "tokens/sec/user", "decode_duration": "ms",
		"usage_completion_tokens_diff_pct": "%", "prefill_throughput_per_user": "tokens/sec/user",
		"usage_prompt_tokens_diff_pct": "%", "osl_mismatch_count": "requests",
		"usage_discrepancy_count": "requests", "completed_request_count": "requests",
		"request_error_rate": "%", "total_usage_prompt_tokens": "tokens",
		"total_usage_total_tokens": "tokens", "total_usage_completion_tokens": "tokens",
		"good_request_fraction": "ratio", "total_token_throughput": "tokens/sec",
		"input_token_throughput": "tokens/sec",
	}
	reg := Builtin()
	for tag, unit := range ref {
		m, ok := reg.Lookup(tag)
		if !ok {
			t.Errorf("metric %q missing", tag)
			continue
		}
		if m.displayUnit() != unit {
			t.Errorf("%s display unit = %q; want %q", tag, m.displayUnit(), unit)
		}
	}
}

// The reference run's selection (streaming chat with --goodput) yields the
// same set of visible metrics as AIPerf's JSON, apart from those we do not
// implement and our own lag and stream_incomplete_count metrics.
func TestSelectReferenceRun(t *testing.T) {
	t.Parallel()
	reg := Builtin()
	var got []string
	for _, m := range reg.Select(Selection{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: true}) {
		if !m.Hidden() {
			got = append(got, m.Tag)
		}
	}
	slices.Sort(got)
	want := []string{
		"completed_request_count", "decode_duration", "e2e_output_token_throughput", "effective_latency", "error_isl",
		"error_request_count", "good_request_count", "good_request_fraction", "goodput",
		"input_sequence_length", "input_token_throughput", "inter_chunk_latency", "inter_token_latency",
		"late_request_count", "osl_mismatch_count", "osl_mismatch_diff_pct", "output_sequence_length",
		"output_token_count", "output_token_throughput", "output_token_throughput_per_user",
		"overall_usage_prompt_cache_read_pct", "prefill_throughput_per_user", "reasoning_token_count",
		"request_count", "request_error_rate", "request_latency", "request_throughput", "schedule_lag",
		"time_to_first_output_token", "time_to_first_token", "time_to_second_token", "total_error_isl",
		"total_isl", "total_osl", "total_output_tokens", "total_reasoning_tokens", "total_token_throughput",
		"total_usage_completion_tokens", "total_usage_prompt_cache_read_tokens", "total_usage_prompt_tokens",
		"total_usage_prompt_cache_write_tokens", "total_usage_prompt_cache_miss_tokens",
		"usage_prompt_cache_write_tokens", "usage_prompt_cache_miss_tokens",
		"total_usage_reasoning_tokens", "total_usage_total_tokens", "usage_completion_tokens",
		"usage_completion_tokens_diff_pct", "usage_discrepancy_count", "usage_prompt_cache_read_tokens",
		"usage_prompt_tokens", "usage_prompt_tokens_diff_pct", "usage_reasoning_tokens",
		"usage_reasoning_tokens_diff_pct", "usage_total_tokens",
		"benchmark_duration", "stream_incomplete_count", "context_overflow_count",
		// AIPerf 0.13's additions (builtin_compat.go).
		"credit_to_start_latency", "usage_accepted_prediction_tokens", "usage_rejected_prediction_tokens",
		"total_usage_accepted_prediction_tokens", "total_usage_rejected_prediction_tokens",
		"effective_concurrency", "effective_decode_throughput", "effective_prefill_throughput",
		"effective_decode_concurrency", "effective_prefill_concurrency", "effective_total_throughput",
		"effective_decode_throughput_per_user", "effective_prefill_throughput_per_user", "tokens_in_flight",
		"active_decode_throughput", "active_prefill_throughput", "active_decode_throughput_per_user",
		"active_prefill_throughput_per_user", "active_total_throughput",
		// The HTTP trace metrics (builtin_http.go), written by default.
		"http_req_blocked", "http_req_dns_lookup", "http_req_connecting", "http_req_sending",
		"http_req_waiting", "http_req_receiving", "http_req_connection_reused", "http_req_data_sent",
		"http_req_chunks_sent", "http_req_data_received", "http_req_chunks_received",
		"http_req_connection_overhead", "http_req_duration", "http_req_total",
		// Network latency calibration (builtin_network.go): selected, present
		// only when the run has a round trip to subtract.
		"network_adjusted_time_to_first_token", "network_adjusted_time_to_first_output_token",
		"network_adjusted_request_latency", "network_rtt",
		// The time decomposition (builtin_server.go): selected, present only
		// for records whose server reported its own times.
		"server_queue_time", "server_validation_time", "server_prefill_time", "server_decode_time",
		"server_inference_time", "unexplained_time",
		// AIPerf 0.14's E2E normalized interactivity (builtin_interactivity.go).
		"e2e_normalized_interactivity_p75", "e2e_normalized_interactivity_p90",
		// AIPerf 0.14's speculative-decoding acceptance (builtin_specdecode.go):
		// selected, present only when the server reports it.
		"spec_decode_acceptance_length", "spec_decode_draft_acceptance_rate", "spec_decode_accepted_per_verified",
		"spec_decode_steps", "spec_decode_zero_step_requests", "spec_decode_accepted_draft_tokens",
		"spec_decode_draft_tokens", "total_spec_decode_steps", "total_accepted_draft_tokens", "total_draft_tokens",
		"spec_decode_token_weighted_acceptance_length", "spec_decode_overall_draft_acceptance_rate",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Select(reference run) visible metrics:\n got %v\nwant %v", got, want)
	}
}
