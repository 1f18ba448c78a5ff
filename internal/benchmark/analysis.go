package benchmark

// The analysis a run adds after its results when asked: use-case verdicts
// (--use-case), peer metric views (--metric-view) and the llm-d benchmark
// report (--llmd-report).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/internal/llmd"
	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metricview"
	"github.com/aiperf-go/aiperf/internal/verdict"
)

// summarySource reads a metrics.Summary as an sla.Source: record metrics
// by statistic name, aggregate metrics under "avg" (the key AIPerf's JSON
// gives them).
type summarySource struct{ s *metrics.Summary }

// Value implements sla.Source.
func (src summarySource) Value(metric, stat string) (float64, bool) {
	r, ok := src.s.Get(metric)
	if !ok {
		return 0, false
	}
	if r.Stats == nil {
		return r.Value, stat == "avg"
	}
	st := r.Stats
	switch stat {
	case "avg":
		return st.Avg, true
	case "min":
		return st.Min, true
	case "max":
		return st.Max, true
	case "sum":
		return st.Sum, true
	case "std":
		return st.Std, true
	case "p1":
		return st.P1, true
	case "p5":
		return st.P5, true
	case "p10":
		return st.P10, true
	case "p25":
		return st.P25, true
	case "p50":
		return st.P50, true
	case "p75":
		return st.P75, true
	case "p90":
		return st.P90, true
	case "p95":
		return st.P95, true
	case "p99":
		return st.P99, true
	}
	return 0, false
}

// verdicts reads the run for the --use-case use cases; nil without any.
// A closed-loop run's concurrency is its configured one; a request-rate
// run has none, and the verdicts use the measured effective concurrency.
func verdicts(p *Plan, s *metrics.Summary) *verdict.Report {
	cases := p.Config.ResolvedUseCases()
	if len(cases) == 0 {
		return nil
	}
	uc := make([]verdict.UseCase, len(cases))
	for i, c := range cases {
		uc[i] = verdict.UseCase(c)
	}
	r := verdict.Run{Metrics: summarySource{s}}
	if p.Profiling.Rate <= 0 {
		r.Concurrency = float64(p.Profiling.Concurrency)
	}
	rep := verdict.Evaluate(r, uc)
	return &rep
}

// MetricViewsName is the file --metric-view writes into the artifact
// directory.
const MetricViewsName = "metric_views.json"

// metricViews computes the --metric-view views from the run's records
// (written and closed by now), writes metric_views.json and returns the
// console panel. The run asked for views and wrote its records
// (wantsMetricViews).
func metricViews(p *Plan) (string, error) {
	cfgViews := p.Config.ResolvedMetricViews()
	tools := make([]metricview.Tool, len(cfgViews))
	for i, v := range cfgViews {
		tools[i] = metricview.Tool(v)
	}
	vs, n, err := metricview.FromRecords(p.Paths.JSONL, tools)
	if err != nil {
		return "", fmt.Errorf("metric views: %w", err)
	}
	doc := struct {
		Requests int               `json:"requests"`
		Views    []metricview.View `json:"views"`
	}{n, vs}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", fmt.Errorf("metric views: %w", err)
	}
	if err := os.WriteFile(filepath.Join(p.Paths.Dir, MetricViewsName), append(b, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("metric views: %w", err)
	}
	return metricview.Panel(vs, n), nil
}

// llmdReport writes benchmark_report.yaml (--llmd-report) from the
// summary JSON just written and the run's records.
func llmdReport(p *Plan, version string) error {
	records := ""
	if p.Paths.WritesRecords() {
		records = p.Paths.JSONL
	}
	if err := llmd.Write(p.Paths.JSON, records, filepath.Join(p.Paths.Dir, llmd.FileName), llmd.Options{ToolVersion: version}); err != nil {
		return fmt.Errorf("llm-d report: %w", err)
	}
	return nil
}
