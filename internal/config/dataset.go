package config

import (
	"encoding/json"
	"math"
	"strings"
)

// Dataset is where the prompts come from when they are not synthetic:
// --input-file with --custom-dataset-type, or --public-dataset; plus the
// order in which entries are handed out (--dataset-sampling-strategy) and
// the hash-id block size of trace formats (--isl-block-size).
//
// Empty strings and nil pointers mean "not given": the dataset type is then
// detected from the file, the block size comes from the format (512 for
// mooncake_trace, 16 for bailian_trace) and the sampling strategy from the
// source (sequential for synthetic data, files and traces, as in AIPerf
// 0.13; shuffle for random_pool); see SamplingStrategy.
type Dataset struct {
	// InputFile is a file or directory of dataset entries (--input-file).
	InputFile string `json:"input_file,omitempty"`
	// InlineRecords are a config file's dataset records: (each one line of
	// the format's JSONL), read instead of InputFile.
	InlineRecords []json.RawMessage `json:"records,omitempty"`
	// CustomType is the format of InputFile (--custom-dataset-type); empty
	// means "detect it from the file".
	CustomType CustomDatasetType `json:"custom_dataset_type,omitempty"`
	// Public names a pre-configured public dataset (--public-dataset).
	Public PublicDataset `json:"public_dataset,omitempty"`
	// SamplingStrategy is --dataset-sampling-strategy; empty means the
	// source's default.
	SamplingStrategy SamplingStrategy `json:"dataset_sampling_strategy,omitempty"`
	// BlockSize is --isl-block-size, tokens per hash_ids block; nil means
	// the format's default.
	BlockSize *int `json:"block_size,omitempty"`

	// HFSubset overrides a hub-backed public dataset's config (subset)
	// (--hf-subset); HFWekaDataset names the repository of the generic
	// Weka loader and selects --public-dataset weka_hf (--hf-weka-dataset).
	HFSubset      string `json:"hf_subset,omitempty"`
	HFWekaDataset string `json:"hf_weka_dataset,omitempty"`
	// Filters are --dataset-filter key=value pairs, in the order given.
	Filters []KeyValue `json:"filters,omitempty"`
	// IgnoreTraceDelays drops trace timestamps and delays at load time
	// (--ignore-trace-delays); UseThinkTimeOnly replays Weka turns after
	// their recorded think time only (--use-think-time-only).
	IgnoreTraceDelays bool `json:"ignore_trace_delays,omitempty"`
	UseThinkTimeOnly  bool `json:"use_think_time_only,omitempty"`
	// MaxContextLength drops Weka traces whose peak prompt plus output
	// exceeds it (--max-context-length); nil means no bound.
	MaxContextLength *int `json:"max_context_length,omitempty"`
	// AllowDatasetWrap lets trace replay reuse conversations when more
	// sessions are wanted than the dataset holds (--allow-dataset-wrap).
	AllowDatasetWrap bool `json:"allow_dataset_wrap,omitempty"`
	// TraceSessionSampleRatio keeps this fraction of a baseten_trace's
	// sessions, whole (--trace-session-sample-ratio); nil keeps all.
	TraceSessionSampleRatio *float64 `json:"trace_session_sample_ratio,omitempty"`
	// Synthesis reshapes trace requests (the Synthesis flags).
	Synthesis Synthesis `json:"synthesis,omitzero"`
}

// KeyValue is one key=value option.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// CustomDatasetType is a file format for --input-file. Values are AIPerf's
// snake_case enum values.
type CustomDatasetType string

// Custom dataset formats, AIPerf's names.
const (
	DatasetSingleTurn    CustomDatasetType = "single_turn"
	DatasetMultiTurn     CustomDatasetType = "multi_turn"
	DatasetRandomPool    CustomDatasetType = "random_pool"
	DatasetMooncakeTrace CustomDatasetType = "mooncake_trace"
	DatasetInputsJSON    CustomDatasetType = "inputs_json"
	DatasetRawPayload    CustomDatasetType = "raw_payload"
	DatasetBailianTrace  CustomDatasetType = "bailian_trace"
	DatasetBurstGPTTrace CustomDatasetType = "burst_gpt_trace"
	DatasetWekaTrace     CustomDatasetType = "weka_trace"
)

// SupportedCustomDatasetTypes lists the formats this implementation reads:
// all of AIPerf's, in its help order.
func SupportedCustomDatasetTypes() []CustomDatasetType { return AIPerfCustomDatasetTypes() }

// AIPerfCustomDatasetTypes lists every --custom-dataset-type AIPerf 0.13
// accepts, in its help order.
func AIPerfCustomDatasetTypes() []CustomDatasetType {
	list := []CustomDatasetType{
		DatasetBurstGPTTrace, DatasetBailianTrace, "baseten_trace", DatasetMooncakeTrace,
		DatasetRawPayload, DatasetInputsJSON, "dag_jsonl", "sagemaker_data_capture",
		DatasetMultiTurn, DatasetRandomPool, DatasetSingleTurn, "speed_bench_qualitative",
	}
	for _, c := range []string{"coding", "humanities", "math", "multilingual", "qa", "rag",
		"reasoning", "roleplay", "stem", "summarization", "writing"} {
		list = append(list, CustomDatasetType("speed_bench_"+c))
	}
	for _, n := range []string{"1k", "2k", "8k", "16k", "32k"} {
		list = append(list, CustomDatasetType("speed_bench_throughput_"+n))
	}
	for _, n := range []string{"1k", "2k", "8k", "16k", "32k"} {
		for _, v := range []string{"low_entropy", "mixed", "high_entropy"} {
			list = append(list, CustomDatasetType("speed_bench_throughput_"+n+"_"+v))
		}
	}
	return append(list, "tracelab", DatasetWekaTrace)
}

// Supported reports whether t can be read by this implementation.
func (t CustomDatasetType) Supported() bool { return contains(SupportedCustomDatasetTypes(), t) }

// Known reports whether t is one of AIPerf's formats.
func (t CustomDatasetType) Known() bool { return contains(AIPerfCustomDatasetTypes(), t) }

// PublicDataset names a --public-dataset.
type PublicDataset string

// Public datasets with a special role in validation.
const (
	PublicShareGPT PublicDataset = "sharegpt"
	// PublicWekaHF is the generic Weka loader whose repository comes from
	// --hf-weka-dataset.
	PublicWekaHF PublicDataset = "weka_hf"
)

// AIPerfPublicDatasets lists AIPerf 0.13's --public-dataset choices in its
// registration order (dataset/public holds their sources and mappings).
func AIPerfPublicDatasets() []PublicDataset {
	list := []PublicDataset{
		"exgentic_v2", "exgentic", PublicShareGPT, "aimo", "mmstar", "mmvu", "vision_arena",
		"llava_onevision", "aimo_aime", "aimo_numina_cot", "aimo_numina_1_5", "spec_bench",
		"spec_al_gsm8k", "spec_al_math500", "spec_al_humaneval", "spec_al_mbpp",
		"spec_al_mtbench", "instruct_coder", "blazedit_5k", "blazedit_10k", "librispeech",
		"voxpopuli", "gigaspeech", "ami", "spgispeech",
	}
	for _, s := range []string{"", "_no_subagents", "_with_subagents", "_with_subagents_256k",
		"_with_subagents_060226", "_with_subagents_060226_256k", "_with_subagents_060526", "_with_subagents_060526_256k",
		"_with_subagents_060826", "_with_subagents_060826_256k", "_061326", "_061326_256k", "_061526", "_061526_256k",
		"_062126", "_062126_256k"} {
		list = append(list, PublicDataset("semianalysis_cc_traces_weka"+s))
	}
	return append(list, PublicWekaHF)
}

// publicFilterDatasets accept --dataset-filter.
var publicFilterDatasets = []PublicDataset{"exgentic", "exgentic_v2"}

// publicHubDatasets are the public datasets read from a hub dataset
// repository (all but sharegpt's single file and spec_bench's GitHub file),
// the ones --hf-subset applies to.
func publicHubDataset(d PublicDataset) bool {
	return d != "" && d != PublicShareGPT && d != "spec_bench"
}

// SamplingStrategy is --dataset-sampling-strategy.
type SamplingStrategy string

// Sampling strategies.
const (
	SamplingRandom     SamplingStrategy = "random"
	SamplingSequential SamplingStrategy = "sequential"
	SamplingShuffle    SamplingStrategy = "shuffle"
)

// SamplingStrategies lists the --dataset-sampling-strategy choices.
func SamplingStrategies() []SamplingStrategy {
	return []SamplingStrategy{SamplingRandom, SamplingSequential, SamplingShuffle}
}

// FromFile reports whether prompts come from --input-file or
// --public-dataset (or --hf-weka-dataset) rather than being synthetic.
func (d *Dataset) FromFile() bool {
	return d.HasFile() || d.Public != "" || d.HFWekaDataset != ""
}

// HasFile reports whether the entries come from --input-file or from a
// config file's inline records.
func (d *Dataset) HasFile() bool { return d.InputFile != "" || len(d.InlineRecords) > 0 }

// validateDataset checks the dataset options and their cross-flag rules.
func (c *Config) validateDataset(p *problems) {
	d := &c.Dataset
	d.validateCustomType(p)
	d.validateSource(p)
	public := d.ResolvedPublic()
	d.validateFilters(p, public)
	d.validateTraceOptions(p, public)
	if d.SamplingStrategy != "" && !contains(SamplingStrategies(), d.SamplingStrategy) {
		p.add("--dataset-sampling-strategy", "invalid choice %q (want %s)",
			d.SamplingStrategy, joinChoices(SamplingStrategies()))
	}
	if d.BlockSize != nil && *d.BlockSize < 1 {
		p.add("--isl-block-size", "must be at least 1, got %d", *d.BlockSize)
	}
	c.validateSynthesis(p)
}

// validateCustomType checks --custom-dataset-type and that it has a file.
func (d *Dataset) validateCustomType(p *problems) {
	if d.CustomType != "" {
		switch {
		case d.CustomType.Supported():
		case d.CustomType.Known():
			p.add("--custom-dataset-type", "%q is not supported yet (supported: %s)",
				d.CustomType, joinChoices(SupportedCustomDatasetTypes()))
		default:
			p.add("--custom-dataset-type", "invalid choice %q (supported: %s)",
				d.CustomType, joinChoices(SupportedCustomDatasetTypes()))
		}
		if !d.HasFile() {
			p.add("--custom-dataset-type", "requires --input-file")
		}
	}
}

// validateSource checks that the records come from one source: a file,
// inline records, a public dataset or a hub Weka dataset.
func (d *Dataset) validateSource(p *problems) {
	if len(d.InlineRecords) > 0 && (d.InputFile != "" || d.Public != "" || d.HFWekaDataset != "") {
		p.add("--input-file", "a dataset's records: and path: (or a public dataset) are mutually exclusive")
	}
	if d.Public != "" {
		if !contains(AIPerfPublicDatasets(), d.Public) {
			p.add("--public-dataset", "invalid choice %q (want one of %s)", d.Public, joinChoices(AIPerfPublicDatasets()))
		}
		if d.CustomType != "" {
			p.add("--public-dataset", "cannot be combined with --custom-dataset-type")
		}
		if d.InputFile != "" && d.Public != PublicShareGPT {
			p.add("--public-dataset", "%q is read from its source; --input-file is only accepted as a local copy of sharegpt", d.Public)
		}
	}
	if d.HFWekaDataset != "" {
		if d.Public != "" && d.Public != PublicWekaHF {
			p.add("--hf-weka-dataset", "selects --public-dataset weka_hf; it cannot be combined with --public-dataset %s", d.Public)
		}
		if d.CustomType != "" || d.InputFile != "" {
			p.add("--hf-weka-dataset", "cannot be combined with --input-file or --custom-dataset-type")
		}
		if strings.Count(d.HFWekaDataset, "/") != 1 {
			p.add("--hf-weka-dataset", "want a hub dataset repository as ORG/NAME, got %q", d.HFWekaDataset)
		}
	}
	if d.Public == PublicWekaHF && d.HFWekaDataset == "" {
		p.add("--public-dataset", "weka_hf needs --hf-weka-dataset ORG/NAME")
	}
}

// validateFilters checks the hub subset and the public dataset's filters.
func (d *Dataset) validateFilters(p *problems, public PublicDataset) {
	if d.HFSubset != "" && !publicHubDataset(public) {
		p.add("--hf-subset", "only applies to a hub-backed --public-dataset (not %q)", orNone(string(public)))
	}
	if len(d.Filters) > 0 && !contains(publicFilterDatasets, public) {
		p.add("--dataset-filter", "is only supported by public datasets that declare filters (%s), not %q",
			joinChoices(publicFilterDatasets), orNone(string(public)))
	}
	seen := map[string]bool{}
	for _, f := range d.Filters {
		if seen[f.Key] {
			p.add("--dataset-filter", "key %q given twice", f.Key)
		}
		seen[f.Key] = true
	}
}

// validateTraceOptions checks the options only some trace loaders honour.
func (d *Dataset) validateTraceOptions(p *problems, public PublicDataset) {
	if d.MaxContextLength != nil && *d.MaxContextLength < 1 {
		p.add("--max-context-length", "must be >= 1, got %d", *d.MaxContextLength)
	}
	if d.MaxContextLength != nil && ((d.CustomType != "" && d.CustomType != DatasetWekaTrace) ||
		(public != "" && !strings.HasPrefix(string(public), "semianalysis_cc_traces_weka") && public != PublicWekaHF)) {
		p.add("--max-context-length", "is only supported by Weka traces (--custom-dataset-type weka_trace or a Weka --public-dataset)")
	}
	if d.IgnoreTraceDelays && d.UseThinkTimeOnly {
		p.add("--ignore-trace-delays", "cannot be combined with --use-think-time-only (each sets the inter-turn delay differently)")
	}
	if r := d.TraceSessionSampleRatio; r != nil {
		if math.IsNaN(*r) || *r <= 0 || *r > 1 {
			p.add("--trace-session-sample-ratio", "must be in (0, 1], got %v", *r)
		}
		if d.CustomType != "" && d.CustomType != "baseten_trace" {
			p.add("--trace-session-sample-ratio", "is only supported by the baseten_trace loader")
		}
	}
}

// ResolvedPublic is the public dataset the run reads: --public-dataset, or
// weka_hf when only --hf-weka-dataset is given.
func (d *Dataset) ResolvedPublic() PublicDataset {
	if d.Public == "" && d.HFWekaDataset != "" {
		return PublicWekaHF
	}
	return d.Public
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// packsPool reports whether the batch-size flags pack a random_pool file
// (--custom-dataset-type random_pool with --input-file), as AIPerf allows.
func (d *Dataset) packsPool() bool {
	return d.HasFile() && d.CustomType == DatasetRandomPool
}
