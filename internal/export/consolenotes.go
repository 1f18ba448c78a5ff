package export

import (
	"fmt"
	"math"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// The console notes below fire under the same conditions as AIPerf's
// console warnings; their wording is ours.

// note is a titled warning shown in a panel.
type note struct {
	title, body string
}

// valueOf returns a single-value (or, for a distribution, average) result
// that is finite.
func valueOf(s *metrics.Summary, tag string) (float64, bool) {
	r, ok := s.Get(tag)
	if !ok {
		return 0, false
	}
	v := r.Value
	if r.Stats != nil {
		v = r.Stats.Avg
	}
	return v, stats.Finite(v)
}

// validRequests is request_count, the denominator of both warnings.
func validRequests(s *metrics.Summary) int64 {
	n, ok := valueOf(s, "request_count")
	if !ok || n < 1 {
		return 0
	}
	return int64(n)
}

// usageDiscrepancyNote fires when usage_discrepancy_count > 0: the
// server's usage token counts differ from ours beyond the threshold.
func usageDiscrepancyNote(s *metrics.Summary, o ConsoleOptions) (note, bool) {
	n, ok := valueOf(s, "usage_discrepancy_count")
	total := validRequests(s)
	if !ok || n <= 0 || total == 0 {
		return note{}, false
	}
	thr := o.UsageDiffThresholdPct
	if thr <= 0 {
		thr = 10
	}
	count := int64(n)
	pct := float64(count) / float64(total) * 100
	body := fmt.Sprintf(`%s of %s requests (%.1f%%) report usage token counts that differ from the client-side count by more than %g%%.

Likely causes:
  - the client tokenizer is not the served model's tokenizer
  - the server counts special or chat-template tokens

What to check:
  1. the usage_*_diff_pct values per request in profile_export.jsonl
  2. that --tokenizer names the served model's tokenizer
  3. --use-server-token-count trusts the server's counts (and drops the diff metrics)
  4. AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD=%g sets this threshold`,
		groupedInt(int(count)), groupedInt(int(total)), pct, thr, thr)
	return note{title: "Usage Token Count Mismatch", body: body}, true
}

// oslMismatchNote fires when osl_mismatch_count > 0: responses ended
// shorter (or longer) than the requested output length.
func oslMismatchNote(s *metrics.Summary, o ConsoleOptions) (note, bool) {
	n, ok := valueOf(s, "osl_mismatch_count")
	total := validRequests(s)
	if !ok || n <= 0 || total == 0 {
		return note{}, false
	}
	pctThr, maxTok := o.OSLMismatchThresholdPct, o.OSLMismatchMaxTokens
	if pctThr <= 0 {
		pctThr = 5
	}
	if maxTok <= 0 {
		maxTok = 50
	}
	count := int64(n)
	pct := float64(count) / float64(total) * 100
	avg := "N/A"
	cause := `Shorter than requested: the server stopped early, at an end-of-sequence token before
max tokens. Longer: the client's tokenizer counts more tokens in the text than the server
generated (another tokenizer, or tokens that do not survive a round trip through text), or
the server ignored the limit.`
	if d, ok := valueOf(s, "osl_mismatch_diff_pct"); ok {
		avg = fmt.Sprintf("%.1f%%", d)
		switch {
		case d < 0:
			cause = "The responses came out shorter: the server most likely stopped early, at an end-of-sequence token before max tokens."
		case d > 0:
			cause = `The responses came out longer: most likely the client's tokenizer counts more tokens in
the text than the server generated (another tokenizer, or tokens that do not survive a
round trip through text; compare usage_completion_tokens), or the server ignored the limit.`
		}
	}
	counted := "the client's tokenizer (re-tokenizing the response text)"
	if o.ServerTokenCounts {
		counted = "the server's usage.completion_tokens (--use-server-token-count)"
	}
	if u, ok := valueOf(s, "usage_completion_tokens"); ok && !o.ServerTokenCounts {
		counted += fmt.Sprintf("; the server's own usage.completion_tokens averaged %.1f", u)
		if r, ok := valueOf(s, "requested_osl"); ok {
			counted += fmt.Sprintf(" against %.1f requested", r)
			if math.Abs(u-r) <= 0.5 {
				counted += ": the server generated the requested length, and the difference is the client's count"
				cause = `The server's usage says it generated the requested length; the client's tokenizer counts
a different number of tokens in the text (another tokenizer, or tokens that do not survive a
round trip through text).`
			}
		}
	}
	var advice []string
	for _, a := range []struct{ key, line string }{
		{"ignore_eos", "  - --extra-inputs ignore_eos:true   generate until max tokens (vLLM, TensorRT-LLM)"},
		{"min_tokens", "  - --extra-inputs min_tokens:<N>    ask for a minimum length (vLLM, TensorRT-LLM, SGLang)"},
	} {
		if !o.ExtraInputs[a.key] {
			advice = append(advice, a.line)
		}
	}
	if !o.ServerTokenCounts {
		advice = append(advice, "  - --use-server-token-count         count with the server's tokenizer")
	}
	todo := ""
	if len(advice) > 0 {
		todo = "\n\nTo get the requested length:\n" + strings.Join(advice, "\n")
	}
	body := fmt.Sprintf(`%s of %s requests (%.1f%%) returned an output length off the requested one by more than min(%g%% of the request, %d tokens).
Mean difference: %s
Output length counted by %s.

%s%s

Per request: osl_mismatch_diff_pct in profile_export.jsonl.
Thresholds: AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD=%g, AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD=%d`,
		groupedInt(int(count)), groupedInt(int(total)), pct, pctThr, maxTok, avg, counted, cause, todo, pctThr, maxTok)
	return note{title: "Output Length Mismatch", body: body}, true
}

// streamIncompleteNote fires when streamed responses ended with neither
// [DONE] nor a finish_reason: once per run, with the count.
func streamIncompleteNote(s *metrics.Summary, _ ConsoleOptions) (note, bool) {
	n, ok := valueOf(s, "stream_incomplete_count")
	if !ok || n <= 0 {
		return note{}, false
	}
	body := fmt.Sprintf(`%s of %s good streamed requests ended without [DONE] and without a finish_reason.
A server that stops mid-answer (a crash, a proxy timeout) can look like a clean end of the
stream, and the request then counts as good with the tokens that arrived.

Per request: "stream_incomplete": true in the metadata of profile_export.jsonl.
--strict-streams makes such a request an error (StreamIncompleteError).`,
		groupedInt(int(n)), groupedInt(int(validRequests(s))))
	return note{title: "Incomplete Streams", body: body}, true
}

// maxCompletionTokensNote fires when the server rejected the
// max_completion_tokens field (a pydantic "extra_forbidden" error), which
// servers that only know max_tokens do.
func maxCompletionTokensNote(errs []metrics.ErrorCount) (note, bool) {
	for _, e := range errs {
		msg := e.Error.Message
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(msg), &obj) == nil && obj.Message != "" {
			msg = obj.Message
		}
		if strings.Contains(msg, "extra_forbidden") && strings.Contains(msg, "max_completion_tokens") &&
			strings.Contains(msg, "Extra inputs are not permitted") {
			return note{
				title: "Server Rejected max_completion_tokens",
				body: `The server refused the 'max_completion_tokens' field; it only accepts 'max_tokens'.

The field was sent because an output length (--osl) was requested.

Fixes:
  - --use-legacy-max-tokens sends 'max_tokens' instead
  - or drop --osl and pass --extra-inputs max_tokens:<N>`,
			}, true
		}
	}
	return note{}, false
}

// cacheHint explains empty prompt-cache metrics.
const cacheHint = "The server reports token usage but no prompt-cache reads " +
	"(usage.prompt_tokens_details.cached_tokens is missing). If it caches prefixes, " +
	"turn on cache reporting to fill the prompt-cache metrics: vLLM --enable-prompt-tokens-details, " +
	"SGLang --enable-cache-report; TRT-LLM reports it by default."

// cacheHintApplies reports prompt-token usage without any prompt-cache
// read total, AIPerf's condition for its cache-reporting hint.
func cacheHintApplies(results []metrics.Result) bool {
	var usage, cache bool
	for _, r := range results {
		switch r.Metric.Tag {
		case "total_usage_prompt_tokens":
			usage = true
		case "total_usage_prompt_cache_read_tokens":
			cache = true
		}
	}
	return usage && !cache
}
