package builtin

import (
	"strings"

	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/dataset/public"
	"github.com/aiperf-go/aiperf/internal/plugin"
)

// Dataset categories.
var (
	categoryDatasetComposer = plugin.Category{Name: "dataset_composer", Description: "Dataset composers build the run's " +
		"conversations: synthetic prompts, rankings queries and passages, a custom file, or a public dataset. One per run."}
	categoryCustomDatasetLoader = plugin.Category{Name: "custom_dataset_loader", Description: "Loaders read an --input-file " +
		"of one format (--custom-dataset-type, or detected from the file). One per run."}
	categoryPublicDatasetLoader = plugin.Category{Name: "public_dataset_loader", Description: "Loaders fetch and read a " +
		"public dataset (--public-dataset). One per run."}
	categoryDatasetSampler = plugin.Category{Name: "dataset_sampler", Description: "Samplers choose the order in which " +
		"conversations are handed out (--dataset-sampling-strategy). One per run."}
)

func datasetComposerEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("custom", "Conversations read from --input-file by a custom dataset loader."),
		entry("synthetic", "Prompts cut from the embedded Shakespeare corpus to the drawn token lengths, with optional images, audio and video."),
		entry("synthetic_rankings", "Rankings endpoints' data: per request one query and a drawn number of passages (the Rankings options)."),
		entry("public", "A public dataset fetched from the Hugging Face hub (--public-dataset)."),
	}
}

func customDatasetLoaderEntries() []plugin.Entry {
	out := []plugin.Entry{
		entry("burst_gpt_trace", "BurstGPT request traces: timestamps and token counts."),
		entry("bailian_trace", "Alibaba Bailian traces with hash ids for prefix reuse."),
		entry("baseten_trace", "Baseten completion traces (Parquet): recorded prompts replayed open or closed loop, with min_tokens and KV hints."),
		entry("mooncake_trace", "Mooncake traces: timestamps, lengths and hash_ids blocks, literal text, message arrays with tools, or payloads."),
		entry("raw_payload", "Request bodies sent verbatim, one JSON object per line."),
		entry("inputs_json", "An AIPerf inputs.json: its payloads replayed as they are."),
		entry("dag_jsonl", "DAG conversations: sessions of chat-message turns with fork and spawn branches."),
		entry("sagemaker_data_capture", "Amazon SageMaker data capture: captured chat requests replayed at their inference times."),
		entry("multi_turn", "Conversations of several turns, each with its texts, media and delays."),
		entry("random_pool", "A pool of entries sampled at random for each request."),
		entry("single_turn", "One request per line: text(s), image(s), audio, timestamp or delay, session_id."),
	}
	for _, typ := range loader.SpeedBenchTypes() {
		out = append(out, entry(typ, speedBenchDescription(typ)))
	}
	return append(out,
		entry("tracelab", "TraceLab agentic-coding rounds (JSONL or .gz), replayed as Weka traces from their prefix split."),
		entry("weka_trace", "Weka agent traces: hash-id deltas replayed as growing conversations."),
	)
}

// speedBenchDescription describes one SPEED-Bench type.
func speedBenchDescription(typ string) string {
	rest := strings.TrimPrefix(typ, "speed_bench_")
	switch {
	case rest == "qualitative":
		return "SPEED-Bench qualitative split (qualitative.jsonl), every category."
	case strings.HasPrefix(rest, "throughput_"):
		size, tier, _ := strings.Cut(strings.TrimPrefix(rest, "throughput_"), "_")
		if tier == "" {
			return "SPEED-Bench throughput split of " + size + "-token prompts (throughput_" + size + ".jsonl), every entropy tier."
		}
		return "SPEED-Bench throughput split of " + size + "-token prompts, " + strings.ReplaceAll(tier, "_", " ") + " rows only."
	}
	return "SPEED-Bench qualitative split, " + rest + " rows only."
}

// publicDatasetLoaderEntries lists --public-dataset's registry, with each
// dataset's source.
func publicDatasetLoaderEntries() []plugin.Entry {
	var out []plugin.Entry
	for _, s := range public.Catalog() {
		md := []plugin.Field{{Name: "loader", Value: string(s.Kind)}}
		if s.Repo != "" {
			md = append(md, plugin.Field{Name: "hf_dataset_name", Value: s.Repo})
		}
		if s.Split != "" {
			md = append(md, plugin.Field{Name: "split", Value: s.Split})
		}
		if s.Subset != "" {
			md = append(md, plugin.Field{Name: "subset", Value: s.Subset})
		}
		out = append(out, plugin.Entry{Name: s.Name, Description: s.Description, Metadata: md})
	}
	return out
}

func datasetSamplerEntries() []plugin.Entry {
	return []plugin.Entry{
		entry("random", "Draws conversations uniformly, with replacement."),
		entry("sequential", "Hands conversations out in order, wrapping around."),
		entry("shuffle", "Shuffles the conversations, then hands them out in that order, reshuffling after each pass."),
	}
}
