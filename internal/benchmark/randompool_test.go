package benchmark

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/tokenizer/testmodels"
)

// TestRunPackedRandomPool: random_pool with -b 3 against the mock sends
// three pooled texts in every request, as AIPerf packs them.
func TestRunPackedRandomPool(t *testing.T) {
	t.Parallel()
	pool := filepath.Join(t.TempDir(), "pool.jsonl")
	os.WriteFile(pool, []byte("{\"text\":\"alpha\"}\n{\"texts\":[\"beta\",\"gamma\"]}\n{\"text\":\"delta\"}\n"), 0o644)
	url, _, raws := fileRecordingMock(t)
	cfg := baseConfig(t, url)
	cfg.Endpoint.Streaming = false
	cfg.Tokenizer.Name = "builtin"
	cfg.Dataset.InputFile = pool
	cfg.Dataset.CustomType = config.DatasetRandomPool
	cfg.Prompt.BatchSize = 3
	cfg.Load.RequestCount = ptr(4)
	cfg.Load.Concurrency = ptr(1)
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	got := raws()
	if len(got) != 4 {
		t.Fatalf("%d requests", len(got))
	}
	for _, b := range got {
		n := 0
		for _, w := range []string{"alpha", "beta", "gamma", "delta"} {
			n += strings.Count(b, w)
		}
		if n != 3 {
			t.Errorf("request packs %d pooled texts; want 3:\n%s", n, b)
		}
	}
}

// TestRandomPoolMatchesAIPerf runs a random_pool file through AIPerf 0.13
// and here, one entry per request and packed (-b 3), and requires
// identical inputs.json bodies: the draws come from AIPerf's generator
// for the pool. It needs AIPerf (AIPERF_REFERENCE_BIN).
func TestRandomPoolMatchesAIPerf(t *testing.T) {
	bin := os.Getenv("AIPERF_REFERENCE_BIN")
	if bin == "" {
		t.Skip("set AIPERF_REFERENCE_BIN to AIPerf 0.13's aiperf executable to compare request bodies with it")
	}
	pool := filepath.Join(t.TempDir(), "pool.jsonl")
	os.WriteFile(pool, []byte("{\"text\":\"alpha one\"}\n{\"texts\":[\"beta two\",\"gamma three\"]}\n{\"text\":\"delta four\"}\n{\"text\":\"epsilon five\"}\n"), 0o644)
	mock := httptest.NewServer(mockserver.New(mockConfig(t, nil)))
	defer mock.Close()
	tokDir := testmodels.Dir(t, "qwen3")
	for _, b := range []int{1, 3} {
		t.Run("b"+strconv.Itoa(b), func(t *testing.T) {
			ref := aiperfReference(t, bin, mock.URL, nil, "--input-file", pool, "--custom-dataset-type", "random_pool",
				"--prompt-batch-size", strconv.Itoa(b), "--request-count", "6", "--num-dataset-entries", "6", "--tokenizer", tokDir)
			cfg := referenceConfig(t, mock.URL, tokDir)
			cfg.Input.OutputTokens.Mean = nil
			cfg.Dataset.InputFile, cfg.Dataset.CustomType = pool, config.DatasetRandomPool
			cfg.Prompt.BatchSize = b
			cfg.Load.RequestCount = ptr(6)
			cfg.Input.NumDatasetEntries = ptr(6)
			compareInputs(t, ref, cfg)
		})
	}
}
