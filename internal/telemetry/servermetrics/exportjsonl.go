package servermetrics

import (
	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// JSONLWriter streams server_metrics_export.jsonl: one line per scrape
// whose page changed (duplicates are left out, as AIPerf leaves them out),
// written in the background as scrapes arrive.
type JSONLWriter struct {
	f *export.LineFile
}

// CreateJSONL creates path.
func CreateJSONL(path string) (*JSONLWriter, error) {
	f, err := export.CreateLineFile(path)
	if err != nil {
		return nil, err
	}
	return &JSONLWriter{f}, nil
}

// Write queues a scrape's line; a duplicate is skipped.
func (j *JSONLWriter) Write(s *Sample) error {
	if s.Duplicate {
		return nil
	}
	return j.f.Add(func(dst []byte) []byte {
		var w export.JSON
		w.Open('{')
		w.Key("endpoint_url")
		w.Str(s.URL)
		w.Key("timestamp_ns")
		w.Int(s.At)
		w.Key("endpoint_latency_ns")
		w.Int(s.LatencyNs)
		w.Key("metrics")
		w.Open('{')
		for i := range s.Families {
			f := &s.Families[i]
			w.Key(f.Name)
			w.Open('[')
			for j := range f.Series {
				writeSample(&w, f.Type, &f.Series[j])
			}
			w.Close(']')
		}
		w.Close('}')
		w.Key("request_sent_ns")
		w.Int(s.SentNs)
		w.Key("first_byte_ns")
		w.Int(s.At)
		if s.Phase != "" {
			w.Key("benchmark_phase")
			w.Str(s.Phase)
			w.Key("phase_index")
			w.Int(int64(s.PhaseIndex))
			if s.Phase == "profiling" {
				w.Key("profiling_index")
				w.Int(0)
			}
			w.Key("phase_name")
			w.Str(s.Phase)
			w.Key("phase_kind")
			w.Str(s.Phase)
		}
		w.Close('}')
		return append(dst, w.Bytes()...)
	})
}

func writeSample(w *export.JSON, t prom.Type, s *prom.Series) {
	w.Open('{')
	if len(s.Labels) > 0 {
		w.Key("labels")
		w.Open('{')
		for _, l := range s.Labels {
			w.Key(l.Name)
			w.Str(l.Value)
		}
		w.Close('}')
	}
	if t == prom.Histogram {
		w.Key("buckets")
		w.Open('{')
		for _, b := range s.Buckets {
			w.Key(b.LE)
			w.Float(b.Count)
		}
		w.Close('}')
		w.Key("sum")
		w.Float(s.Sum)
		w.Key("count")
		w.Float(s.Count)
	} else {
		w.Key("value")
		w.Float(s.Value)
	}
	w.Close('}')
}

// Close writes what is pending and closes the file.
func (j *JSONLWriter) Close() error { return j.f.Close() }
