package benchmark

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestTraceSynthesisMatchAIPerf replays a mooncake trace (hash-id blocks,
// a multi-turn session, a prompt without hash ids, a text_input line, a
// prefix-only line) through AIPerf 0.13 and through this implementation
// and requires every request body to be identical: the hash-id blocks
// (AIPerf's per-(trace, hash id) generator, the block-separation token:
// Qwen3's EOS, Llama 3's BOS), and the Synthesis flags' reshaping. AIPerf
// writes no inputs.json for traces, so the bodies come from both raw
// exports, matched by conversation and turn.
//
// It needs AIPerf, as TestPublicDatasetsMatchAIPerf (AIPERF_REFERENCE_BIN).
func TestTraceSynthesisMatchAIPerf(t *testing.T) {
	bin := os.Getenv("AIPERF_REFERENCE_BIN")
	if bin == "" {
		t.Skip("set AIPERF_REFERENCE_BIN to AIPerf 0.13's aiperf executable to compare request bodies with it")
	}
	mock := httptest.NewServer(mockserver.New(mockConfig(t, nil)))
	defer mock.Close()
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	writeFile(t, trace, `{"input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3]}
{"session_id": "s1", "input_length": 48, "output_length": 7, "hash_ids": [1, 2, 4]}
{"input_length": 50, "output_length": 3, "hash_ids": [1, 5, 6, 7]}
{"input_length": 20, "output_length": 4}
{"session_id": "s1", "input_length": 70, "output_length": 6, "hash_ids": [1, 2, 4, 8]}
{"text_input": "hello there", "output_length": 2}
{"input_length": 70, "output_length": 9, "hash_ids": [1, 2]}
`)
	// Rows of hash-id prompts only, timed: the loader keeps them as
	// compact rows and builds each conversation when it is sent.
	compact := filepath.Join(t.TempDir(), "compact.jsonl")
	writeFile(t, compact, `{"timestamp": 0, "input_length": 40, "output_length": 5, "hash_ids": [1, 2, 3]}
{"timestamp": 1, "input_length": 48, "output_length": 7, "hash_ids": [1, 2, 4]}
{"timestamp": 2, "input_length": 50, "output_length": 3, "hash_ids": [1, 5, 6, 7]}
{"timestamp": 3, "input_length": 20, "output_length": 4, "hash_ids": [8]}
{"timestamp": 4, "input_length": 70, "output_length": 6, "hash_ids": [1, 2, 4, 9]}
{"timestamp": 5, "input_length": 16, "output_length": 2, "hash_ids": [10]}
{"timestamp": 6, "input_length": 70, "output_length": 9, "hash_ids": [1, 2]}
`)
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name, model string
		args        []string
		syn         config.Synthesis
		trace       string // the shared trace when ""
	}{
		{"compact", "qwen3", nil, config.Synthesis{}, compact},
		{"plain", "qwen3", nil, config.Synthesis{}, ""},
		{"bos", "llama3", nil, config.Synthesis{}, ""},
		{"stretch", "qwen3", []string{"--synthesis-prefix-len-multiplier", "1.5", "--synthesis-prompt-len-multiplier", "2",
			"--synthesis-prefix-root-multiplier", "3", "--synthesis-output-len-multiplier", "1.5", "--synthesis-max-osl", "8"},
			config.Synthesis{PrefixLenMultiplier: f(1.5), PromptLenMultiplier: f(2), PrefixRootMultiplier: ptr(3), OutputLenMultiplier: f(1.5), MaxOSL: ptr(8)}, ""},
		{"squeeze", "llama3", []string{"--synthesis-prefix-len-multiplier", "0.5", "--synthesis-prompt-len-multiplier", "0.7", "--synthesis-max-isl", "60"},
			config.Synthesis{PrefixLenMultiplier: f(0.5), PromptLenMultiplier: f(0.7), MaxISL: ptr(60)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := cmp.Or(tc.trace, trace)
			tokDir := testmodels.Dir(t, tc.model)
			ref := aiperfReference(t, bin, mock.URL, nil, append([]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace",
				"--isl-block-size", "16", "--request-count", "7", "--tokenizer", tokDir, "--export-level", "raw"}, tc.args...)...)
			cfg := referenceConfig(t, mock.URL, tokDir)
			cfg.Input.OutputTokens.Mean = nil
			cfg.Dataset.InputFile, cfg.Dataset.CustomType, cfg.Dataset.BlockSize = trace, "mooncake_trace", ptr(16)
			cfg.Dataset.Synthesis = tc.syn
			cfg.Load.RequestCount = ptr(7)
			cfg.Output.ExportLevel = config.ExportRaw
			if out, err := run(t, t.Context(), cfg); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			want := rawPayloads(t, filepath.Join(ref, "profile_export_raw.jsonl"))
			got := rawPayloads(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_raw.jsonl"))
			if len(want) != 7 || len(got) != len(want) {
				t.Fatalf("%d requests here, %d in AIPerf's raw export", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("request %d differs:\n got  %s\n want %s", i, got[i], want[i])
				}
			}
		})
	}
}

// rawPayloads returns the raw export's requests as "conversation turn
// body" (compact), sorted.
func rawPayloads(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, l := range lines(t, path) {
		var r struct {
			Metadata struct {
				ConversationID string `json:"conversation_id"`
				TurnIndex      int    `json:"turn_index"`
			} `json:"metadata"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		json.Compact(&b, r.Payload)
		out = append(out, r.Metadata.ConversationID+" "+strconv.Itoa(r.Metadata.TurnIndex)+" "+b.String())
	}
	sort.Strings(out)
	return out
}
