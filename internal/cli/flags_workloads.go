package cli

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/internal/config"
)

// addWorkloadFlags registers the rest of AIPerf's Input group: the public
// dataset source options (--hf-subset, --hf-weka-dataset,
// --dataset-filter) and the trace replay options of the agentic formats.
func (b *flagBuilder) addWorkloadFlags(cfg *config.Config) {
	d := &cfg.Dataset
	b.group = groupInput
	b.add(&stringValue{recorder: b.rec("hf-subset"), p: &d.HFSubset}, spec{
		name: "hf-subset", meta: "<subset>",
		usage: "HuggingFace dataset config (subset) to read instead of the public dataset's default (e.g. sharegpt4o). Only for --public-dataset datasets read from the hub.",
	})
	b.add(&stringValue{recorder: b.rec("hf-weka-dataset"), p: &d.HFWekaDataset}, spec{
		name: "hf-weka-dataset", meta: "<org/name>",
		usage: "HuggingFace dataset repository of Weka-format agentic traces (e.g. semianalysisai/cc-traces-weka-061526). Selects --public-dataset weka_hf on its own; cannot be combined with another --public-dataset or with --custom-dataset-type.",
	})
	b.add(&keyValueList{recorder: b.rec("dataset-filter"), p: &d.Filters}, spec{
		name: "dataset-filter", meta: "<key=value>",
		usage: "Dataset-specific filter as key=value; repeat it for several. Only public datasets that declare filters accept them: exgentic (harness, source_model) and exgentic_v2 (also benchmark).",
	})
	b.add(&boolValue{recorder: b.rec("ignore-trace-delays"), p: &d.IgnoreTraceDelays}, spec{
		name:  "ignore-trace-delays",
		usage: "Drop the recorded timestamps and inter-turn delays of trace datasets when loading them, so concurrency and request-rate runs send turns back to back instead of replaying the recorded think time.",
	})
	b.add(&boolValue{recorder: b.rec("use-think-time-only"), p: &d.UseThinkTimeOnly}, spec{
		name:  "use-think-time-only",
		usage: "For weka_trace inputs, wait only each request's recorded think_time before it, instead of the recorded gap between the previous request's end and its start.",
	})
	b.add(&intPtrValue{recorder: b.rec("max-context-length"), p: &d.MaxContextLength}, spec{
		name: "max-context-length", meta: "<tokens>",
		usage: "Largest peak prompt-plus-output context (tokens) of a Weka trace: traces whose recorded peak exceeds it are dropped at load time, before --num-dataset-entries keeps the first N.",
	})
	b.addBoolPair(nil, "allow-dataset-wrap", "false",
		"Let trace replay reuse conversations when more sessions run at once than the dataset holds; without it, a run that would wrap fails.",
		&d.AllowDatasetWrap)
	b.add(&floatPtrValue{recorder: b.rec("trace-session-sample-ratio"), p: &d.TraceSessionSampleRatio}, spec{
		name: "trace-session-sample-ratio", meta: "<ratio>",
		usage: "Fraction of a trace's sessions to replay, sampled whole so multi-turn sessions stay intact; deterministic with --random-seed. Only the baseten_trace loader supports it.",
	})
}

// keyValueList appends key=value options.
type keyValueList struct {
	recorder
	p *[]config.KeyValue
}

func (v *keyValueList) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, val, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(k) == "" {
			v.fail(fmt.Errorf("want key=value, got %q", part))
			return nil
		}
		*v.p = append(*v.p, config.KeyValue{Key: strings.TrimSpace(k), Value: strings.TrimSpace(val)})
	}
	return nil
}

func (v *keyValueList) String() string {
	parts := make([]string, len(*v.p))
	for i, kv := range *v.p {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, ",")
}

func (v *keyValueList) Type() string { return "key=value" }

// normalizePublic canonicalises a --public-dataset value: AIPerf's names
// in snake_case, its help's kebab-case spellings included (which write
// gsm8k as gsm8-k).
func normalizePublic(s string) config.PublicDataset {
	n := config.NormalizeChoice(s)
	n = strings.ReplaceAll(n, "gsm8_k", "gsm8k")
	return config.PublicDataset(n)
}
