package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
)

func TestDatasetFlags(t *testing.T) {
	t.Parallel()
	cfg := profile(t, "-m", "m", "--input-file", "data.jsonl", "--custom-dataset-type", "mooncake-trace",
		"--dataset-sampling-strategy", "random", "--isl-block-size", "16")
	d := cfg.Dataset
	if d.InputFile != "data.jsonl" || d.CustomType != "mooncake_trace" || d.SamplingStrategy != "random" || d.BlockSize == nil || *d.BlockSize != 16 {
		t.Errorf("dataset = %+v", d)
	}
	cfg = profile(t, "-m", "m", "--public-dataset", "sharegpt", "--synthetic-input-tokens-block-size", "8")
	if cfg.Dataset.Public != "sharegpt" || *cfg.Dataset.BlockSize != 8 {
		t.Errorf("dataset = %+v", cfg.Dataset)
	}
	// AIPerf's help spells the public datasets in kebab case.
	if cfg = profile(t, "-m", "m", "--public-dataset", "spec-al-gsm8-k", "--hf-subset", "socratic"); cfg.Dataset.Public != "spec_al_gsm8k" || cfg.Dataset.HFSubset != "socratic" {
		t.Errorf("dataset = %+v", cfg.Dataset)
	}
	cfg = profile(t, "-m", "m", "--public-dataset", "exgentic", "--dataset-filter", "harness=claude_code", "--dataset-filter", "source_model=gpt-4.1",
		"--ignore-trace-delays", "--allow-dataset-wrap", "--trace-session-sample-ratio", "0.5")
	d = cfg.Dataset
	if len(d.Filters) != 2 || d.Filters[1] != (config.KeyValue{Key: "source_model", Value: "gpt-4.1"}) || !d.IgnoreTraceDelays ||
		!d.AllowDatasetWrap || *d.TraceSessionSampleRatio != 0.5 {
		t.Errorf("dataset = %+v", d)
	}
	cfg = profile(t, "-m", "m", "--input-file", "traces", "--custom-dataset-type", "weka_trace", "--use-think-time-only", "--max-context-length", "1000")
	if d = cfg.Dataset; !d.UseThinkTimeOnly || *d.MaxContextLength != 1000 {
		t.Errorf("dataset = %+v", d)
	}
	if cfg = profile(t, "-m", "m", "--hf-weka-dataset", "org/traces"); cfg.Dataset.ResolvedPublic() != config.PublicWekaHF {
		t.Errorf("--hf-weka-dataset alone resolves to %q", cfg.Dataset.ResolvedPublic())
	}
}

func TestDatasetFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--custom-dataset-type", "single_turn"}, "requires --input-file"},
		{[]string{"--input-file", "f", "--custom-dataset-type", "nope"}, "invalid choice"},
		{[]string{"--public-dataset", "weka_hf"}, "needs --hf-weka-dataset"},
		{[]string{"--public-dataset", "nope"}, "invalid choice"},
		{[]string{"--hf-subset", "x"}, "--hf-subset: only applies"},
		{[]string{"--dataset-filter", "novalue"}, "want key=value"},
		{[]string{"--public-dataset", "sharegpt", "--input-file", "f", "--custom-dataset-type", "single_turn"}, "cannot be combined"},
		{[]string{"--dataset-sampling-strategy", "fifo"}, "invalid choice"},
		{[]string{"--isl-block-size", "0"}, "at least 1"},
	} {
		r := runMain(t, context.Background(), nil, append([]string{"profile", "-m", "m"}, tt.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

func TestAnalyzeTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(in, []byte(`{"timestamp":0,"input_length":40,"output_length":4,"hash_ids":[1,2,3]}`+"\n"+
		`{"timestamp":100,"input_length":30,"output_length":6,"hash_ids":[1,2,5]}`+"\n"+`{"input_length":7}`+"\n"), 0o644)
	out := filepath.Join(dir, "report", "a.json")
	r := runMain(t, context.Background(), nil, "analyze-trace", "--input-file", in, "--block-size", "16", "--output-file", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"Total requests:   3", "Unique prefixes:  4", "Context Length", "Theoretical Hit Rates"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m["unique_prefixes"] != 4.0 || m["num_prefix_groups"] != 1.0 {
		t.Errorf("report = %s (%v)", data, err)
	}
	r = runMain(t, context.Background(), nil, "analyze-trace", "--input-file", filepath.Join(dir, "missing.jsonl"))
	if r.code == 0 || !strings.Contains(r.stderr, "missing.jsonl") {
		t.Errorf("missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestAnalyzeTracePositional checks AIPerf's positional form,
// INPUT-FILE [BLOCK-SIZE [OUTPUT-FILE]], gives the same report as the
// flags, and that a parameter given both ways or no input file is an error.
func TestAnalyzeTracePositional(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(in, []byte(`{"timestamp":0,"input_length":40,"output_length":4,"hash_ids":[1,2,3]}`+"\n"+
		`{"timestamp":100,"input_length":30,"output_length":6,"hash_ids":[1,2,5]}`+"\n"), 0o644)
	flagOut, posOut := filepath.Join(dir, "flags.json"), filepath.Join(dir, "pos.json")
	byFlags := runMain(t, context.Background(), nil, "analyze-trace", "--input-file", in, "--block-size", "16", "--output-file", flagOut)
	byPos := runMain(t, context.Background(), nil, "analyze-trace", in, "16", posOut)
	if byFlags.code != 0 || byPos.code != 0 {
		t.Fatalf("exit %d / %d: %s %s", byFlags.code, byPos.code, byFlags.stderr, byPos.stderr)
	}
	a, _ := os.ReadFile(flagOut)
	b, _ := os.ReadFile(posOut)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("positional report differs from the flags':\n%s\n%s", a, b)
	}
	if r := runMain(t, context.Background(), nil, "analyze-trace", in); r.code != 0 || !strings.Contains(r.stdout, "Total requests:   2") {
		t.Errorf("input file alone: exit %d, %s", r.code, r.stderr)
	}
	for _, bad := range [][]string{{in, "--input-file", in}, {in, "x"}, {}} {
		if r := runMain(t, context.Background(), nil, append([]string{"analyze-trace"}, bad...)...); r.code == 0 {
			t.Errorf("analyze-trace %q: exit 0, want an error", bad)
		}
	}
}
