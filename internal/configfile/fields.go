package configfile

import (
	"slices"

	"github.com/aiperf-go/aiperf/internal/config"
)

// target is what a config file decodes into.
type target struct {
	cfg *config.Config
}

// field maps one config-file key to one configuration field. The table
// below is the only place that knows both the YAML shape and the Config
// shape: decoding, CLI overrides of the envelope and the JSON Schema are
// all derived from it, so supporting a new option is one row.
//
// Paths are dot paths from the envelope root in canonical snake_case.
// Inside "benchmark.phases" the segment after "phases" is the phase kind
// ("warmup" or "profiling"); inside "benchmark.datasets" it is "0", the
// only dataset.
type field struct {
	path string
	// flag is the `aiperf profile` flag (canonical name) whose explicit
	// value overrides this key; "" when none does, several separated by
	// commas when several flags set the key. A flag may override several
	// keys (--random-seed: the envelope's and the dataset's); the first
	// row is its sweep path.
	flag string
	// bind returns a pointer to the target field; nil for keys that are
	// accepted but carry nothing (name, kind).
	bind func(t target) any
	// conv decodes the node when the pointer's type alone does not say
	// how; nil = by type (see decodeValue).
	conv *conv
	// unsupported marks an AIPerf key this implementation recognises but
	// does not implement; using it is an error saying so.
	unsupported bool
	// ignored marks an AIPerf key accepted for compatibility whose value
	// has no effect here; doc says why.
	ignored bool
	doc     string
}

// fields is the config-file schema: the keys of the option table, then
// the keys no flag sets (the shape of phases and datasets, the template
// endpoint, sections decoded whole). Keep rows grouped by section.
func fields() []field {
	return slices.Concat(optionFields(), []field{
		// The template endpoint.
		{path: "benchmark.endpoint.template.body", bind: func(t target) any { return &templateOf(t).Body },
			doc: "Template endpoint: a named template (nv-embedqa), a template file, or the Jinja template itself; sets type template when the type is not given."},
		{path: "benchmark.endpoint.template.response_field", bind: func(t target) any { return &templateOf(t).ResponseField },
			doc: "Template endpoint: JMESPath expression picking the response text; \"text\" (the default) auto-detects."},

		// Dataset (exactly one).
		{path: "benchmark.datasets.0.name", doc: "Dataset name; sweep paths may use it (datasets.<name>.prompts.isl)."},
		{path: "benchmark.datasets.0.type", conv: &datasetTypeConv, doc: "synthetic (the default), file (path, format) or public (dataset)."},

		// Profiling phase.
		{path: "benchmark.phases.profiling.name"},
		{path: "benchmark.phases.profiling.kind"},
		{path: "benchmark.phases.profiling.exclude_from_results", conv: &mustBeFalseConv},
		{path: "benchmark.phases.profiling.sla", bind: func(t target) any { return &t.cfg.Shape.SLA }, conv: &slaConv,
			doc: "SLA filters for adaptive_scale: {metric: {stat: {op: threshold}}}."},
		{path: "benchmark.phases.profiling.timing_mode", bind: func(t target) any { return &t.cfg.Shape.TimingMode }, conv: &choiceConv,
			doc: "agentic_replay: replay Weka agent traces from sampled mid-trace starts (AIPerf's agentic_replay timing mode); unset follows type."},
		{path: "benchmark.phases.profiling.seamless", unsupported: true},
		{path: "benchmark.phases.profiling.adaptive_scale", bind: func(t target) any { return &t.cfg.Shape.Adaptive }, conv: &adaptiveConv,
			doc: "Online load search: {control: {variable, min, max}, assessment_period, sustain_duration, min_completed_requests, strategy: {type: ramp_until_fail, step_policy, base_step, max_step_multiplier, step_percent}, sla}."},

		// Warmup phase.
		{path: "benchmark.phases.warmup.name"},
		{path: "benchmark.phases.warmup.kind"},
		{path: "benchmark.phases.warmup.exclude_from_results", conv: &mustBeTrueConv},

		// AIPerf sections not implemented here.
		{path: "benchmark.logging", unsupported: true},
		{path: "benchmark.metrics", unsupported: true},
	}, telemetryFields(), integrationFields(), compatFields())
}

// templateOf returns the config's endpoint template section, creating it
// (a config file naming endpoint.template wants the template endpoint).
func templateOf(t target) *config.TemplateConfig {
	if t.cfg.Endpoint.Template == nil {
		t.cfg.Endpoint.Template = &config.TemplateConfig{}
	}
	return t.cfg.Endpoint.Template
}
