package benchmark

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestPromptFlagsMatchAIPerf runs the prompt-source flags through AIPerf
// 0.13 and through this implementation against the same mock and requires
// identical inputs.json bodies: --random-range-ratio in both styles (a
// tokenizer that adds a BOS token, so the special-token accounting shows)
// and in its two-ratio form, and the verbatim system prompt on a synthetic
// and on a file dataset, where --osl fills the turns' max tokens; and
// --cache-bust's shortening of synthetic prompts by the marker's token
// cost (inputs.json holds the bodies before any marker is injected).
//
// It needs AIPerf, as TestPublicDatasetsMatchAIPerf (AIPERF_REFERENCE_BIN).
func TestPromptFlagsMatchAIPerf(t *testing.T) {
	bin := os.Getenv("AIPERF_REFERENCE_BIN")
	if bin == "" {
		t.Skip("set AIPERF_REFERENCE_BIN to AIPerf 0.13's aiperf executable to compare inputs.json with it")
	}
	mock := httptest.NewServer(mockserver.New(mockConfig(t, nil)))
	defer mock.Close()
	dir := t.TempDir()
	sysFile := filepath.Join(dir, "system.txt")
	data := filepath.Join(dir, "prompts.jsonl")
	writeFile(t, sysFile, "You review code.\nAnswer in one line.\n")
	writeFile(t, data, `{"text": "What is a mutex?"}`+"\n"+`{"text": "Name two sorting algorithms.", "output_length": 12}`+"\n"+`{"text": "Why is the sky blue?"}`+"\n")
	for _, tc := range []struct {
		name, model string
		args        []string
		set         func(*config.Config)
	}{
		{"range_ratio_vllm", "llama3", []string{"--isl", "64", "--osl", "32", "--random-range-ratio", "0.5"}, func(c *config.Config) {
			c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 64, ptr(32)
			c.Prompt.RandomRangeRatio = &config.RangeRatio{Input: 0.5, Output: 0.5}
		}},
		{"range_ratio_pair", "qwen3", []string{"--isl", "48", "--osl", "20", "--random-range-ratio", `{"input": 0.2, "output": 0.7}`}, func(c *config.Config) {
			c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 48, ptr(20)
			c.Prompt.RandomRangeRatio = &config.RangeRatio{Input: 0.2, Output: 0.7, Pair: true}
		}},
		{"range_ratio_sglang", "llama3", []string{"--isl", "40", "--osl", "16", "--random-range-ratio", "0.4", "--random-corpus-style", "sglang"}, func(c *config.Config) {
			c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 40, ptr(16)
			c.Prompt.RandomRangeRatio = &config.RangeRatio{Input: 0.4, Output: 0.4}
			c.Prompt.RandomCorpusStyle = "sglang"
		}},
		{"system_prompt", "qwen3", []string{"--isl", "32", "--osl", "8", "--system-prompt", "You are a terse assistant."}, func(c *config.Config) {
			c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 32, ptr(8)
			c.Prompt.SystemPrompt = "You are a terse assistant."
		}},
		{"cache_bust_first_turn", "qwen3", []string{"--isl", "64", "--osl", "8", "--cache-bust", "first_turn_prefix"}, func(c *config.Config) {
			c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 64, ptr(8)
			c.Prompt.CacheBust = "first_turn_prefix"
		}},
		{"cache_bust_shared_system", "llama3", []string{"--isl", "32", "--osl", "8", "--shared-system-prompt-length", "40", "--cache-bust", "system_suffix"}, func(c *config.Config) {
			c.Input.InputTokens.Mean, c.Input.OutputTokens.Mean = 32, ptr(8)
			c.Prompt.SharedSystemLength = ptr(40)
			c.Prompt.CacheBust = "system_suffix"
		}},
		{"system_prompt_file_dataset", "qwen3", []string{"--input-file", data, "--custom-dataset-type", "single_turn", "--system-prompt-file", sysFile, "--osl", "24", "--osl-stddev", "4"}, func(c *config.Config) {
			c.Dataset.InputFile, c.Dataset.CustomType = data, config.DatasetSingleTurn
			c.Input.OutputTokens.Mean, c.Input.OutputTokens.Stddev = ptr(24), 4
			c.Prompt.SystemPromptFile = sysFile
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tokDir := testmodels.Dir(t, tc.model)
			ref := aiperfReference(t, bin, mock.URL, nil, append(tc.args, "--request-count", "4", "--tokenizer", tokDir)...)
			cfg := referenceConfig(t, mock.URL, tokDir)
			cfg.Load.RequestCount = ptr(4)
			tc.set(cfg)
			compareInputs(t, ref, cfg)
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
