package benchmark

import (
	"github.com/aiperf-go/aiperf/internal/metrics"
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
