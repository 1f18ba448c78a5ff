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
		"Let the agentic_replay timing mode run more lanes (--concurrency) than there are distinct traces in a bounded run (otherwise refused, as AIPerf does, unless --cache-bust keeps the copies distinct). The other modes reuse conversations freely, as AIPerf's do, so it has no effect there (the log says so).",
		&d.AllowDatasetWrap)
	b.add(&floatPtrValue{recorder: b.rec("trace-session-sample-ratio"), p: &d.TraceSessionSampleRatio}, spec{
		name: "trace-session-sample-ratio", meta: "<ratio>",
		usage: "Fraction of a trace's sessions to replay, sampled whole so multi-turn sessions stay intact; deterministic with --random-seed. Only the baseten_trace loader supports it.",
	})
}

// addSynthesisFlags registers the Synthesis group: AIPerf's trace
// synthesis options.
func (b *flagBuilder) addSynthesisFlags(cfg *config.Config) {
	s := &cfg.Dataset.Synthesis
	b.group = groupSynthesis
	ratio := func(name string, p **float64, usage string) {
		b.add(&floatPtrValue{recorder: b.rec(name), p: p}, spec{name: name, meta: "<ratio>", usage: usage})
	}
	ratio("synthesis-speedup-ratio", &s.SpeedupRatio, "Divide trace timestamps by this (2 replays twice as fast; int(ms / ratio)). Default 1.")
	ratio("synthesis-prefix-len-multiplier", &s.PrefixLenMultiplier, "Stretch (> 1) or cut (< 1) each request's shared prefix: the hash ids it shares with other requests, up to the first unshared one. Default 1.")
	b.add(&intPtrValue{recorder: b.rec("synthesis-prefix-root-multiplier"), p: &s.PrefixRootMultiplier}, spec{
		name: "synthesis-prefix-root-multiplier", meta: "<n>",
		usage: "Spread the requests over this many independent copies of the trace's prefix tree (each request draws its copy), multiplying prefix diversity. Default 1.",
	})
	ratio("synthesis-prompt-len-multiplier", &s.PromptLenMultiplier, "Scale the unshared rest of each request's input (new hash ids, one per block). Default 1.")
	ratio("synthesis-output-len-multiplier", &s.OutputLenMultiplier, "Scale each request's output_length (rounded, at least 1). Default 1.")
	b.add(&intPtrValue{recorder: b.rec("synthesis-max-isl"), p: &s.MaxISL}, spec{
		name: "synthesis-max-isl", meta: "<tokens>",
		usage: "Drop trace requests whose recorded input_length exceeds this, before synthesis; synthesized lengths are capped to it.",
	})
	b.add(&intPtrValue{recorder: b.rec("synthesis-max-osl"), p: &s.MaxOSL}, spec{
		name: "synthesis-max-osl", meta: "<tokens>",
		usage: "Cap each trace request's output_length (after synthesis); Weka subagent turns stay uncapped, as in AIPerf.",
	})
}

// Help groups of the prompt-source options this file adds.
const (
	groupCacheBust = "Cache Bust"
	groupSynthesis = "Synthesis"
)

// addPromptSourceFlags registers --prompt-corpus, the random corpus
// options, the verbatim system prompt and --cache-bust.
func (b *flagBuilder) addPromptSourceFlags(cfg *config.Config) {
	pr := &cfg.Prompt
	b.group = groupISL
	b.add(&rangeRatioValue{recorder: b.rec("random-range-ratio"), p: &pr.RandomRangeRatio}, spec{
		name: "random-range-ratio", meta: "<ratio>",
		usage: "Draw each request's ISL and OSL uniformly from a window around --isl and --osl: [floor(m*(1-r)), ceil(m*(1+r))] in the vllm style, " +
			"[max(1, int(m*r)), m] in the sglang style (--random-corpus-style). A number for both, or {\"input\": 0.3, \"output\": 0.5} (vllm style). Needs --osl; not with --seq-dist or the stddevs.",
	})
	b.add(&choiceValue[string]{recorder: b.rec("random-corpus-style"), p: &pr.RandomCorpusStyle, normalize: config.NormalizeChoice}, spec{
		name: "random-corpus-style", meta: "<style>", def: "vllm", choices: config.RandomCorpusStyles(),
		usage: "Benchmark style of the random corpus and the range-ratio window: vllm (vllm bench serve: special tokens left out of the token pool, symmetric window) or sglang (the whole vocabulary, lower-bounded window).",
	})
	b.group = groupPrompt
	b.add(&choiceValue[string]{recorder: b.rec("prompt-corpus"), p: &pr.Corpus, normalize: config.NormalizeChoice}, spec{
		name: "prompt-corpus", meta: "<corpus>", choices: config.PromptCorpora(),
		usage: "Text synthetic prompts and trace hash-id blocks are cut from: sonnet (Shakespeare), coding (generated source code, shell output, diffs, tracebacks, JSON, coding requests) or random (runs of consecutive token ids, as vLLM's and SGLang's random datasets). Default: the dataset's (coding for weka_trace, tracelab and the Weka public datasets, sonnet otherwise). Verbatim formats ignore it.",
	})
	b.group = groupPrefix
	b.add(&stringValue{recorder: b.rec("system-prompt"), p: &pr.SystemPrompt}, spec{
		name: "system-prompt", meta: "<text>",
		usage: "Verbatim system prompt, the same for every conversation, sent as a system message ahead of its turns; a dataset's own system message is kept after it (joined by a blank line). Works with synthetic, file and public datasets; its tokens add to --isl. Not with --system-prompt-file, --shared-system-prompt-length or the prefix pool.",
	})
	b.add(&stringValue{recorder: b.rec("system-prompt-file"), p: &pr.SystemPromptFile}, spec{
		name: "system-prompt-file", meta: "<path>",
		usage: "UTF-8 file holding the verbatim system prompt (see --system-prompt), read once before the run, so a missing file fails at once.",
	})
	b.group = groupCacheBust
	b.add(&choiceValue[string]{recorder: b.rec("cache-bust"), p: &pr.CacheBust, normalize: config.NormalizeChoice}, spec{
		name: "cache-bust", meta: "<target>", def: "none", choices: config.CacheBustTargets(),
		usage: "Inject a cache-bust marker. system_prefix, system_suffix, first_turn_prefix, first_turn_suffix: a per-conversation [rid:<digest>] marker " +
			"(a new one each time a conversation is reused), so conversations never share the server's prefix cache, while a conversation's warmup and profiling requests do. " +
			"warmup_isolation_system, warmup_isolation_first_turn: a constant [warmup] marker in warmup requests only, so warmup leaves profiling cold. none (default): off.",
	})
}

// rangeRatioValue parses --random-range-ratio.
type rangeRatioValue struct {
	recorder
	p **config.RangeRatio
}

func (v *rangeRatioValue) Set(s string) error {
	r, err := config.ParseRangeRatio(s)
	if err != nil {
		v.fail(err)
		return nil
	}
	*v.p = r
	return nil
}

func (v *rangeRatioValue) String() string {
	if *v.p == nil {
		return ""
	}
	return (*v.p).String()
}

func (v *rangeRatioValue) Type() string { return "ratio" }

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
