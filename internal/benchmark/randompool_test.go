package benchmark

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/config"
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
