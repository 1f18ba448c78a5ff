// Package public loads the pre-configured public datasets of
// --public-dataset, with AIPerf 0.13's sources and field mappings: each is
// a dataset repository on the HuggingFace hub (read from the hub cache,
// downloaded into it when missing, offline mode honoured) or, for
// spec_bench, a file published on GitHub. Rows become dataset
// conversations exactly as AIPerf's loaders build them.
package public

import (
	"sort"
	"strings"
)

// Kind is the family of loader a public dataset uses.
type Kind string

// Loader families (AIPerf's loader classes).
const (
	KindShareGPT     Kind = "sharegpt"             // ShareGPTLoader
	KindInstruction  Kind = "hf_instruction"       // HFInstructionResponseDatasetLoader
	KindConversation Kind = "hf_conversation"      // HFConversationDatasetLoader
	KindASR          Kind = "hf_asr"               // HFASRDatasetLoader
	KindMMVU         Kind = "mmvu"                 // MMVUDatasetLoader
	KindMTBench      Kind = "mt_bench"             // MTBenchDatasetLoader
	KindSpecBench    Kind = "spec_bench"           // SpecBenchLoader
	KindExgentic     Kind = "exgentic"             // ExgenticDatasetLoader
	KindWeka         Kind = "semianalysis_weka_hf" // SemiAnalysisCCTracesWekaLoader
)

// Spec is one --public-dataset choice: where its rows come from and how
// they map to conversations (AIPerf's plugin metadata).
type Spec struct {
	Name        string
	Description string
	Kind        Kind
	// Repo, Split and Subset locate the rows on the hub; Subset is the
	// default --hf-subset ("" for the dataset's default config). Revision
	// pins a commit ("" follows main).
	Repo, Split, Subset, Revision string
	// Column mapping (instruction and conversation loaders).
	PromptColumn, ImageColumn, VideoColumn, AudioColumn string
	ConversationColumn, ContentKey                      string
	// Template, when set, builds the prompt from the row's columns
	// (Python str.format with the row as keywords).
	Template string
	// Streaming datasets are read only up to the run's request or entry
	// count, as AIPerf streams them.
	Streaming bool
	// Trace datasets replay recorded requests with synthesized prompts.
	Trace     bool
	BlockSize int    // default hash-id block size of a trace dataset
	Corpus    string // default prompt corpus of a trace dataset
	// Filters is true for datasets that accept --dataset-filter;
	// BenchmarkFilter adds its benchmark key.
	Filters, BenchmarkFilter bool
}

const blazeditTemplate = "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\n{code}\n```\n\nChange request:\n{change_request}\n\nPlease generate the new code file in the \"New file\" section below."

// wekaRepos are the SemiAnalysis Claude Code trace corpora registered as
// public datasets (name suffix after "semianalysis_cc_traces_weka").
var wekaRepos = []struct{ suffix, repo string }{
	{"", "cc-traces-weka-no-subagents-051826"},
	{"_no_subagents", "cc-traces-weka-no-subagents-051826"},
	{"_with_subagents", "cc-traces-weka-062126"},
	{"_with_subagents_256k", "cc-traces-weka-062126-256k"},
	{"_with_subagents_060226", "cc-traces-weka-with-subagents-060226"},
	{"_with_subagents_060226_256k", "cc-traces-weka-with-subagents-060226-256k"},
	{"_with_subagents_060526", "cc-traces-weka-with-subagents-060526"},
	{"_with_subagents_060526_256k", "cc-traces-weka-with-subagents-060526-256k"},
	{"_with_subagents_060826", "cc-traces-weka-with-subagents-060826"},
	{"_with_subagents_060826_256k", "cc-traces-weka-with-subagents-060826-256k"},
	{"_061326", "cc-traces-weka-061326"},
	{"_061326_256k", "cc-traces-weka-061326-256k"},
	{"_061526", "cc-traces-weka-061526"},
	{"_061526_256k", "cc-traces-weka-061526-256k"},
	{"_062126", "cc-traces-weka-062126"},
	{"_062126_256k", "cc-traces-weka-062126-256k"},
}

// WekaHF is the generic Weka-trace public dataset whose repository comes
// from --hf-weka-dataset.
const WekaHF = "weka_hf"

// Catalog lists every public dataset, in AIPerf's registration order.
func Catalog() []Spec {
	instr := func(name, desc, repo, split, subset, prompt string) Spec {
		return Spec{Name: name, Description: desc, Kind: KindInstruction, Repo: repo, Split: split, Subset: subset, PromptColumn: prompt}
	}
	asr := func(name, desc, repo, subset string) Spec {
		return Spec{Name: name, Description: desc, Kind: KindASR, Repo: repo, Split: "test", Subset: subset, AudioColumn: "audio", Streaming: true}
	}
	out := []Spec{
		{Name: "exgentic_v2", Description: "Exgentic v2 agent LLM traces: recorded message and tool snapshots replayed with their timing (filters: harness, source_model, benchmark)",
			Kind: KindExgentic, Repo: "Exgentic/agent-llm-traces-v2", Split: "train", Revision: "4b8ad4ab198438e5a170f9171c19c6a2cf7c1814", Streaming: true, Filters: true, BenchmarkFilter: true},
		{Name: "exgentic", Description: "Exgentic agent LLM traces: recorded message and tool snapshots replayed with their output limits and delays (filters: harness, source_model)",
			Kind: KindExgentic, Repo: "Exgentic/agent-llm-traces", Split: "train", Revision: "70036b93a04e61b0ea2706a68b962f4f26774587", Streaming: true, Filters: true},
		{Name: "sharegpt", Description: "ShareGPT conversations (vLLM's length filter), one turn per human/gpt pair", Kind: KindShareGPT,
			Repo: "anon8231489123/ShareGPT_Vicuna_unfiltered"},
		instr("aimo", "NuminaMath-TIR math problems (AIMO)", "AI-MO/NuminaMath-TIR", "train", "", "problem"),
		{Name: "mmstar", Description: "MMStar vision benchmark: question plus its image", Kind: KindInstruction, Repo: "Lin-Chen/MMStar", Split: "val",
			PromptColumn: "question", ImageColumn: "image"},
		{Name: "mmvu", Description: "MMVU video understanding: question and choices plus the video", Kind: KindMMVU, Repo: "yale-nlp/MMVU", Split: "validation", VideoColumn: "video"},
		{Name: "vision_arena", Description: "VisionArena chats: first user message plus its image", Kind: KindConversation, Repo: "lmarena-ai/VisionArena-Chat", Split: "train",
			ConversationColumn: "conversation", ContentKey: "content", ImageColumn: "images", Streaming: true},
		{Name: "llava_onevision", Description: "LLaVA-OneVision (sharegpt4o subset): first human message plus its image", Kind: KindConversation,
			Repo: "lmms-lab/LLaVA-OneVision-Data", Split: "train", Subset: "sharegpt4o", ConversationColumn: "conversations", ContentKey: "value", ImageColumn: "image", Streaming: true},
		instr("aimo_aime", "AIMO validation set of AIME problems", "AI-MO/aimo-validation-aime", "train", "", "problem"),
		instr("aimo_numina_cot", "NuminaMath-CoT math problems", "AI-MO/NuminaMath-CoT", "train", "", "problem"),
		instr("aimo_numina_1_5", "NuminaMath-1.5 math problems", "AI-MO/NuminaMath-1.5", "train", "", "problem"),
		{Name: "spec_bench", Description: "Spec-Bench questions for speculative decoding (first turn of each)", Kind: KindSpecBench},
		instr("spec_al_gsm8k", "GSM8K test questions (speculative-decoding acceptance)", "openai/gsm8k", "test", "main", "question"),
		instr("spec_al_math500", "MATH-500 test problems (speculative-decoding acceptance)", "HuggingFaceH4/MATH-500", "test", "", "problem"),
		instr("spec_al_humaneval", "HumanEval prompts (speculative-decoding acceptance)", "openai/openai_humaneval", "test", "", "prompt"),
		instr("spec_al_mbpp", "MBPP test tasks (speculative-decoding acceptance)", "google-research-datasets/mbpp", "test", "full", "text"),
		{Name: "spec_al_mtbench", Description: "MT-Bench prompts, each row a multi-turn conversation", Kind: KindMTBench, Repo: "HuggingFaceH4/mt_bench_prompts", Split: "train"},
		instr("instruct_coder", "InstructCoder code-editing instructions", "likaixin/InstructCoder", "train", "", "instruction"),
		{Name: "blazedit_5k", Description: "BlazEdit code edits up to 5k characters (code plus change request)", Kind: KindInstruction, Repo: "vdaita/edit_5k_char", Split: "train",
			PromptColumn: "change_request", Template: blazeditTemplate},
		{Name: "blazedit_10k", Description: "BlazEdit code edits up to 10k characters (code plus change request)", Kind: KindInstruction, Repo: "vdaita/edit_10k_char", Split: "train",
			PromptColumn: "change_request", Template: blazeditTemplate},
		asr("librispeech", "LibriSpeech test-clean speech (ASR)", "openslr/librispeech_asr", "clean"),
		asr("voxpopuli", "VoxPopuli English test speech (ASR)", "facebook/voxpopuli", "en"),
		asr("gigaspeech", "GigaSpeech XS test speech (ASR; gated)", "speechcolab/gigaspeech", "xs"),
		asr("ami", "AMI meeting speech, individual headset mics (ASR)", "edinburghcstr/ami", "ihm"),
		asr("spgispeech", "SPGISpeech financial speech (ASR; gated)", "kensho/spgispeech", "test"),
	}
	for _, w := range wekaRepos {
		desc := "SemiAnalysis Claude Code agentic traces (" + w.repo + "), replayed as Weka traces"
		out = append(out, wekaSpec("semianalysis_cc_traces_weka"+w.suffix, desc, "semianalysisai/"+w.repo))
	}
	out = append(out, wekaSpec(WekaHF, "any Weka-format trace dataset on the hub, named with --hf-weka-dataset", ""))
	return out
}

func wekaSpec(name, desc, repo string) Spec {
	return Spec{Name: name, Description: desc, Kind: KindWeka, Repo: repo, Split: "train", Trace: true, BlockSize: 64, Corpus: "coding"}
}

// Lookup returns the spec named name.
func Lookup(name string) (Spec, bool) {
	for _, s := range Catalog() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Names lists the public dataset names, in registration order.
func Names() []string {
	c := Catalog()
	out := make([]string, len(c))
	for i, s := range c {
		out[i] = s.Name
	}
	return out
}

// SortedNames lists the names alphabetically, for messages.
func SortedNames() string {
	n := Names()
	sort.Strings(n)
	return strings.Join(n, ", ")
}
