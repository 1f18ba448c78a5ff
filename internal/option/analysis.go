package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// useCaseOptions lists the options from --use-case on, in help order.
func useCaseOptions() []Option {
	return []Option{
		{Name: "use-case", Repeatable: true,
			Group:   GroupAnalysis,
			Meta:    "<use-case,...>",
			Choices: strs(config.UseCases()),
			Usage:   "Read the results for these use cases and print a verdict per use case, also written as the \"verdicts\" block of profile_export_aiperf.json: chat (output tokens/s per user, warns below 20), batch (output tokens/s of the node, warns when a concurrency sweep stops gaining), rag (prefill tokens/s per user, warns when a 4K-token prompt takes over 10 s to the first token, extrapolated when the run's inputs were shorter), capacity (total tokens/s, warns when TTFT p99 degrades over 2x). With it come the derived figures no metric states: input tokens/s (total - output) and the aggregate prefill demand (prefill per user x users).",
			Bind:    func(c *config.Config) any { return &c.Analysis.UseCases }},
		{Name: "metric-view", Repeatable: true,
			Group:   GroupAnalysis,
			Meta:    "<tool,...>",
			Choices: strs(config.MetricViews()),
			Usage:   "Also report TTFT, ITL, TPOT and E2E latency as these tools define them (vLLM bench serve, SGLang bench_serving, GuideLLM, inference-perf), computed from this run's per-request records, so the numbers can be put next to that tool's report 1:1. Printed after the tables and written to metric_views.json. Needs --export-level records (the default) or raw.",
			Bind:    func(c *config.Config) any { return &c.Analysis.MetricViews }},
		{Name: "llmd-report",
			Group: GroupAnalysis,
			Usage: "Also write benchmark_report.yaml, the run as an llm-d benchmark report (schema v0.2 of llm-d-benchmark, also valid as v0.2.1), so the results drop into llm-d tooling.",
			Bind:  func(c *config.Config) any { return &c.Analysis.LLMDReport }},
	}
}
