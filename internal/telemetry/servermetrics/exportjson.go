package servermetrics

import (
	"fmt"
	"time"

	gojson "github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/export"
)

// JSONSchemaVersion is server_metrics_export.json's schema version in
// AIPerf 0.13.
const JSONSchemaVersion = "1.1"

// Export is what the server-metrics artifacts describe besides the
// statistics: the run and its phase windows.
type Export struct {
	Version     string // aiperf_version
	BenchmarkID string
	// Endpoints are the metrics URLs that answered (AIPerf lists them as
	// both configured and successful).
	Endpoints []string
	// Profiling is the profiling phase's window (start to last response),
	// Warmup the warmup's (nil without one). Final is the window the
	// profiling statistics used for parquet's time filter: extended to the
	// last update.
	Profiling Window
	Warmup    *Window
	// ProfilingSummary and WarmupSummary are the statistics (WarmupSummary
	// nil without a warmup).
	ProfilingSummary *Summary
	WarmupSummary    *Summary
	// InputConfig is the run's input_config, marshalled as given.
	InputConfig any
}

// JSON renders server_metrics_export.json in AIPerf 0.13's shape.
func (x *Export) JSON() ([]byte, error) {
	var w export.JSON
	w.Open('{')
	w.Key("schema_version")
	w.Str(JSONSchemaVersion)
	if x.Version != "" {
		w.Key("aiperf_version")
		w.Str(x.Version)
	}
	if x.BenchmarkID != "" {
		w.Key("benchmark_id")
		w.Str(x.BenchmarkID)
	}
	w.Key("summary")
	w.Open('{')
	w.Key("endpoints_configured")
	strList(&w, x.Endpoints)
	w.Key("endpoints_successful")
	strList(&w, x.Endpoints)
	w.Key("start_time")
	w.Str(export.ISOTime(time.Unix(0, x.Profiling.Start)))
	w.Key("end_time")
	w.Str(export.ISOTime(time.Unix(0, x.Profiling.End)))
	if s := x.ProfilingSummary; s != nil && len(s.Endpoints) > 0 {
		w.Key("endpoint_info")
		w.Open('{')
		for _, e := range s.Endpoints {
			w.Key(e.URL)
			writeInfo(&w, &e)
		}
		w.Close('}')
	}
	w.Key("phase_time_ranges")
	w.Open('{')
	if x.Profiling.Start < x.Profiling.End {
		w.Key("profiling")
		writeWindow(&w, x.Profiling)
	}
	if x.Warmup != nil && x.Warmup.Start < x.Warmup.End {
		w.Key("warmup")
		writeWindow(&w, *x.Warmup)
	}
	w.Close('}')
	w.Close('}')
	w.Key("metrics_phase")
	w.Str("profiling")
	w.Key("metrics")
	writeMetrics(&w, x.ProfilingSummary)
	if s := x.WarmupSummary; s != nil && len(s.Metrics) > 0 {
		w.Key("warmup_metrics")
		writeMetrics(&w, s)
	}
	if x.InputConfig != nil {
		cfg, err := gojson.Marshal(x.InputConfig, gojson.Deterministic(true))
		if err != nil {
			return nil, fmt.Errorf("marshal input_config: %w", err)
		}
		w.Key("input_config")
		w.Raw(cfg)
	}
	w.Close('}')
	return w.Indented()
}

func strList(w *export.JSON, list []string) {
	w.Open('[')
	for _, s := range list {
		w.Str(s)
	}
	w.Close(']')
}

func writeWindow(w *export.JSON, win Window) {
	w.Open('{')
	w.Key("start_ns")
	w.Int(win.Start)
	w.Key("end_ns")
	w.Int(win.End)
	w.Close('}')
}

func writeInfo(w *export.JSON, e *EndpointInfo) {
	w.Open('{')
	w.Key("total_fetches")
	w.Int(int64(e.TotalFetches))
	w.Key("first_fetch_ns")
	w.Int(e.FirstFetchNs)
	w.Key("last_fetch_ns")
	w.Int(e.LastFetchNs)
	w.Key("avg_fetch_latency_ms")
	w.Float(e.AvgFetchLatencyMs)
	w.Key("unique_updates")
	w.Int(int64(e.UniqueUpdates))
	w.Key("first_update_ns")
	w.Int(e.FirstUpdateNs)
	w.Key("last_update_ns")
	w.Int(e.LastUpdateNs)
	w.Key("duration_seconds")
	w.Float(e.DurationSeconds)
	w.Key("avg_update_interval_ms")
	w.Float(e.AvgUpdateIntervalMs)
	if e.MedianUpdateIntervalMs != nil {
		w.Key("median_update_interval_ms")
		w.Float(*e.MedianUpdateIntervalMs)
	}
	w.Close('}')
}

func writeMetrics(w *export.JSON, s *Summary) {
	w.Open('{')
	if s != nil {
		for i := range s.Metrics {
			m := &s.Metrics[i]
			w.Key(m.Name)
			w.Open('{')
			w.Key("type")
			w.Str(m.Type.String())
			w.Key("description")
			w.Str(m.Help)
			if m.Unit != "" {
				w.Key("unit")
				w.Str(m.Unit)
			}
			w.Key("series")
			w.Open('[')
			for j := range m.Series {
				writeSeries(w, &m.Series[j], true)
			}
			w.Close(']')
			w.Close('}')
		}
	}
	w.Close('}')
}

// writeSeries writes one series; withEndpoint adds its endpoint_url (a
// per-endpoint summary has it as the enclosing key instead).
func writeSeries(w *export.JSON, s *SeriesStats, withEndpoint bool) {
	w.Open('{')
	if withEndpoint {
		w.Key("endpoint_url")
		w.Str(s.Endpoint)
	}
	if len(s.Labels) > 0 {
		w.Key("labels")
		w.Open('{')
		for _, l := range s.Labels {
			w.Key(l.Name)
			w.Str(l.Value)
		}
		w.Close('}')
	}
	w.Key("stats")
	w.Open('{')
	for _, kv := range statValues(s) {
		w.Key(kv.key)
		if kv.integer {
			w.Int(int64(kv.v))
		} else {
			w.Float(kv.v)
		}
	}
	w.Close('}')
	if s.Histogram != nil && s.Buckets != nil {
		w.Key("buckets")
		w.Open('{')
		for _, b := range s.Buckets {
			w.Key(b.LE)
			w.Int(b.Count)
		}
		w.Close('}')
	}
	w.Close('}')
}

// stat is one statistic of a series, in export order.
type stat struct {
	key     string
	v       float64
	integer bool // written without a fraction (a histogram's count)
}

// statValues lists a series' statistics in AIPerf's order, leaving out
// those it leaves out (a histogram without observations has only count;
// rates need a window with duration; estimates need usable buckets).
func statValues(s *SeriesStats) []stat {
	switch {
	case s.Gauge != nil:
		g := s.Gauge
		return []stat{{"avg", g.Avg, false}, {"min", g.Min, false}, {"max", g.Max, false}, {"std", g.Std, false},
			{"p1", g.P1, false}, {"p5", g.P5, false}, {"p10", g.P10, false}, {"p25", g.P25, false}, {"p50", g.P50, false},
			{"p75", g.P75, false}, {"p90", g.P90, false}, {"p95", g.P95, false}, {"p99", g.P99, false}}
	case s.Counter != nil:
		return []stat{{"total", s.Counter.Total, false}, {"rate", s.Counter.Rate, false}}
	case s.Histogram != nil:
		h := s.Histogram
		out := []stat{{"count", float64(h.Count), true}}
		if h.Count == 0 {
			return out
		}
		out = append(out, stat{"sum", h.Sum, false}, stat{"avg", h.Avg, false})
		if h.CountRate != nil {
			out = append(out, stat{"count_rate", *h.CountRate, false}, stat{"sum_rate", *h.SumRate, false})
		}
		if e := h.Estimates; e != nil {
			out = append(out, stat{"p1_estimate", e.P1, false}, stat{"p5_estimate", e.P5, false}, stat{"p10_estimate", e.P10, false},
				stat{"p25_estimate", e.P25, false}, stat{"p50_estimate", e.P50, false}, stat{"p75_estimate", e.P75, false},
				stat{"p90_estimate", e.P90, false}, stat{"p95_estimate", e.P95, false}, stat{"p99_estimate", e.P99, false})
		}
		return out
	}
	return nil
}
