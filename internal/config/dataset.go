package config

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
}

// CustomDatasetType is a file format for --input-file. Values are AIPerf's
// snake_case enum values.
type CustomDatasetType string

// Custom dataset formats. The first eight are implemented; the rest are
// AIPerf's remaining choices, accepted by the parser so that Validate can say
// "not supported yet".
const (
	DatasetSingleTurn    CustomDatasetType = "single_turn"
	DatasetMultiTurn     CustomDatasetType = "multi_turn"
	DatasetRandomPool    CustomDatasetType = "random_pool"
	DatasetMooncakeTrace CustomDatasetType = "mooncake_trace"
	DatasetInputsJSON    CustomDatasetType = "inputs_json"
	DatasetRawPayload    CustomDatasetType = "raw_payload"
	DatasetBailianTrace  CustomDatasetType = "bailian_trace"
	DatasetBurstGPTTrace CustomDatasetType = "burst_gpt_trace"
)

// SupportedCustomDatasetTypes lists the formats this implementation reads.
func SupportedCustomDatasetTypes() []CustomDatasetType {
	return []CustomDatasetType{
		DatasetSingleTurn, DatasetMultiTurn, DatasetRandomPool, DatasetMooncakeTrace,
		DatasetInputsJSON, DatasetRawPayload, DatasetBailianTrace, DatasetBurstGPTTrace,
	}
}

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
	return append(list, "tracelab", "weka_trace")
}

// Supported reports whether t can be read by this implementation.
func (t CustomDatasetType) Supported() bool { return contains(SupportedCustomDatasetTypes(), t) }

// Known reports whether t is one of AIPerf's formats.
func (t CustomDatasetType) Known() bool { return contains(AIPerfCustomDatasetTypes(), t) }

// PublicDataset names a --public-dataset.
type PublicDataset string

// PublicShareGPT is the only public dataset implemented.
const PublicShareGPT PublicDataset = "sharegpt"

// AIPerfPublicDatasets lists AIPerf 0.13's --public-dataset choices (the
// date-pinned weka aliases aside).
func AIPerfPublicDatasets() []PublicDataset {
	return []PublicDataset{
		"exgentic_v2", "exgentic", PublicShareGPT, "aimo", "mmstar", "mmvu", "vision_arena",
		"llava_onevision", "aimo_aime", "aimo_numina_cot", "aimo_numina_1_5", "spec_bench",
		"spec_al_gsm8k", "spec_al_math500", "spec_al_humaneval", "spec_al_mbpp",
		"spec_al_mtbench", "instruct_coder", "blazedit_5k", "blazedit_10k", "librispeech",
		"voxpopuli", "gigaspeech", "ami", "spgispeech", "semianalysis_cc_traces_weka", "weka_hf",
	}
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
// --public-dataset rather than being synthetic.
func (d *Dataset) FromFile() bool { return d.InputFile != "" || d.Public != "" }

// validateDataset checks the dataset options and their cross-flag rules.
func (c *Config) validateDataset(p *problems) {
	d := &c.Dataset
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
		if d.InputFile == "" {
			p.add("--custom-dataset-type", "requires --input-file")
		}
	}
	if d.Public != "" {
		switch {
		case d.Public == PublicShareGPT:
		case contains(AIPerfPublicDatasets(), d.Public):
			p.add("--public-dataset", "%q is not supported yet (supported: %s)", d.Public, PublicShareGPT)
		default:
			p.add("--public-dataset", "invalid choice %q (supported: %s)", d.Public, PublicShareGPT)
		}
		if d.CustomType != "" {
			p.add("--public-dataset", "cannot be combined with --custom-dataset-type")
		}
	}
	if d.SamplingStrategy != "" && !contains(SamplingStrategies(), d.SamplingStrategy) {
		p.add("--dataset-sampling-strategy", "invalid choice %q (want %s)",
			d.SamplingStrategy, joinChoices(SamplingStrategies()))
	}
	if d.BlockSize != nil && *d.BlockSize < 1 {
		p.add("--isl-block-size", "must be at least 1, got %d", *d.BlockSize)
	}
}
