package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// groupAccuracy is AIPerf's Accuracy help panel.
const groupAccuracy = "Accuracy"

// addIntegrationFlags registers the integrations' flags: the OTel, MLflow and W&B
// flags of the Output group, --api-port/--api-host of the Service group
// and the Accuracy group. It sets b.group itself.
func (b *flagBuilder) addIntegrationFlags(cfg *config.Config) {
	in := &cfg.Integrations
	b.group = groupOutput

	o := &in.OTel
	b.add(&otelURLValue{recorder: b.rec("otel-url"), p: &o.URL}, spec{
		name: "otel-url", meta: "<url>",
		usage: "Stream metrics to an OpenTelemetry collector over OTLP/HTTP while the run goes: each request's GenAI semantic-convention histograms (gen_ai.client.operation.duration, time_to_first_chunk, time_per_output_chunk, token.usage) and the aiperf.timing.* counters. host:port or a URL; /v1/metrics is appended when missing (e.g. localhost:4318).",
	})
	b.add(&choiceListValue[string]{recorder: b.rec("stream"), p: &o.Stream}, spec{
		name: "stream", meta: "<domain ...>", def: config.StreamDefault, choices: config.StreamDomains(),
		usage: "Which domains to stream over OTel: metrics (per-request histograms), timing (phase counters), default (both) or none; several may be given (--stream metrics timing).",
	})
	b.add(&pairsValue{recorder: b.rec("otel-resource-attributes"), p: &o.ResourceAttributes, sep: "="}, spec{
		name: "otel-resource-attributes", meta: "<key=value ...>",
		usage: "Extra OTel resource attributes, key=value pairs (comma-separated or repeated), merged over the defaults (service.name=aiperf, aiperf.benchmark.id, aiperf.model.name, ...).",
	})
	b.add(&stringValue{recorder: b.rec("gen-ai-provider"), p: &o.GenAIProvider}, spec{
		name: "gen-ai-provider", meta: "<name>",
		usage: "The gen_ai.provider.name attribute of the streamed metrics (openai, aws.bedrock, ...); default: inferred from the --url host, else _OTHER.",
	})

	m := &in.MLflow
	b.add(&credURLValue{recorder: b.rec("mlflow-tracking-uri"), p: &m.TrackingURI}, spec{
		name: "mlflow-tracking-uri", meta: "<url>",
		usage: "Log the run to an MLflow tracking server over its REST API: live metrics (live.gen_ai.*) while it runs, then every summary metric (tag and tag.p99, ...), parameters, tags and the artifact files; the run is recorded in mlflow_export.json. Credentials: MLFLOW_TRACKING_TOKEN, or MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD.",
	})
	b.add(&stringValue{recorder: b.rec("mlflow-experiment"), p: &m.Experiment}, spec{
		name: "mlflow-experiment", meta: "<name>", def: config.DefaultMLflowExperiment,
		usage: "MLflow experiment name, created when missing.",
	})
	b.add(&stringValue{recorder: b.rec("mlflow-run-name"), p: &m.RunName}, spec{
		name: "mlflow-run-name", meta: "<name>",
		usage: "MLflow run name; default aiperf-<first 8 characters of the benchmark ID>.",
	})
	b.add(&pairsValue{recorder: b.rec("mlflow-tag"), p: &m.Tags, sep: ":", json: true}, spec{
		name: "mlflow-tag", meta: "<key:value ...>",
		usage: "Extra MLflow run tags as key:value pairs (comma-separated or repeated) or a JSON object.",
	})
	b.add(&stringValue{recorder: b.rec("mlflow-parent-run-id"), p: &m.ParentRunID}, spec{
		name: "mlflow-parent-run-id", meta: "<run id>",
		usage: "Nest the run under this MLflow run (a missing parent falls back to a top-level run, with a warning).",
	})
	b.add(&listValue{recorder: b.rec("mlflow-artifact-glob"), p: &m.ArtifactGlobs}, spec{
		name: "mlflow-artifact-glob", meta: "<glob ...>",
		usage: "Which artifact files to upload, globs relative to the artifact directory (** crosses directories), comma-separated or repeated; default *.json, *.csv, *.jsonl, *.parquet, *_timeslices.* and the plots (**/*.png, .jpg, .jpeg, .svg, .html).",
	})

	w := &in.Wandb
	b.add(&stringValue{recorder: b.rec("wandb-project"), p: &w.Project}, spec{
		name: "wandb-project", meta: "<project>",
		usage: "Upload the run to this Weights & Biases project after it ends: the configuration, a summary_metrics table, the summary values and the artifact files. The API key is WANDB_API_KEY; the server WANDB_BASE_URL (default https://api.wandb.ai).",
	})
	b.add(&stringValue{recorder: b.rec("wandb-entity"), p: &w.Entity}, spec{
		name: "wandb-entity", meta: "<entity>",
		usage: "W&B team or user; default: the API key's default entity.",
	})
	b.add(&stringValue{recorder: b.rec("wandb-run-name"), p: &w.RunName}, spec{
		name: "wandb-run-name", meta: "<name>",
		usage: "W&B run name; default aiperf-<first 8 characters of the benchmark ID>.",
	})
	b.add(&listValue{recorder: b.rec("wandb-tag"), p: &w.Tags}, spec{
		name: "wandb-tag", meta: "<tag ...>",
		usage: "Extra W&B run tags, comma-separated or repeated (aiperf-<version> and benchmark-<id> are always added).",
	})

	b.group = groupService
	b.add(&intPtrValue{recorder: b.rec("api-port"), p: &in.API.Port}, spec{
		name: "api-port", meta: "<port>",
		usage: "Serve the run over HTTP while it goes: /api/progress, /api/metrics, Prometheus /metrics, /api/config, /api/run, /api/workers, /api/results and the artifact files, /healthz, /readyz, and WebSocket progress at /ws. Secrets are redacted. 0 is not accepted; the API stops when the command exits.",
	})
	b.add(&stringValue{recorder: b.rec("api-host"), p: &in.API.Host}, spec{
		name: "api-host", meta: "<host>", def: config.DefaultAPIHost,
		usage: "Address the API listens on (0.0.0.0 for every interface). Requires --api-port.",
	})

	b.group = groupAccuracy
	a := &in.Accuracy
	b.add(&choiceValue[string]{recorder: b.rec("accuracy-benchmark"), p: &a.Benchmark, normalize: config.NormalizeAccuracyName}, spec{
		name: "accuracy-benchmark", meta: "<benchmark>", choices: config.AccuracyBenchmarks(),
		usage: "Run an accuracy benchmark alongside the performance profile: its questions become the dataset (read from the HuggingFace hub cache, downloaded when missing), every answer is graded, and the accuracy per task is printed and written to accuracy_results.csv, accuracy_export.jsonl and the summary JSON. One pass over the questions unless --request-count says otherwise.",
	})
	b.add(&listValue{recorder: b.rec("accuracy-tasks"), p: &a.Tasks}, spec{
		name: "accuracy-tasks", meta: "<task ...>",
		usage: "Evaluate only these tasks or subtasks (MMLU subjects, MMLU-Pro categories, BBH subtasks, ...), comma-separated or repeated; default all.",
	})
	b.add(&intPtrValue{recorder: b.rec("accuracy-n-shots"), p: &a.NShots}, spec{
		name: "accuracy-n-shots", meta: "<n>",
		usage: "Few-shot examples in each prompt, 0 to 32; default the benchmark's (MMLU 5, AIME 8, HellaSwag 10, BigBench 3, most others 0).",
	})
	f := b.add(&boolPtrValue{recorder: b.rec("accuracy-enable-cot"), p: &a.EnableCoT}, spec{
		name:  "accuracy-enable-cot",
		usage: "Ask for chain-of-thought reasoning. Default: the benchmark's (on for AIME, MMLU-Pro and BigBench).",
	})
	f.NoOptDefVal = "true"
	g := b.add(&boolPtrValue{recorder: b.rec("accuracy-no-enable-cot"), p: &a.EnableCoT, invert: true}, spec{
		name: "accuracy-no-enable-cot", usage: "Opposite of --accuracy-enable-cot.",
	})
	g.NoOptDefVal = "true"
	b.add(&choiceValue[string]{recorder: b.rec("accuracy-grader"), p: &a.Grader, normalize: config.NormalizeAccuracyName}, spec{
		name: "accuracy-grader", meta: "<grader>", choices: config.AccuracyGraders(),
		usage: "Grade with this grader instead of the benchmark's default.",
	})
	b.add(&stringPtrValue{recorder: b.rec("accuracy-system-prompt"), p: &a.SystemPrompt}, spec{
		name: "accuracy-system-prompt", meta: "<text>",
		usage: "System prompt for every question, replacing the benchmark's (AIME's asks for a boxed answer); an empty string sends none.",
	})
	b.add(&boolValue{recorder: b.rec("accuracy-verbose"), p: &a.Verbose}, spec{
		name:  "accuracy-verbose",
		usage: "Log every graded answer: correct or not, what was extracted, why.",
	})
}

// otelURLValue sets --otel-url, normalised to the OTLP/HTTP metrics path.
type otelURLValue struct {
	recorder
	p *config.CredURL
}

func (v *otelURLValue) Set(s string) error {
	u, err := config.NormalizeOTelURL(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = config.CredURL(u)
	return nil
}
func (v *otelURLValue) String() string { return v.p.String() }
func (v *otelURLValue) Type() string   { return "url" }

// credURLValue sets a URL that may carry credentials; String redacts them.
type credURLValue struct {
	recorder
	p *config.CredURL
}

func (v *credURLValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		v.fail(fmt.Errorf("must not be empty"))
		return nil
	}
	*v.p = config.CredURL(s)
	return nil
}
func (v *credURLValue) String() string { return v.p.String() }
func (v *credURLValue) Type() string   { return "url" }

// pairsValue appends key<sep>value pairs (comma-separated), or with json
// the keys of a JSON object.
type pairsValue struct {
	recorder
	p    *[]config.KeyValue
	sep  string
	json bool
}

func (v *pairsValue) Set(s string) error {
	kvs, err := config.ParseKeyValues([]string{s}, v.sep, v.json)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = append(*v.p, kvs...)
	return nil
}

func (v *pairsValue) String() string {
	parts := make([]string, len(*v.p))
	for i, kv := range *v.p {
		parts[i] = kv.Key + v.sep + kv.Value
	}
	return strings.Join(parts, ",")
}
func (v *pairsValue) Type() string { return "key" + v.sep + "value" }

// stringPtrValue sets an optional string ("" is a value).
type stringPtrValue struct {
	recorder
	p **string
}

func (v *stringPtrValue) Set(s string) error { *v.p = &s; return nil }
func (v *stringPtrValue) String() string {
	if *v.p == nil {
		return ""
	}
	return strconv.Quote(**v.p)
}
func (v *stringPtrValue) Type() string { return "string" }
