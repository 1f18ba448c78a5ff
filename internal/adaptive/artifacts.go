package adaptive

import (
	"encoding/json"
	"math"
	"time"
)

// SchemaVersion is the adaptive-scale artifacts' schema, as AIPerf 0.13.
const SchemaVersion = 2

// Candidate is one assessed window in the summary's candidates list.
type Candidate struct {
	Iteration       int
	Value           float64
	Window          Window
	Accepted        bool
	RejectionReason string
}

// candidate records the window assessed at the current value.
func (c *Controller) candidate(w *Window, accepted bool, rejection string) {
	c.candidates = append(c.candidates, Candidate{Iteration: c.iteration, Value: c.current, Window: *w, Accepted: accepted, RejectionReason: rejection})
}

// Context names the run and phase in every event (AIPerf's correlation
// keys).
type Context struct {
	RunID        string
	PhaseName    string
	PhaseKind    string
	PhaseIndex   int
	StrategyType string // ramp_until_fail
}

// isoUTC is AIPerf's ISO-8601 UTC timestamp with microseconds.
func isoUTC(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// nullable turns an optional number into a JSON null or the number; NaN
// and infinities (which JSON lacks) become null.
func nullable(p *float64) any {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	return *p
}

// finite is v, or nil when JSON cannot hold it.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// snapshot is the control block: target and actual value.
func snapshot(v float64) map[string]any {
	return map[string]any{"target_value": v, "actual_value": v}
}

// EventJSON renders one event as its JSONL line (keys sorted, no
// newline), with AIPerf's keys.
func (c *Controller) EventJSON(e Event, ctx Context) ([]byte, error) {
	primary := c.cfg.Filters[0]
	values := map[string]any{}
	for k, v := range e.SLAValues {
		values[k] = finite(v)
	}
	var binding any
	if e.Binding != "" {
		binding = e.Binding
	}
	var passed any
	if e.Passed != nil {
		passed = *e.Passed
	}
	m := map[string]any{
		"schema_version":       SchemaVersion,
		"timestamp":            e.AtNs,
		"timestamp_ns":         e.AtNs,
		"timestamp_utc":        isoUTC(e.AtNs),
		"event":                e.Name,
		"phase":                e.Phase,
		"control_variable":     c.cfg.Variable,
		"control_value_before": e.Before,
		"control_value_after":  e.Value,
		"control_value":        e.Value,
		"control":              snapshot(e.Value),
		"boundary_value":       nullable(e.Boundary),
		"last_passing_value":   nullable(e.LastGood),
		"first_failing_value":  nullable(e.FirstFailing),
		"sla_metric":           primary.Metric,
		"sla_stat":             primary.Stat,
		"sla_op":               string(primary.Op),
		"sla_value":            nullable(e.SLAValue),
		"sla_bound":            primary.Threshold,
		"sla_values":           values,
		"binding_sla":          binding,
		"throughput":           e.Throughput,
		"sample_count":         e.Samples,
		"completed":            e.Samples,
		"sent":                 e.Samples + e.Errors + e.Cancelled,
		"in_flight":            nil,
		"cancelled":            e.Cancelled,
		"errored":              e.Errors,
		"error_count":          e.Errors,
		"sla_passed":           passed,
		"strategy_type":        ctx.StrategyType,
		"step_policy":          c.cfg.StepPolicy,
		"step_size":            nullable(e.StepSize),
		"reason":               e.Reason,
		// Correlation keys.
		"run_id":             ctx.RunID,
		"phase_id":           ctx.PhaseName,
		"phase_index":        ctx.PhaseIndex,
		"profiling_index":    0,
		"phase_name":         ctx.PhaseName,
		"phase_kind":         ctx.PhaseKind,
		"phase_start_ts":     nil,
		"phase_end_ts":       nil,
		"adaptive_iteration": e.Iteration,
		"candidate_value":    e.Before,
		"accepted_value":     e.Value,
		"fault_window_id":    nil,
	}
	return json.Marshal(m)
}

// candidateJSON is one candidates entry.
func candidateJSON(cd Candidate) map[string]any {
	w := &cd.Window
	lat := w.latencies(func(x Sample) float64 { return x.LatencyMs })
	ttft := w.latencies(func(x Sample) float64 { return x.TTFTMs })
	itl := w.latencies(func(x Sample) float64 { return x.ITLMs })
	pct := func(v []float64, p float64) float64 {
		if len(v) == 0 {
			return 0
		}
		return percentile(v, p)
	}
	avg := 0.0
	if len(lat) > 0 {
		avg = latencyStat(lat, "avg")
	}
	total := w.Total()
	rate := 0.0
	if total > 0 {
		rate = float64(len(w.Samples)) / float64(total)
	}
	var startTS, endTS any
	if w.StartNs != 0 {
		startTS = isoUTC(w.StartNs)
	}
	if w.EndNs != 0 {
		endTS = isoUTC(w.EndNs)
	}
	var rejection any
	if !cd.Accepted {
		rejection = cd.RejectionReason
	}
	return map[string]any{
		"adaptive_iteration": cd.Iteration,
		"candidate_value":    cd.Value,
		"control_value":      cd.Value,
		"start_ts":           startTS,
		"end_ts":             endTS,
		"duration_s":         w.Elapsed,
		"request_count":      total,
		"error_count":        w.Errors,
		"cancelled":          w.Cancelled,
		"success_count":      len(w.Samples),
		"success_rate":       rate,
		"throughput_rps":     w.Throughput(),
		"latency_p50_ms":     pct(lat, 50),
		"latency_p95_ms":     pct(lat, 95),
		"latency_p99_ms":     pct(lat, 99),
		"ttft_p50_ms":        pct(ttft, 50),
		"ttft_p95_ms":        pct(ttft, 95),
		"ttft_p99_ms":        pct(ttft, 99),
		"itl_p50_ms":         pct(itl, 50),
		"itl_p95_ms":         pct(itl, 95),
		"itl_p99_ms":         pct(itl, 99),
		"accepted":           cd.Accepted,
		"rejection_reason":   rejection,
		"latency_avg_ms":     avg,
	}
}

// SummaryJSON renders adaptive_scale_summary.json (2-space indent, keys
// sorted, newline-terminated), AIPerf's keys.
func (c *Controller) SummaryJSON(ctx Context) ([]byte, error) {
	primary := c.cfg.Filters[0]
	w := &c.last
	cands := make([]any, len(c.candidates))
	for i, cd := range c.candidates {
		cands[i] = candidateJSON(cd)
	}
	var started any
	if c.phase != PhaseDiscover && c.sustainStartNs != 0 {
		started = c.sustainStartNs
	}
	var reason any
	if c.reason != "" {
		reason = c.reason
	}
	status := c.status
	if status == "" {
		status = "completed"
	}
	sent := len(w.Samples) + w.Errors + w.Cancelled
	m := map[string]any{
		"schema_version":      SchemaVersion,
		"status":              status,
		"control_variable":    c.cfg.Variable,
		"control_value":       c.current,
		"control":             snapshot(c.current),
		"boundary_value":      nullable(c.boundary),
		"last_passing_value":  nullable(c.lastGood),
		"first_failing_value": nullable(c.firstFailing),
		"result": map[string]any{
			"last_passing_value":  nullable(c.lastGood),
			"first_failing_value": nullable(c.firstFailing),
			"boundary_value":      nullable(c.boundary),
		},
		"sustain_started_at":        started,
		"sustain_duration_seconds":  c.cfg.Sustain.Seconds(),
		"completed_reason":          reason,
		"sla_passed_during_sustain": c.sustainWindows > 0 && c.sustainPassed == c.sustainWindows,
		"sustain_windows":           c.sustainWindows,
		"sustain_passed_windows":    c.sustainPassed,
		"sla_metric":                primary.Metric,
		"sla_stat":                  primary.Stat,
		"sla_op":                    string(primary.Op),
		"sla_bound":                 primary.Threshold,
		"sla":                       map[string]any{"metric": primary.Metric, "stat": primary.Stat, "op": string(primary.Op), "bound": primary.Threshold},
		"totals":                    map[string]any{"sent": sent, "completed": len(w.Samples), "errored": w.Errors, "cancelled": w.Cancelled},
		"throughput":                w.Throughput(),
		"candidates":                cands,
		"strategy_type":             ctx.StrategyType,
		"step_policy":               c.cfg.StepPolicy,
		"base_step":                 c.cfg.BaseStep,
		"max_step_multiplier":       c.cfg.MaxStepMultiplier,
		"step_percent":              c.cfg.StepPercent,
		"phase_index":               ctx.PhaseIndex,
		"profiling_index":           0,
		"phase_name":                ctx.PhaseName,
		"phase_kind":                ctx.PhaseKind,
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ManifestJSON renders adaptive_scale_manifest.json for the phases that
// ran a controller.
func ManifestJSON(phases []Context, eventsPath, summaryPath func(Context) string) ([]byte, error) {
	var list []any
	for _, p := range phases {
		list = append(list, map[string]any{
			"phase_index":     p.PhaseIndex,
			"profiling_index": 0,
			"phase_name":      p.PhaseName,
			"phase_kind":      p.PhaseKind,
			"events_path":     eventsPath(p),
			"summary_path":    summaryPath(p),
		})
	}
	b, err := json.MarshalIndent(map[string]any{"schema_version": SchemaVersion, "adaptive_phases": list}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
