package builtin

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/accuracy"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

// Accuracy and integration categories.
var (
	categoryAccuracyBenchmark = plugin.Category{Name: "accuracy_benchmark", Description: "Accuracy benchmarks: the " +
		"question sets of accuracy mode (--accuracy-benchmark). One per run."}
	categoryAccuracyGrader = plugin.Category{Name: "accuracy_grader", Description: "Accuracy graders score answers " +
		"(--accuracy-grader; each benchmark has a default)."}
	categoryAPIRouter = plugin.Category{Name: "api_router", Description: "Route groups of the HTTP API (--api-port). " +
		"All are served."}
)

func accuracyBenchmarkEntries() []plugin.Entry {
	var out []plugin.Entry
	for _, m := range accuracy.Benchmarks() {
		e := plugin.Entry{Name: m.Name, Description: m.Description, Metadata: []plugin.Field{
			{Name: "default_grader", Value: m.DefaultGrader},
			{Name: "default_n_shots", Value: strconv.Itoa(m.DefaultShots)},
		}}
		if m.DefaultCoT {
			e.Metadata = append(e.Metadata, plugin.Field{Name: "default_enable_cot", Value: "true"})
		}
		if m.SystemPrompt != "" {
			e.Metadata = append(e.Metadata, plugin.Field{Name: "default_system_prompt", Value: m.SystemPrompt})
		}
		if !m.Supported {
			e.Metadata = append(e.Metadata, plugin.Field{Name: "is_implemented", Value: "false"})
		}
		out = append(out, e)
	}
	return out
}

func accuracyGraderEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("exact_match", "Stripped prediction equals the stripped gold, case-sensitive (DeepEval's exact_match_score)."),
		entry("math", "The last \\boxed{} answer (else the last number), compared after LaTeX normalisation or as numbers."),
		entry("multiple_choice", "The A-D letter: a bare first line, else \"answer is (X)\", else the first lone letter (lighteval's MMLU scoring)."),
		entry("code_execution", "Runs the response's last ```python block against the test cases with python3 (LiveCodeBench pass@1)."),
		entry("lighteval_expr", "lighteval's expr_gold_metric: the boxed or final expression against the gold answer (AIME24/25)."),
		entry("lighteval_latex", "lighteval's latex_gold_metric: the boxed answer against the gold solution's boxed answer (MATH-500)."),
		entry("lighteval_gpqa", "The letter after \"Answer:\" (else the last lone A-D letter) against the gold letter (GPQA)."),
		entry("lighteval_gsm8k", "The number after \"####\" (else the last number) against the gold's, compared as numbers (GSM8K)."),
		entry("mmlu_pro", "TIGER-Lab's A-J cascade: \"answer is (X)\", then \"Answer: X\", then the last lone letter."),
	}
}

func apiRouterEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("core", "/api/config, /api/run, /healthz, /readyz and POST /api/shutdown."),
		entry("metrics", "/api/metrics (JSON) and Prometheus /metrics: live headline metrics, the final summary after the run."),
		entry("progress", "/api/progress: per-phase progress in AIPerf's ProgressResponse shape."),
		entry("results", "/api/results, /api/results/list and /api/results/files/{name} (gzip on request)."),
		entry("websocket", "/ws: subscribe to credit_phase_progress, realtime_metrics, worker_status_summary, ... messages."),
		entry("workers", "/api/workers: per-worker request counts and the process's health."),
	}
}

// integrationEntries are the integrations' plugins of the output categories,
// appended to those categories' lists.
func integrationEntries(category string) []plugin.Entry {
	switch category {
	case "record_processor":
		return []plugin.Entry{entry("accuracy_record", "Grades each profiling answer of accuracy mode against its problem's ground truth.")}
	case "accumulator":
		return []plugin.Entry{entry("accuracy", "Per-task accuracy tally: correct, total, unparsed.")}
	case "data_exporter":
		return []plugin.Entry{
			entry("accuracy_csv", "accuracy_results.csv (accuracy mode): task, correct, total, unparsed, accuracy."),
			entry("mlflow", "Logs the run to MLflow (--mlflow-tracking-uri): summary metrics, params, tags, artifacts; mlflow_export.json."),
			entry("wandb", "Uploads the run to Weights & Biases (--wandb-project): config, summary_metrics table, files."),
		}
	case "console_exporter":
		return []plugin.Entry{entry("accuracy", "The Accuracy Benchmark Results table per task (accuracy mode).")}
	case "stream_exporter":
		return []plugin.Entry{
			entry("accuracy_jsonl_writer", "accuracy_export.jsonl (accuracy mode): one graded answer per line."),
			entry("otel_metrics_streamer", "Streams GenAI semantic-convention histograms and timing counters over OTLP/HTTP (--otel-url), and MLflow live metrics."),
		}
	}
	return nil
}
