package benchmark

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/agenticcode"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestRunSynthesizedAgenticCode replays what `aiperf synthesize
// agentic-code` writes against the mock (with millisecond delays, which
// mooncake replay honours): every row of dataset.jsonl is a
// request, each session's turns carry the history (so later requests are
// longer than their own new tokens), and max_tokens is the row's
// output_length.
func TestRunSynthesizedAgenticCode(t *testing.T) {
	t.Parallel()
	cfgFile := filepath.Join(t.TempDir(), "small.json")
	os.WriteFile(cfgFile, []byte(`{
  "new_tokens_per_turn": {"mean": 300, "median": 250, "max": 600},
  "generation_length": {"mean": 40, "median": 30, "max": 60},
  "inter_turn_delay": {"agentic_fraction": 1.0, "agentic_delay": {"mean": 3, "median": 2, "max": 5}, "human_delay": {"mean": 3, "median": 2, "max": 5}},
  "max_prompt_tokens": 6000,
  "cache": {"layer1_tokens": 1024, "layer1_5_tokens": 512, "layer2": {"mean": 600, "median": 500, "max": 1500},
            "layer1_5_groups": {"num_groups": 2, "zipf_alpha": 1.0}}
}`), 0o644)
	res, err := agenticcode.Synthesize(agenticcode.Options{Sessions: 3, Seed: 11, Output: t.TempDir(), Config: cfgFile})
	if err != nil {
		t.Fatal(err)
	}
	url, bodies, _ := fileRecordingMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Tokenizer.Name = "builtin"
	cfg.Input.OutputTokens.Mean = nil
	cfg.Dataset.InputFile = filepath.Join(res.Dir, "dataset.jsonl")
	cfg.Dataset.CustomType = config.CustomDatasetType("mooncake_trace")
	cfg.Replay.NoFixedSchedule = true
	cfg.Load.RequestCount = ptr(res.Turns)
	cfg.Load.Concurrency = ptr(1)
	cfg.Dataset.SamplingStrategy = config.SamplingSequential
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	got := bodies()
	if len(got) != res.Turns {
		t.Fatalf("%d requests; dataset.jsonl has %d rows", len(got), res.Turns)
	}
	outputs := map[float64]int{}
	for _, s := range res.Sessions {
		for _, tu := range s.Turns {
			outputs[float64(tu.Output)]++
		}
	}
	multi := 0
	for _, b := range got {
		mt, _ := b["max_completion_tokens"].(float64)
		if mt == 0 {
			mt, _ = b["max_tokens"].(float64)
		}
		if outputs[mt] == 0 {
			t.Errorf("max tokens %v is no row's output_length", mt)
		}
		outputs[mt]--
		if msgs, _ := b["messages"].([]any); len(msgs) > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Errorf("no request carried a session's history:\n%v", got[0])
	}
	for k, v := range outputs {
		if v != 0 {
			t.Errorf("output_length %v: %d rows unmatched", k, v)
		}
	}
}

// TestSynthesizedAgenticCodeMatchesAIPerf replays one `aiperf synthesize
// agentic-code` dataset (two sessions, groups, millisecond delays)
// through AIPerf 0.13 and through this implementation and requires every
// request body to be identical (the raw exports, matched by conversation
// and turn). It needs AIPerf (AIPERF_REFERENCE_BIN), as
// TestTraceSynthesisMatchAIPerf. The sessions are kept under ten hash-id
// rows: from ten on, AIPerf 0.13 decodes prompts in a process pool whose
// workers cannot load a tokenizer given as a local directory.
func TestSynthesizedAgenticCodeMatchesAIPerf(t *testing.T) {
	bin := os.Getenv("AIPERF_REFERENCE_BIN")
	if bin == "" {
		t.Skip("set AIPERF_REFERENCE_BIN to AIPerf 0.13's aiperf executable to compare request bodies with it")
	}
	cfgFile := filepath.Join(t.TempDir(), "tiny.json")
	os.WriteFile(cfgFile, []byte(`{
  "new_tokens_per_turn": {"mean": 60, "median": 50, "max": 120},
  "generation_length": {"mean": 8, "median": 6, "max": 12},
  "inter_turn_delay": {"agentic_fraction": 1.0, "agentic_delay": {"mean": 3, "median": 2, "max": 5}, "human_delay": {"mean": 3, "median": 2, "max": 5}},
  "max_prompt_tokens": 420,
  "block_size": 16,
  "cache": {"layer1_tokens": 64, "layer1_5_tokens": 32, "layer2": {"mean": 80, "median": 60, "max": 200},
            "layer1_5_groups": {"num_groups": 2, "zipf_alpha": 1.0}}
}`), 0o644)
	res, err := agenticcode.Synthesize(agenticcode.Options{Sessions: 2, Seed: 5, Output: t.TempDir(), Config: cfgFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns >= 10 {
		t.Fatalf("%d rows; AIPerf needs fewer than 10 here", res.Turns)
	}
	trace := filepath.Join(res.Dir, "dataset.jsonl")
	mock := httptest.NewServer(mockserver.New(mockConfig(t, nil)))
	defer mock.Close()
	tokDir := testmodels.Dir(t, "qwen3")
	n := strconv.Itoa(res.Turns)
	ref := aiperfReference(t, bin, mock.URL, nil, "--input-file", trace, "--custom-dataset-type", "mooncake_trace",
		"--isl-block-size", "16", "--request-count", n, "--tokenizer", tokDir, "--export-level", "raw")
	cfg := referenceConfig(t, mock.URL, tokDir)
	cfg.Input.OutputTokens.Mean = nil
	cfg.Dataset.InputFile, cfg.Dataset.CustomType, cfg.Dataset.BlockSize = trace, "mooncake_trace", ptr(16)
	cfg.Load.RequestCount = ptr(res.Turns)
	cfg.Output.ExportLevel = config.ExportRaw
	if out, err := run(t, t.Context(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	want := rawPayloads(t, filepath.Join(ref, "profile_export_raw.jsonl"))
	got := rawPayloads(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_raw.jsonl"))
	if len(want) != res.Turns || len(got) != len(want) {
		t.Fatalf("%d requests here, %d in AIPerf's raw export, %d rows", len(got), len(want), res.Turns)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d differs:\n got  %.600s\n want %.600s", i, got[i], want[i])
		}
	}
}
