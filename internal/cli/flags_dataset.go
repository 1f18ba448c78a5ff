package cli

import "github.com/aiperf-go/aiperf/internal/config"

// addDatasetFlags registers the profile flags of config.Dataset (owned by helper
// W1). It sets b.group itself for each flag it adds.
func (b *flagBuilder) addDatasetFlags(cfg *config.Config) {
	d := &cfg.Dataset
	b.group = groupInput
	b.add(&stringValue{recorder: b.rec("input-file"), p: &d.InputFile}, spec{
		name: "input-file", meta: "<path>",
		usage: "File or directory of dataset entries to send instead of synthetic prompts. Its format is --custom-dataset-type, detected from the content when not given. With --public-dataset, a local copy of that dataset.",
	})
	b.add(&choiceValue[config.PublicDataset]{recorder: b.rec("public-dataset"), p: &d.Public, normalize: normalizePublic}, spec{
		name: "public-dataset", meta: "<name>", choices: strs(config.AIPerfPublicDatasets()),
		usage: "Public dataset to benchmark with, with AIPerf's sources and field mappings: hub datasets are read from the Hugging Face hub cache or downloaded into it (HF_HOME, HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE honoured), spec_bench from GitHub. Mutually exclusive with --custom-dataset-type. `aiperf plugins dataset` lists them.",
	})
	b.add(&choiceValue[config.CustomDatasetType]{recorder: b.rec("custom-dataset-type"), p: &d.CustomType, normalize: normalizeChoice[config.CustomDatasetType]}, spec{
		name: "custom-dataset-type", meta: "<type>", choices: strs(config.SupportedCustomDatasetTypes()),
		usage: "Format of --input-file: single_turn and multi_turn (JSONL), random_pool (JSONL file or directory of pools), mooncake_trace and bailian_trace (JSONL traces), burst_gpt_trace (CSV), raw_payload (JSONL request bodies), inputs_json (an inputs.json to replay), weka_trace (Weka agentic trace JSON, a file or directory), tracelab (TraceLab rounds, JSONL or .gz), baseten_trace (Baseten Parquet trace), sagemaker_data_capture (SageMaker data capture JSONL, a file or directory), dag_jsonl (DAG conversations), speed_bench_* (SPEED-Bench splits and categories). Detected from the file when not given. `aiperf plugins dataset` lists every format.",
	})
	b.add(&choiceValue[config.SamplingStrategy]{recorder: b.rec("dataset-sampling-strategy"), p: &d.SamplingStrategy, normalize: normalizeChoice[config.SamplingStrategy]}, spec{
		name: "dataset-sampling-strategy", meta: "<strategy>", choices: strs(config.SamplingStrategies()),
		usage: "Order in which dataset entries are sent. sequential: in order, wrapping around; random: with replacement; shuffle: a random permutation, reshuffled when used up. Default: sequential for synthetic data, files and traces (as AIPerf 0.13), shuffle for random_pool.",
	})
	b.group = groupISL
	b.add(&intPtrValue{recorder: b.rec("prompt-input-tokens-block-size"), p: &d.BlockSize}, spec{
		name: "prompt-input-tokens-block-size", aliases: []string{"synthetic-input-tokens-block-size", "isl-block-size"}, meta: "<tokens>",
		usage: "Tokens per hash_ids block when trace prompts are rebuilt from hash ids: the same hash id always yields the same block, so traces reproduce their KV-cache prefix sharing. A prompt is (len(hash_ids)-1)*block_size tokens plus the final block. Default: the format's (512 for mooncake_trace, 16 for bailian_trace).",
	})
}
