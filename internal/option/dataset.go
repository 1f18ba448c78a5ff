package option

import (
	"github.com/aiperf-go/aiperf/internal/config"
)

// inputFileOptions lists the options from --input-file on, in help order.
func inputFileOptions() []Option {
	return []Option{
		{Name: "input-file",
			Group: GroupInput,
			Meta:  "<path>",
			Usage: "File or directory of dataset entries to send instead of synthetic prompts. Its format is --custom-dataset-type, detected from the content when not given. With --public-dataset, a local copy of that dataset.",
			Bind:  func(c *config.Config) any { return &c.Dataset.InputFile },
			Keys:  []Key{{Path: "benchmark.datasets.0.path", Doc: "type: file - the file or directory of dataset entries."}}},
		{Name: "public-dataset",
			Group:     GroupInput,
			Meta:      "<name>",
			Choices:   strs(config.AIPerfPublicDatasets()),
			Usage:     "Public dataset to benchmark with, with AIPerf's sources and field mappings: hub datasets are read from the Hugging Face hub cache or downloaded into it (HF_HOME, HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE honoured), spec_bench from GitHub. Mutually exclusive with --custom-dataset-type. `aiperf plugins dataset` lists them.",
			Bind:      func(c *config.Config) any { return &c.Dataset.Public },
			Normalize: normalizePublic,
			Keys:      []Key{{Path: "benchmark.datasets.0.dataset", Conv: ConvChoice, Doc: "type: public - the public dataset's name (aimo, librispeech, sharegpt, ...; `aiperf plugins dataset` lists them)."}}},
		{Name: "custom-dataset-type",
			Group:   GroupInput,
			Meta:    "<type>",
			Choices: strs(config.SupportedCustomDatasetTypes()),
			Usage:   "Format of --input-file: single_turn and multi_turn (JSONL), random_pool (JSONL file or directory of pools), mooncake_trace and bailian_trace (JSONL traces), burst_gpt_trace (CSV), raw_payload (JSONL request bodies), inputs_json (an inputs.json to replay), weka_trace (Weka agentic trace JSON, a file or directory), tracelab (TraceLab rounds, JSONL or .gz), baseten_trace (Baseten Parquet trace), sagemaker_data_capture (SageMaker data capture JSONL, a file or directory), dag_jsonl (DAG conversations), speed_bench_* (SPEED-Bench splits and categories). Detected from the file when not given. `aiperf plugins dataset` lists every format.",
			Bind:    func(c *config.Config) any { return &c.Dataset.CustomType },
			Keys:    []Key{{Path: "benchmark.datasets.0.format", Conv: ConvChoice, Doc: "type: file - single_turn, multi_turn, random_pool, mooncake_trace, ...; detected when absent."}}},
		{Name: "dataset-sampling-strategy",
			Group:   GroupInput,
			Meta:    "<strategy>",
			Choices: strs(config.SamplingStrategies()),
			Usage:   "Order in which dataset entries are sent. sequential: in order, wrapping around; random: with replacement; shuffle: a random permutation, reshuffled when used up. Default: sequential for synthetic data, files and traces (as AIPerf 0.13), shuffle for random_pool.",
			Bind:    func(c *config.Config) any { return &c.Dataset.SamplingStrategy },
			Keys:    []Key{{Path: "benchmark.datasets.0.sampling", Conv: ConvChoice, Doc: "Order entries are handed out: sequential, random or shuffle."}}},
		{Name: "prompt-input-tokens-block-size",
			Aliases: []string{"synthetic-input-tokens-block-size", "isl-block-size"},
			Group:   GroupISL,
			Meta:    "<tokens>",
			Usage:   "Tokens per hash_ids block when trace prompts are rebuilt from hash ids: the same hash id always yields the same block, so traces reproduce their KV-cache prefix sharing. A prompt is (len(hash_ids)-1)*block_size tokens plus the final block. Default: the format's (512 for mooncake_trace, 16 for bailian_trace).",
			Bind:    func(c *config.Config) any { return &c.Dataset.BlockSize },
			Keys:    []Key{{Path: "benchmark.datasets.0.prompts.block_size", Doc: "Tokens per hash_ids block of trace formats."}}},
	}
}
