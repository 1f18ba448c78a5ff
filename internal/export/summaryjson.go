package export

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// SchemaVersion is the profile_export_aiperf.json schema AIPerf 0.13 writes.
const SchemaVersion = "1.4"

// RunInfo is the run-level context of the summary JSON that a
// metrics.Summary does not carry. Zero values are left out of the file, as
// AIPerf leaves out unset fields.
type RunInfo struct {
	Version     string // aiperf_version
	BenchmarkID string // benchmark_id, repeated in run_info
	// InputConfig is the resolved configuration, marshalled as given (use a
	// struct, or a jsontext.Value, to control its key order). Nil omits it.
	InputConfig any
	RandomSeed  *uint64 // run_info.random_seed; nil when no seed was set
	Trial       int     // run_info.trial
	RunLabel    string  // run_info.run_label
	CLICommand  string  // run_info.cli_command (already redacted)

	// Sweep identifies the variation of a parameter sweep this run belongs
	// to (run_info.sweep_id, variation_label, variation_index,
	// variation_values); nil outside a sweep.
	Sweep *SweepRun

	// Start and End override the Summary's phase bounds when set. AIPerf
	// stamps the phase start and the last response.
	Start, End time.Time

	WasCancelled     bool
	IsComplete       bool
	IncompleteReason string // written when !IsComplete

	// Warmup, when set, is written as warmup_metrics.
	Warmup *metrics.Summary

	// Verdicts, when non-nil, is marshalled as "verdicts" before
	// client_health: the use-case verdicts and derived figures of
	// --use-case (not an AIPerf key).
	Verdicts any

	// TelemetryData is the GPU telemetry block (telemetry_data), already
	// encoded; nil leaves it out. It follows the leading metrics, as in
	// AIPerf's file.
	TelemetryData []byte

	// Accuracy, when non-nil, is accuracy mode's result: its
	// accuracy.* values are written as metrics ({unit: ratio, avg, count,
	// sum}) after the others, and Accuracy.Summary as "accuracy".
	Accuracy *AccuracyJSON

	// ClientHealth, when non-nil, is marshalled as the last key,
	// "client_health": this port's self-assessment of the load generator
	// (not an AIPerf key; AIPerf's keys are unaffected).
	ClientHealth any

	// TimeDecomposition, when non-nil, is marshalled as
	// "time_decomposition" before client_health: where the requests' time
	// went, joined with the server's own account (not an AIPerf key).
	TimeDecomposition any

	// OverSaturation, when non-nil, is marshalled as "over_saturation"
	// after time_decomposition: --over-saturation's verdict with its
	// slopes and margins (not an AIPerf key).
	OverSaturation any

	// ProbeRequests, when non-nil, is marshalled as "probe_requests"
	// after over_saturation: the probe requests' own counts and metrics
	// (--probe-request-rate; not an AIPerf key).
	ProbeRequests any
}

// leadingTags are the metrics AIPerf's JSON model declares as fields (kept
// from GenAI-Perf's layout); they come first, in this order, right after
// benchmark_id. Every other metric follows end_time in Summary order.
var leadingTags = [...]string{
	"request_throughput",
	"request_latency",
	"request_count",
	"time_to_first_token",
	"time_to_second_token",
	"inter_token_latency",
	"output_token_throughput",
	"output_token_throughput_per_user",
	"output_sequence_length",
	"input_sequence_length",
	"goodput",
	"good_request_count",
	"output_token_count",
	"reasoning_token_count",
	"min_request_timestamp",
	"max_response_timestamp",
	"inter_chunk_latency",
	"total_output_tokens",
	"total_reasoning_tokens",
	"benchmark_duration",
	"total_isl",
	"total_osl",
	"error_request_count",
	"error_isl",
	"total_error_isl",
}

// unitOf is the unit a metric's exported values are in.
func unitOf(m *metrics.Metric) string {
	if m.DisplayUnit != "" {
		return string(m.DisplayUnit)
	}
	return string(m.Unit)
}

// visibleResults returns the results exporters may show: hidden metrics,
// duplicates and results without a finite value are dropped. The
// error-adjusted results (whose +Inf is a value, finite.go) follow, as
// AIPerf appends them after every other metric.
func visibleResults(s *metrics.Summary) []metrics.Result {
	if s == nil {
		return nil
	}
	out := make([]metrics.Result, 0, len(s.Results))
	seen := make(map[string]bool, len(s.Results))
	for _, r := range s.Results {
		if r.Metric == nil || r.Metric.Hidden() || seen[r.Metric.Tag] {
			continue
		}
		if r.Stats == nil && !stats.Finite(r.Value) {
			continue
		}
		if r.Stats != nil && !stats.Finite(r.Stats.Avg) {
			continue
		}
		seen[r.Metric.Tag] = true
		out = append(out, r)
	}
	for _, r := range s.ErrorAdjusted {
		if r.Metric == nil || r.Stats == nil || r.Metric.Hidden() || seen[r.Metric.Tag] {
			continue
		}
		seen[r.Metric.Tag] = true
		out = append(out, r)
	}
	return out
}

// SummaryJSON renders profile_export_aiperf.json: 2-space indentation, no
// trailing newline, keys in AIPerf 0.13's order. Record metrics carry
// {unit, avg, p1..p99, min, max, std, count, sum}; aggregate and derived
// metrics carry {unit, avg}. Non-finite numbers are left out.
func SummaryJSON(s *metrics.Summary, info RunInfo) ([]byte, error) {
	if s == nil {
		s = &metrics.Summary{}
	}
	results := visibleResults(s)
	byTag := make(map[string]metrics.Result, len(results))
	for _, r := range results {
		byTag[r.Metric.Tag] = r
	}

	var w jsonw
	w.open('{')
	w.key("schema_version")
	w.str(SchemaVersion)
	if info.Version != "" {
		w.key("aiperf_version")
		w.str(info.Version)
	}
	if info.BenchmarkID != "" {
		w.key("benchmark_id")
		w.str(info.BenchmarkID)
	}
	leading := make(map[string]bool, len(leadingTags))
	for _, tag := range leadingTags {
		leading[tag] = true
		if r, ok := byTag[tag]; ok {
			w.key(tag)
			writeResultJSON(&w, r)
		}
	}
	if len(info.TelemetryData) > 0 {
		w.key("telemetry_data")
		w.raw(info.TelemetryData)
	}
	if info.InputConfig != nil {
		if err := w.member("input_config", info.InputConfig); err != nil {
			return nil, err
		}
	}
	writeRunInfoJSON(&w, info)
	w.key("was_cancelled")
	w.bool(info.WasCancelled)
	w.key("is_complete")
	w.bool(info.IsComplete)
	if !info.IsComplete && info.IncompleteReason != "" {
		w.key("incomplete_reason")
		w.str(info.IncompleteReason)
	}
	writeErrorSummaryJSON(&w, s.Errors)
	start, end := s.Start, s.End
	if !info.Start.IsZero() {
		start = info.Start
	}
	if !info.End.IsZero() {
		end = info.End
	}
	if !start.IsZero() {
		w.key("start_time")
		w.str(isoTime(start))
	}
	if !end.IsZero() {
		w.key("end_time")
		w.str(isoTime(end))
	}
	if wr := visibleResults(info.Warmup); len(wr) > 0 {
		w.key("warmup_metrics")
		w.open('{')
		for _, r := range wr {
			w.key(r.Metric.Tag)
			writeResultJSON(&w, r)
		}
		w.close('}')
	}
	for _, r := range results {
		if leading[r.Metric.Tag] {
			continue
		}
		w.key(r.Metric.Tag)
		writeResultJSON(&w, r)
	}
	if n := s.CancelledAtPhaseEnd; n > 0 {
		// Ours: requests sent but cut off at the end of the phase, which
		// AIPerf leaves out without a trace (metrics.Summary.CancelledAtPhaseEnd).
		w.key("cancelled_at_phase_end_count")
		w.open('{')
		w.key("unit")
		w.str("requests")
		w.key("avg")
		w.float(float64(n))
		w.close('}')
	}
	if a := info.Accuracy; a != nil {
		if err := writeAccuracyJSON(&w, a); err != nil {
			return nil, err
		}
	}
	if h := s.SpecDecodeHistogram; h != nil {
		writeSpecDecodeHistogram(&w, h)
	}
	for _, m := range []struct {
		key string
		v   any // left out when nil
	}{
		{"verdicts", info.Verdicts},
		{"time_decomposition", info.TimeDecomposition},
		{"over_saturation", info.OverSaturation},
		{"probe_requests", info.ProbeRequests},
		{"client_health", info.ClientHealth},
	} {
		if m.v == nil {
			continue
		}
		if err := w.member(m.key, m.v); err != nil {
			return nil, err
		}
	}
	w.close('}')
	return w.indented("summary json")
}

// writeAccuracyJSON writes accuracy mode's metrics and its "accuracy"
// member.
func writeAccuracyJSON(w *jsonw, a *AccuracyJSON) error {
	for _, m := range a.Metrics {
		w.key(m.Tag)
		w.open('{')
		w.key("unit")
		w.str("ratio")
		w.key("avg")
		w.float(m.Avg)
		w.key("count")
		w.int(int64(m.Count))
		w.key("sum")
		w.int(int64(m.Sum))
		w.close('}')
	}
	return w.member("accuracy", a.Summary)
}

// AccuracyJSON is accuracy mode's part of the summary JSON.
type AccuracyJSON struct {
	Metrics []AccuracyMetric
	Summary any // marshalled as "accuracy"
}

// AccuracyMetric is one accuracy.* value: a ratio over Count answers,
// Sum of them passed (or unparsed).
type AccuracyMetric struct {
	Tag        string
	Avg        float64
	Count, Sum int
}

// WriteSummaryJSON writes SummaryJSON to path atomically.
func WriteSummaryJSON(path string, s *metrics.Summary, info RunInfo) error {
	b, err := SummaryJSON(s, info)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// writeResultJSON writes one metric's block. Stats fields that are not
// finite are omitted one by one, except an error-adjusted +Inf, which is
// null as AIPerf writes it (finite.go).
func writeResultJSON(w *jsonw, r metrics.Result) {
	w.open('{')
	w.key("unit")
	w.str(unitOf(r.Metric))
	if r.Stats == nil {
		w.key("avg")
		w.float(r.Value)
		w.close('}')
		return
	}
	st := r.Stats
	for _, kv := range [...]struct {
		k string
		v float64
	}{
		{"avg", st.Avg},
		{"p1", st.P1}, {"p5", st.P5}, {"p10", st.P10}, {"p25", st.P25}, {"p50", st.P50},
		{"p75", st.P75}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99},
		{"min", st.Min}, {"max", st.Max}, {"std", st.Std},
	} {
		writeStatJSON(w, r.Metric, kv.k, kv.v)
	}
	if !st.TimeWeighted { // a step function's statistics have no count
		w.key("count")
		w.int(int64(st.Count))
	}
	writeStatJSON(w, r.Metric, "sum", st.Sum)
	w.close('}')
}

// writeStatJSON writes k: v when v is finite, k: null when v is m's
// error-adjusted +Inf, and nothing otherwise.
func writeStatJSON(w *jsonw, m *metrics.Metric, k string, v float64) {
	switch {
	case stats.Finite(v):
		w.key(k)
		w.float(v)
	case unbounded(m, v):
		w.key(k)
		w.raw([]byte("null"))
	}
}

// SweepRun is a run's place in a parameter sweep, as AIPerf writes it in
// run_info.
type SweepRun struct {
	ID    string // sweep_id, shared by every run of the sweep
	Label string // variation_label, e.g. "phases.profiling.concurrency=8"
	Index int    // variation_index, 0-based
	// Values are variation_values, {path: value} in sweep order; each
	// Value is valid JSON.
	Values []SweepValue
}

// SweepValue is one varied parameter of a SweepRun.
type SweepValue struct {
	Path  string
	Value []byte // JSON
}

func writeRunInfoJSON(w *jsonw, info RunInfo) {
	w.key("run_info")
	w.open('{')
	if info.BenchmarkID != "" {
		w.key("benchmark_id")
		w.str(info.BenchmarkID)
	}
	if info.Sweep != nil && info.Sweep.ID != "" {
		w.key("sweep_id")
		w.str(info.Sweep.ID)
	}
	if info.RandomSeed != nil {
		w.key("random_seed")
		w.raw(strconv.AppendUint(nil, *info.RandomSeed, 10))
	}
	w.key("trial")
	w.int(int64(info.Trial))
	if info.RunLabel != "" {
		w.key("run_label")
		w.str(info.RunLabel)
	}
	if sw := info.Sweep; sw != nil {
		w.key("variation_label")
		w.str(sw.Label)
		w.key("variation_index")
		w.int(int64(sw.Index))
		w.key("variation_values")
		w.open('{')
		for _, v := range sw.Values {
			w.key(v.Path)
			w.raw(v.Value)
		}
		w.close('}')
	}
	if info.CLICommand != "" {
		w.key("cli_command")
		w.str(info.CLICommand)
	}
	w.close('}')
}

// writeErrorSummaryJSON writes error_summary: [{error_details, count}],
// leaving out a zero code and an empty type as AIPerf leaves out None.
func writeErrorSummaryJSON(w *jsonw, errs []metrics.ErrorCount) {
	w.key("error_summary")
	w.open('[')
	for _, e := range errs {
		w.open('{')
		w.key("error_details")
		w.open('{')
		if e.Error.Code != 0 {
			w.key("code")
			w.int(int64(e.Error.Code))
		}
		if e.Error.Type != "" {
			w.key("type")
			w.str(e.Error.Type)
		}
		w.key("message")
		w.str(e.Error.Message)
		w.close('}')
		w.key("count")
		w.int(int64(e.Count))
		w.close('}')
	}
	w.close(']')
}

// isoTime formats t as Python's datetime.fromtimestamp(ns/1e9).isoformat():
// local wall time (t's location), microseconds rounded half-to-even from
// the float seconds, and no fractional part when it is zero.
func isoTime(t time.Time) string {
	secs := float64(t.UnixNano()) / 1e9
	whole := math.Floor(secs)
	us := math.RoundToEven((secs - whole) * 1e6)
	if us >= 1e6 {
		whole++
		us -= 1e6
	}
	lt := time.Unix(int64(whole), 0).In(t.Location())
	s := lt.Format("2006-01-02T15:04:05")
	if us != 0 {
		s += fmt.Sprintf(".%06d", int64(us))
	}
	return s
}
