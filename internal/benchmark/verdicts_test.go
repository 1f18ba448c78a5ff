package benchmark

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/verdict"
)

// TestRunUseCaseVerdicts runs against a mock whose decode speed sits far
// below the chat threshold (50 ms per token = 20 tokens/s before any
// overhead) and checks the verdict panel and the JSON block.
func TestRunUseCaseVerdicts(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT, c.ITL = 5*time.Millisecond, 60*time.Millisecond
	})
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.RequestCount = ptr(4)
	cfg.Input.OutputTokens.Mean = ptr(4)
	cfg.Analysis.UseCases = []config.UseCase{config.UseCaseChat, config.UseCaseRAG}
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	for _, want := range []string{"Use-case verdicts", "chat      WARN each user sees", "rag       ", "extrapolated, not measured", "aggregate prefill demand"} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	var rep verdict.Report
	if err := json.Unmarshal(doc["verdicts"], &rep); err != nil {
		t.Fatalf("verdicts block: %v\n%s", err, doc["verdicts"])
	}
	if len(rep.Verdicts) != 2 || rep.Verdicts[0].UseCase != verdict.Chat || rep.Verdicts[0].Status != verdict.Warn {
		t.Errorf("verdicts = %+v; want chat warn, then rag", rep.Verdicts)
	}
	perUser := avg(t, doc, "output_token_throughput_per_user")
	if p := rep.Verdicts[0].Primary; p == nil || p.Value != perUser || p.Unit != "tokens/sec/user" {
		t.Errorf("chat primary = %+v; want the summary's %v tokens/sec/user", p, perUser)
	}
	d := rep.Derived
	if d.Concurrency == nil || d.Concurrency.Value != 2 || d.PrefillDemand == nil ||
		d.PrefillDemand.Value != avg(t, doc, "prefill_throughput_per_user")*2 || d.PrefillDemand.Unit != "tokens/sec" {
		t.Errorf("derived = %+v / %+v; want 2 users and prefill/user x 2 in tokens/sec", d.Concurrency, d.PrefillDemand)
	}
}
