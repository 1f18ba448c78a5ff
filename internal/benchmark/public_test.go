package benchmark

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/dataset/loader"
	"github.com/aiperf-go/aiperf/internal/dataset/public"
)

// publicFixtureHub is the hub cache of public dataset fixtures
// (internal/dataset/public/testdata/gen_hub.py).
var publicFixtureHub = filepath.Join("..", "dataset", "public", "testdata", "hub")

// TestRunPublicDatasets runs every --public-dataset end to end against the
// mock server, offline from the fixture hub cache: each run must send its
// requests, and the bodies must carry what the dataset is about (an
// image, an audio clip, a video, a recorded message array).
func TestRunPublicDatasets(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", publicFixtureHub)
	t.Setenv("HF_HUB_OFFLINE", "1")
	specDir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "dataset", "public", "testdata", "spec_bench", "question.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(specDir, "spec_bench.jsonl"), data, 0o644)
	t.Setenv("AIPERF_DATASET_CACHE_DIR", specDir)

	markers := map[public.Kind]string{
		public.KindASR:      `"input_audio":{"data":`,
		public.KindMMVU:     `"video_url":{"url":"https://huggingface.co/datasets/yale-nlp/MMVU/`,
		public.KindExgentic: `"role":"system","content":"You are a careful agent."`,
		public.KindWeka:     `"messages":[{"role":"system","content":`,
	}
	for _, s := range public.Catalog() {
		t.Run(s.Name, func(t *testing.T) {
			url, bodies, raws := fileRecordingMock(t)
			cfg := baseConfig(t, url)
			cfg.Endpoint.Streaming = false
			cfg.Tokenizer.Name = "builtin"
			cfg.Input.OutputTokens.Mean = nil
			cfg.Dataset.Public = config.PublicDataset(s.Name)
			if s.Name == public.WekaHF {
				cfg.Dataset.HFWekaDataset = "semianalysisai/cc-traces-weka-061526"
			}
			cfg.Load.RequestCount = ptr(2)
			cfg.Load.Concurrency = ptr(1)
			if s.Kind == public.KindWeka || s.Kind == public.KindExgentic {
				cfg.Dataset.IgnoreTraceDelays = true
			}
			if out, err := run(t, context.Background(), cfg); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			got := raws()
			if len(got) != 2 || len(bodies()) != 2 {
				t.Fatalf("%d requests; want 2", len(got))
			}
			want := markers[s.Kind]
			switch {
			case s.ImageColumn != "":
				want = `"image_url":{"url":"data:image/jpeg;base64,`
			case want == "":
				want = `"messages":[{"role":"user","content":"`
			}
			if !strings.Contains(got[0], want) {
				t.Errorf("first body lacks %s:\n%.300s", want, got[0])
			}
		})
	}
}

// TestRunCustomDatasetTypes runs every custom dataset type that has no
// end-to-end run elsewhere against the mock, from its fixture
// (internal/dataset/testdata/formats), with the type detected or given.
func TestRunCustomDatasetTypes(t *testing.T) {
	t.Parallel()
	fx := func(p string) string { return filepath.Join("..", "dataset", "testdata", "formats", p) }
	cases := []struct {
		typ, path, marker string
	}{
		{"weka_trace", fx("weka"), `"messages":[{"role":"system","content":`},
		{"tracelab", fx("tracelab.jsonl.gz"), `"messages":[{"role":"user","content":`},
		{"baseten_trace", fx("baseten.parquet"), `"min_tokens":1`},
		{"sagemaker_data_capture", fx("capture"), `"messages":[{"role":"system","content":"Be brief."}`},
		{"dag_jsonl", fx("dag.jsonl"), `{"role":"user","content":"Plan the work."}`},
		{"mooncake_trace", fx("mooncake_messages.jsonl"), `"tools":[{"type":"function","function":{"name":"t"}}]`},
	}
	for _, typ := range loader.SpeedBenchTypes() {
		file := "qualitative.jsonl"
		if strings.Contains(typ, "throughput_") {
			size := strings.Split(strings.TrimPrefix(typ, "speed_bench_throughput_"), "_")[0]
			file = "throughput_" + size + ".jsonl"
		}
		cases = append(cases, struct{ typ, path, marker string }{typ, fx("speedbench/" + file), `"messages":[{"role":`})
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			url, _, raws := fileRecordingMock(t)
			cfg := baseConfig(t, url)
			cfg.Endpoint.Streaming = false
			cfg.Tokenizer.Name = "builtin"
			cfg.Input.OutputTokens.Mean = nil
			cfg.Dataset.InputFile = c.path
			cfg.Dataset.CustomType = config.CustomDatasetType(c.typ)
			cfg.Dataset.IgnoreTraceDelays = c.typ == "weka_trace" || c.typ == "tracelab"
			cfg.Replay.NoFixedSchedule = true
			cfg.Load.RequestCount = ptr(1)
			cfg.Load.Concurrency = ptr(1)
			if out, err := run(t, context.Background(), cfg); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			got := raws()
			if len(got) != 1 || !strings.Contains(got[0], c.marker) {
				t.Fatalf("%d requests; the first lacks %s:\n%.400s", len(got), c.marker, strings.Join(got, "\n"))
			}
		})
	}
}
