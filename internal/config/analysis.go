package config

// UseCase is a way of reading the results (--use-case): the guide's
// primary and secondary metric and warning threshold for it.
type UseCase string

// Use cases.
const (
	UseCaseChat     UseCase = "chat"
	UseCaseBatch    UseCase = "batch"
	UseCaseRAG      UseCase = "rag"
	UseCaseCapacity UseCase = "capacity"
	// UseCaseAll stands for the four above.
	UseCaseAll UseCase = "all"
)

// UseCases lists the --use-case choices in help order.
func UseCases() []UseCase {
	return []UseCase{UseCaseChat, UseCaseBatch, UseCaseRAG, UseCaseCapacity, UseCaseAll}
}

// MetricView is a peer tool whose ITL and TPOT definitions a run can also
// be reported in (--metric-view).
type MetricView string

// Metric views.
const (
	ViewVLLM          MetricView = "vllm"
	ViewSGLang        MetricView = "sglang"
	ViewGuideLLM      MetricView = "guidellm"
	ViewInferencePerf MetricView = "inference_perf"
	ViewAll           MetricView = "all"
)

// MetricViews lists the --metric-view choices in help order.
func MetricViews() []MetricView {
	return []MetricView{ViewVLLM, ViewSGLang, ViewGuideLLM, ViewInferencePerf, ViewAll}
}

// Analysis holds the options that read a run's results after it (not
// AIPerf options): use-case verdicts, peer metric views and the llm-d
// benchmark report.
type Analysis struct {
	// UseCases are the use cases to give verdicts for; "all" expands.
	UseCases []UseCase `json:"use_cases,omitempty"`
	// MetricViews are the peer definitions to report ITL/TPOT in.
	MetricViews []MetricView `json:"metric_views,omitempty"`
	// LLMDReport writes benchmark_report.yaml, the llm-d benchmark report.
	LLMDReport bool `json:"llmd_report,omitempty"`
}

// ResolvedUseCases returns the use cases, "all" expanded, in help order.
func (c *Config) ResolvedUseCases() []UseCase {
	return expandAll(c.Analysis.UseCases, UseCases(), UseCaseAll)
}

// ResolvedMetricViews returns the metric views, "all" expanded, in help
// order.
func (c *Config) ResolvedMetricViews() []MetricView {
	return expandAll(c.Analysis.MetricViews, MetricViews(), ViewAll)
}

// expandAll orders the given values as choices, every choice but all
// when all is given, without repeats.
func expandAll[T ~string](given, choices []T, all T) []T {
	var out []T
	for _, ch := range choices {
		if ch == all {
			continue
		}
		if contains(given, ch) || contains(given, all) {
			out = append(out, ch)
		}
	}
	return out
}

func (c *Config) validateAnalysis(p *problems) {
	for _, u := range c.Analysis.UseCases {
		if !contains(UseCases(), u) {
			p.add("--use-case", "invalid choice %q (choose from %s)", u, joinChoices(UseCases()))
		}
	}
	for _, v := range c.Analysis.MetricViews {
		if !contains(MetricViews(), v) {
			p.add("--metric-view", "invalid choice %q (choose from %s)", v, joinChoices(MetricViews()))
		}
	}
	if len(c.Analysis.MetricViews) > 0 && c.Output.ExportLevel == ExportSummary {
		p.add("--metric-view", "is computed from the per-request records, which --export-level summary does not write; use --export-level records (the default) or raw")
	}
}
