package benchmark

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/config"
	"github.com/aiperf-go/aiperf/internal/metricview"
	"github.com/aiperf-go/aiperf/internal/mockserver"
	"github.com/aiperf-go/aiperf/internal/verdict"
)

// TestRunUseCaseVerdicts runs against a mock whose decode speed sits far
// below the chat threshold (150 ms per token, 6.7 tokens/s) and checks the
// verdict panel and the JSON block. The mock writes tokens on absolute
// deadlines from the request's start, so a first token delayed by a loaded
// machine is followed by shorter gaps: at 60 ms per token a first token
// 33 ms late already measured 20.3 tokens/s. At 150 ms it would take a
// first token 300 ms late to reach 20 tokens/s.
func TestRunUseCaseVerdicts(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT, c.ITL = 5*time.Millisecond, 150*time.Millisecond
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

// TestRunMetricViews: the vLLM view of a streamed run agrees with this
// tool's own metrics where the definitions coincide: vLLM's TPOT is the
// per-request mean of AIPerf's inter_token_latency, vLLM's ITL the pooled
// inter_chunk_latency.
func TestRunMetricViews(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, func(c *mockserver.Config) {
		c.Fast = false
		c.TTFT, c.ITL = 3*time.Millisecond, time.Millisecond
	})
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.RequestCount = ptr(6)
	cfg.Analysis.MetricViews = []config.MetricView{config.ViewAll}
	out, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Metric views: the same names as each tool defines them, from 6 request records") {
		t.Errorf("console lacks the views panel:\n%s", out)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, MetricViewsName))
	if err != nil {
		t.Fatal(err)
	}
	var views struct {
		Requests int
		Views    []metricview.View
	}
	if err := json.Unmarshal(b, &views); err != nil {
		t.Fatal(err)
	}
	if views.Requests != 6 || len(views.Views) != 4 {
		t.Fatalf("metric_views.json: %d requests, %d views", views.Requests, len(views.Views))
	}
	get := func(tool metricview.Tool, name string) float64 {
		for _, v := range views.Views {
			for _, m := range v.Metrics {
				if v.Tool == tool && m.Name == name {
					return m.Stats.Mean
				}
			}
		}
		t.Fatalf("no %s %s", tool, name)
		return 0
	}
	near := func(what string, a, b float64) {
		if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
			t.Errorf("%s: %v vs %v", what, a, b)
		}
	}
	near("vLLM TPOT vs inter_token_latency avg", get(metricview.VLLM, "tpot"), avg(t, doc, "inter_token_latency"))
	near("vLLM ITL vs inter_chunk_latency avg", get(metricview.VLLM, "itl"), avg(t, doc, "inter_chunk_latency"))
	near("vLLM TTFT vs time_to_first_token avg", get(metricview.VLLM, "ttft"), avg(t, doc, "time_to_first_token"))
}

// TestRunLLMDReport: --llmd-report writes benchmark_report.yaml beside
// the summary, with this tool as the workload generator.
func TestRunLLMDReport(t *testing.T) {
	t.Parallel()
	url, _ := mock(t, nil)
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(2)
	cfg.Load.RequestCount = ptr(4)
	cfg.Analysis.LLMDReport = true
	if out, err := run(t, context.Background(), cfg); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(cfg.Output.ArtifactDir, "benchmark_report.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`version: "0.2"`, "tool: aiperf-go", "tool_version: test", "concurrency: 2", "total: 4", "normalized_time_per_output_token:", "units: s/token"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q:\n%s", want, b)
		}
	}
}
