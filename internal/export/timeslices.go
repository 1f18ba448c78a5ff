package export

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/metrics/stats"
)

// Timeslice is the summary of the requests sent during one time slice of
// the profiling phase (--slice-duration).
type Timeslice struct {
	Start, End time.Time // wall-clock bounds: [Start, End)
	// Complete is false for a last slice cut short by the end of the run
	// (End is then the last response).
	Complete bool
	Summary  metrics.Summary
}

// TimeslicesJSON renders profile_export_aiperf_timeslices.json as AIPerf
// 0.13 does: {"timeslices": [{start_ns, end_ns, [is_complete: false],
// <tag>: {unit, stats...}}...], "input_config": {...}}, slices in time
// order (their position is their index), metric blocks as in the summary
// JSON.
func TimeslicesJSON(slices []Timeslice, inputConfig any) ([]byte, error) {
	var w jsonw
	w.open('{')
	w.key("timeslices")
	w.open('[')
	for i := range slices {
		ts := &slices[i]
		w.open('{')
		w.key("start_ns")
		w.int(ts.Start.UnixNano())
		w.key("end_ns")
		w.int(ts.End.UnixNano())
		if !ts.Complete {
			w.key("is_complete")
			w.bool(false)
		}
		for _, r := range visibleResults(&ts.Summary) {
			w.key(r.Metric.Tag)
			writeResultJSON(&w, r)
		}
		w.close('}')
	}
	w.close(']')
	if inputConfig != nil {
		if err := w.member("input_config", inputConfig); err != nil {
			return nil, err
		}
	}
	w.close('}')
	return w.indented("timeslices json")
}

// timesliceCSVHeader is AIPerf 0.13's timeslice CSV header.
const timesliceCSVHeader = "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value"

// TimeslicesCSV renders profile_export_aiperf_timeslices.csv in AIPerf
// 0.13's tidy layout: one row per (slice, metric, statistic), slices in
// order, metrics by tag, record-metric statistics in the summary CSV's
// order (avg, min, max, sum, p1..p99, std) and single values as "avg";
// "%.2f", CRLF line ends, non-finite values left out but for an
// error-adjusted +Inf, written "inf" as AIPerf writes it (finite.go).
func TimeslicesCSV(slices []Timeslice) []byte {
	var b strings.Builder
	b.WriteString(timesliceCSVHeader + "\r\n")
	for i := range slices {
		ts := &slices[i]
		prefix := strconv.Itoa(i) + "," + strconv.FormatInt(ts.Start.UnixNano(), 10) + "," + strconv.FormatInt(ts.End.UnixNano(), 10) + ","
		results := visibleResults(&ts.Summary)
		sort.SliceStable(results, func(i, j int) bool { return results[i].Metric.Tag < results[j].Metric.Tag })
		for _, r := range results {
			head := prefix + csvField(r.Metric.Header) + "," + csvField(unitOf(r.Metric)) + ","
			row := func(stat string, v float64) {
				if stats.Finite(v) || unbounded(r.Metric, v) {
					b.WriteString(head + stat + "," + unboundedCell(r.Metric, v, fixed2) + "\r\n")
				}
			}
			if r.Stats == nil {
				row("avg", r.Value)
				continue
			}
			st := r.Stats
			for _, kv := range [...]struct {
				k string
				v float64
			}{
				{"avg", st.Avg}, {"min", st.Min}, {"max", st.Max}, {"sum", st.Sum},
				{"p1", st.P1}, {"p5", st.P5}, {"p10", st.P10}, {"p25", st.P25}, {"p50", st.P50},
				{"p75", st.P75}, {"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}, {"std", st.Std},
			} {
				row(kv.k, kv.v)
			}
		}
	}
	return []byte(b.String())
}

// WriteTimeslices writes both timeslice files atomically.
func WriteTimeslices(jsonPath, csvPath string, slices []Timeslice, inputConfig any) error {
	j, err := TimeslicesJSON(slices, inputConfig)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(jsonPath, j); err != nil {
		return err
	}
	return writeFileAtomic(csvPath, TimeslicesCSV(slices))
}
