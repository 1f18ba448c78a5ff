package servermetrics

import (
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// PhaseData is the data of phases/<name>/server_metrics.json (see
// export.PhaseFile) as AIPerf 0.13 writes it: the phase's server-metrics
// result, each endpoint's statistics from sum and its collection
// statistics over the scrapes that started in the phase. ok is false when
// no endpoint was scraped during the phase: AIPerf writes no file then.
func (x *Export) PhaseData(s *Store, ph export.PhaseRef, sum *Summary) (data []byte, ok bool) {
	var w export.JSON
	var first, last int64
	w.Open('{')
	for _, url := range s.order {
		ep := s.endpoints[url]
		info := ep.info(func(f fetch) bool { return f.phase == ph.Index })
		if info.TotalFetches == 0 {
			continue
		}
		if !ok || info.FirstFetchNs < first {
			first = info.FirstFetchNs
		}
		last = max(last, info.LastFetchNs)
		ok = true
		w.Key(prom.EndpointDisplay(url))
		w.Open('{')
		w.Key("endpoint_url")
		w.Str(url)
		w.Key("info")
		writeInfo(&w, &info)
		w.Key("metrics")
		w.Open('{')
		if sum != nil {
			for i := range sum.Metrics {
				writeEndpointMetric(&w, &sum.Metrics[i], url)
			}
		}
		w.Close('}')
		w.Close('}')
	}
	w.Close('}')
	if !ok {
		return nil, false
	}
	var d export.JSON
	d.Open('{')
	if x.BenchmarkID != "" {
		d.Key("benchmark_id")
		d.Str(x.BenchmarkID)
	}
	d.Key("end_ns")
	d.Int(last)
	d.Key("endpoint_summaries")
	d.Raw(w.Bytes())
	d.Key("endpoints_configured")
	strList(&d, x.Endpoints)
	d.Key("endpoints_successful")
	strList(&d, x.Endpoints)
	d.Key("error_summary")
	d.Raw([]byte("[]"))
	d.Key("phase")
	d.Str(ph.Kind)
	d.Key("phase_index")
	d.Int(int64(ph.Index))
	d.Key("phase_kind")
	d.Str(ph.Kind)
	d.Key("phase_name")
	d.Str(ph.Name)
	d.Key("phase_results")
	d.Raw([]byte("[]"))
	if ph.ProfilingIndex != nil {
		d.Key("profiling_index")
		d.Int(int64(*ph.ProfilingIndex))
	}
	d.Key("start_ns")
	d.Int(first)
	d.Close('}')
	return d.Bytes(), true
}

// writeEndpointMetric writes metric m's series from one endpoint, keyed by
// name, as a per-endpoint summary holds them (no unit and no
// endpoint_url: the endpoint is the enclosing key; the file's keys are
// sorted afterwards). Nothing is written
// when the endpoint has no series of m.
func writeEndpointMetric(w *export.JSON, m *Metric, url string) {
	var series []*SeriesStats
	for j := range m.Series {
		if m.Series[j].Endpoint == url {
			series = append(series, &m.Series[j])
		}
	}
	if len(series) == 0 {
		return
	}
	w.Key(m.Name)
	w.Open('{')
	w.Key("description")
	w.Str(m.Help)
	w.Key("series")
	w.Open('[')
	for _, s := range series {
		writeSeries(w, s, false)
	}
	w.Close(']')
	w.Key("type")
	w.Str(m.Type.String())
	w.Close('}')
}
