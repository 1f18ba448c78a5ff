package cli

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// groupAnalysis is the help panel of the options that read the results
// (not AIPerf options).
const groupAnalysis = "Analysis"

// addAnalysisFlags registers --use-case, --metric-view and --llmd-report,
// bound to cfg.Analysis. It sets b.group itself.
func (b *flagBuilder) addAnalysisFlags(cfg *config.Config) {
	a := &cfg.Analysis
	b.group = groupAnalysis
	b.add(&choiceListValue[config.UseCase]{recorder: b.rec("use-case"), p: &a.UseCases}, spec{
		name: "use-case", meta: "<use-case,...>", choices: strs(config.UseCases()),
		usage: "Read the results for these use cases and print a verdict per use case, also written as the \"verdicts\" block of profile_export_aiperf.json: chat (output tokens/s per user, warns below 20), batch (output tokens/s of the node, warns when a concurrency sweep stops gaining), rag (prefill tokens/s per user, warns when a 4K-token prompt takes over 10 s to the first token, extrapolated when the run's inputs were shorter), capacity (total tokens/s, warns when TTFT p99 degrades over 2x). With it come the derived figures no metric states: input tokens/s (total - output) and the aggregate prefill demand (prefill per user x users).",
	})
	b.add(&choiceListValue[config.MetricView]{recorder: b.rec("metric-view"), p: &a.MetricViews}, spec{
		name: "metric-view", meta: "<tool,...>", choices: strs(config.MetricViews()),
		usage: "Also report TTFT, ITL, TPOT and E2E latency as these tools define them (vLLM bench serve, SGLang bench_serving, GuideLLM, inference-perf), computed from this run's per-request records, so the numbers can be put next to that tool's report 1:1. Printed after the tables and written to metric_views.json. Needs --export-level records (the default) or raw.",
	})
	b.add(&boolValue{recorder: b.rec("llmd-report"), p: &a.LLMDReport}, spec{
		name:  "llmd-report",
		usage: "Also write benchmark_report.yaml, the run as an llm-d benchmark report (schema v0.2 of llm-d-benchmark, also valid as v0.2.1), so the results drop into llm-d tooling.",
	})
}

// choiceListValue appends comma-separated choices, normalised (lower
// case, "-" as "_"); the first Set replaces what a config file gave.
type choiceListValue[T ~string] struct {
	recorder
	p       *[]T
	changed bool
}

func (v *choiceListValue[T]) Set(s string) error {
	if !v.changed {
		*v.p, v.changed = nil, true
	}
	for _, e := range config.SplitList(s) {
		if e != "" {
			*v.p = append(*v.p, T(config.NormalizeChoice(e)))
		}
	}
	return nil
}

func (v *choiceListValue[T]) String() string {
	parts := make([]string, len(*v.p))
	for i, e := range *v.p {
		parts[i] = string(e)
	}
	return strings.Join(parts, ",")
}
func (v *choiceListValue[T]) Type() string { return "list" }
