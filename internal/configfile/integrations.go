package configfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// integrationFields are the rows of the integration sections: otel, mlflow,
// wandb, accuracy and runtime.api_port/api_host. The other runtime keys
// are AIPerf's process-model options, not supported here.
func integrationFields() []field {
	otel := func(t target) *config.OTel { return &t.cfg.Integrations.OTel }
	ml := func(t target) *config.MLflow { return &t.cfg.Integrations.MLflow }
	wb := func(t target) *config.Wandb { return &t.cfg.Integrations.Wandb }
	acc := func(t target) *config.Accuracy { return &t.cfg.Integrations.Accuracy }
	rows := []field{
		{path: "benchmark.otel.metrics_url", flag: "otel-url", bind: func(t target) any { return &otel(t).URL }, conv: &otelURLConv,
			doc: "OTLP/HTTP metrics endpoint; /v1/metrics is appended when missing."},
		{path: "benchmark.otel.stream_metrics_enabled", bind: func(t target) any { return &otel(t).StreamMetricsEnabled },
			doc: "Stream each request's metrics (default true)."},
		{path: "benchmark.otel.stream_timing_enabled", bind: func(t target) any { return &otel(t).StreamTimingEnabled },
			doc: "Stream the phase timing counters (default true)."},
		{path: "benchmark.otel.custom_resource_attributes", flag: "otel-resource-attributes", bind: func(t target) any { return &otel(t).ResourceAttributes }, conv: &pairsConv,
			doc: "Extra OTel resource attributes: a mapping of key: value."},
		{path: "benchmark.otel.gen_ai_provider", flag: "gen-ai-provider", bind: func(t target) any { return &otel(t).GenAIProvider }},

		{path: "benchmark.mlflow.tracking_uri", flag: "mlflow-tracking-uri", bind: func(t target) any { return &ml(t).TrackingURI },
			doc: "MLflow tracking server URL (http or https)."},
		{path: "benchmark.mlflow.experiment", flag: "mlflow-experiment", bind: func(t target) any { return &ml(t).Experiment }},
		{path: "benchmark.mlflow.run_name", flag: "mlflow-run-name", bind: func(t target) any { return &ml(t).RunName }},
		{path: "benchmark.mlflow.tags", flag: "mlflow-tag", bind: func(t target) any { return &ml(t).Tags }, conv: &pairsConv,
			doc: "Extra run tags: a mapping of key: value."},
		{path: "benchmark.mlflow.parent_run_id", flag: "mlflow-parent-run-id", bind: func(t target) any { return &ml(t).ParentRunID }},
		{path: "benchmark.mlflow.artifact_globs", flag: "mlflow-artifact-glob", bind: func(t target) any { return &ml(t).ArtifactGlobs }},

		{path: "benchmark.wandb.project", flag: "wandb-project", bind: func(t target) any { return &wb(t).Project }},
		{path: "benchmark.wandb.entity", flag: "wandb-entity", bind: func(t target) any { return &wb(t).Entity }},
		{path: "benchmark.wandb.run_name", flag: "wandb-run-name", bind: func(t target) any { return &wb(t).RunName }},
		{path: "benchmark.wandb.tags", flag: "wandb-tag", bind: func(t target) any { return &wb(t).Tags }},

		{path: "benchmark.accuracy.benchmark", flag: "accuracy-benchmark", bind: func(t target) any { return &acc(t).Benchmark }, conv: &accuracyNameConv,
			doc: "Accuracy benchmark to run alongside the profile (mmlu, gsm8k, ...)."},
		{path: "benchmark.accuracy.tasks", flag: "accuracy-tasks", bind: func(t target) any { return &acc(t).Tasks }},
		{path: "benchmark.accuracy.n_shots", flag: "accuracy-n-shots", bind: func(t target) any { return &acc(t).NShots }},
		{path: "benchmark.accuracy.enable_cot", flag: "accuracy-enable-cot", bind: func(t target) any { return &acc(t).EnableCoT }},
		{path: "benchmark.accuracy.grader", flag: "accuracy-grader", bind: func(t target) any { return &acc(t).Grader }, conv: &accuracyNameConv},
		{path: "benchmark.accuracy.system_prompt", flag: "accuracy-system-prompt", bind: func(t target) any { return &acc(t).SystemPrompt }},
		{path: "benchmark.accuracy.verbose", flag: "accuracy-verbose", bind: func(t target) any { return &acc(t).Verbose }},

		{path: "benchmark.runtime.api_port", flag: "api-port", bind: func(t target) any { return &t.cfg.Integrations.API.Port },
			doc: "Serve the run's progress, metrics and results over HTTP on this port."},
		{path: "benchmark.runtime.api_host", flag: "api-host", bind: func(t target) any { return &t.cfg.Integrations.API.Host }},
	}
	for _, k := range []string{"ui", "workers", "record_processors", "service_run_type", "communication",
		"dataset_api_base_url", "workers_per_pod", "record_processors_per_pod", "workers_min", "stats_interval"} {
		rows = append(rows, field{path: "benchmark.runtime." + k, unsupported: true})
	}
	return rows
}

var (
	otelURLConv = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be a URL string, not " + describe(n)
			}
			u, err := config.NormalizeOTelURL(s)
			if err != nil {
				return err.Error()
			}
			*dst.(*config.CredURL) = config.CredURL(u)
			return ""
		},
		schema: map[string]any{"type": "string"},
	}
	accuracyNameConv = conv{
		decode: func(n *Node, dst any) string {
			s, ok := stringOf(n)
			if !ok {
				return "must be a string, not " + describe(n)
			}
			*dst.(*string) = config.NormalizeAccuracyName(s)
			return ""
		},
		schema: map[string]any{"type": "string"},
	}
	// pairsConv decodes a mapping of key: value (or a list of "k:v" /
	// "k=v" strings) into ordered pairs, keys sorted for a mapping.
	pairsConv = conv{
		decode: func(n *Node, dst any) string {
			p := dst.(*[]config.KeyValue)
			*p = nil
			switch n.Kind {
			case Null:
				return ""
			case Map:
				keys := make([]string, 0, len(n.Keys))
				for _, k := range n.Keys {
					keys = append(keys, k.Name)
				}
				slices.Sort(keys)
				for _, k := range keys {
					v := n.Get(k)
					if v == nil || v.Kind != Scalar {
						return fmt.Sprintf("%s: must be a plain value", k)
					}
					*p = append(*p, config.KeyValue{Key: k, Value: scalarText(v.Value)})
				}
				return ""
			case Scalar, Seq:
				items := n.Items
				if n.Kind == Scalar {
					items = []*Node{n}
				}
				for _, it := range items {
					s, ok := stringOf(it)
					if !ok {
						return "each entry must be a key:value string"
					}
					sep := ":"
					if !strings.ContainsRune(s, ':') {
						sep = "="
					}
					kvs, err := config.ParseKeyValues([]string{s}, sep, false)
					if err != nil {
						return err.Error()
					}
					*p = append(*p, kvs...)
				}
				return ""
			}
			return "must be a mapping of key: value, not " + describe(n)
		},
		schema: map[string]any{"anyOf": []any{
			map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "number", "boolean"}}},
			map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			map[string]any{"type": "string"},
		}},
	}
)
