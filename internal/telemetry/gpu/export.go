package gpu

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// JSONLWriter streams gpu_telemetry_export.jsonl: one line per GPU per
// scrape, written in the background as samples arrive.
type JSONLWriter struct {
	f      *export.LineFile
	fields []Field
}

// CreateJSONL creates path; fields order each line's telemetry_data (nil:
// DefaultFields).
func CreateJSONL(path string, fields []Field) (*JSONLWriter, error) {
	f, err := export.CreateLineFile(path)
	if err != nil {
		return nil, err
	}
	if fields == nil {
		fields = DefaultFields()
	}
	return &JSONLWriter{f, fields}, nil
}

// Write queues one sample's line.
func (j *JSONLWriter) Write(s *Sample) error {
	return j.f.Add(func(dst []byte) []byte {
		var w export.JSON
		w.Open('{')
		w.Key("gpu_index")
		w.Int(int64(s.Meta.Index))
		optStr(&w, "gpu_uuid", s.Meta.UUID)
		optStr(&w, "gpu_model_name", s.Meta.ModelName)
		optStr(&w, "pci_bus_id", s.Meta.PCIBusID)
		optStr(&w, "device", s.Meta.Device)
		optStr(&w, "hostname", s.Meta.Hostname)
		optStr(&w, "namespace", s.Meta.Namespace)
		optStr(&w, "pod_name", s.Meta.Pod)
		optStr(&w, "platform", s.Meta.Platform)
		optTrue(&w, "simulated", s.Meta.Simulated)
		w.Key("timestamp_ns")
		w.Int(s.At)
		w.Key("telemetry_source_url")
		w.Str(s.Source)
		w.Key("telemetry_data")
		w.Open('{')
		for _, f := range j.fields {
			if v, ok := s.Values[f.Name]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				w.Key(f.Name)
				w.Float(v)
			}
		}
		w.Close('}')
		w.Close('}')
		return append(dst, w.Bytes()...)
	})
}

// Close writes what is pending and closes the file.
func (j *JSONLWriter) Close() error { return j.f.Close() }

// optTrue writes k: true when v, nothing otherwise (AIPerf's shape has no
// such member).
func optTrue(w *export.JSON, k string, v bool) {
	if v {
		w.Key(k)
		w.Bool(true)
	}
}

func optStr(w *export.JSON, k, v string) {
	if v != "" {
		w.Key(k)
		w.Str(v)
	}
}

// GPUResult is one GPU's statistics over the export window.
type GPUResult struct {
	Meta   Meta
	Fields []FieldResult // in field order; fields without data left out
}

// FieldResult is one field's statistics.
type FieldResult struct {
	Field Field
	Stats FieldStats
}

// SourceResult is one source's GPUs.
type SourceResult struct {
	URL  string
	GPUs []GPUResult
}

// Results are every source's statistics over one window: the profiling
// phase, its end widened by AIPerf's final-scrape grace.
type Results struct {
	Window  Window
	Sources []SourceResult
}

// Summarize computes the statistics of every GPU over w.
func (s *Store) Summarize(w Window) *Results {
	r := &Results{Window: w}
	for _, u := range s.order {
		src := s.sources[u]
		sr := SourceResult{URL: u}
		for _, g := range src.order {
			gr := GPUResult{Meta: g.meta}
			for _, f := range s.fields {
				if st, ok := g.fieldStats(f, w); ok {
					gr.Fields = append(gr.Fields, FieldResult{f, st})
				}
			}
			sr.GPUs = append(sr.GPUs, gr)
		}
		r.Sources = append(r.Sources, sr)
	}
	return r
}

// Simulated reports that every GPU of the source is simulated (and it has
// some).
func (s *SourceResult) Simulated() bool {
	for _, g := range s.GPUs {
		if !g.Meta.Simulated {
			return false
		}
	}
	return len(s.GPUs) > 0
}

// Simulated reports that some GPU in r is simulated.
func (r *Results) Simulated() bool {
	for _, s := range r.Sources {
		for _, g := range s.GPUs {
			if g.Meta.Simulated {
				return true
			}
		}
	}
	return false
}

// SimulatedTitle is the suffix of a title over GPU figures some of which
// are invented.
const SimulatedTitle = " (simulated GPUs)"

func (r *Results) simulatedSuffix() string {
	if r.Simulated() {
		return SimulatedTitle
	}
	return ""
}

// Platforms are the platforms of the GPUs in r, sorted.
func (r *Results) Platforms() []string {
	set := map[string]bool{}
	for _, s := range r.Sources {
		for _, g := range s.GPUs {
			set[g.Meta.Platform] = true
		}
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// gpuKey is AIPerf's key of a GPU in telemetry_data ("gpu_0").
func gpuKey(m Meta) string { return "gpu_" + strconv.Itoa(m.Index) }

// TelemetryData renders the summary JSON's telemetry_data block as AIPerf
// 0.13 writes it: the sources and the window, then per source (host:port)
// per GPU the metadata and each field's statistics (a counter has only its
// increase, as avg).
func (r *Results) TelemetryData() []byte {
	var w export.JSON
	w.Open('{')
	w.Key("summary")
	w.Open('{')
	for _, k := range []string{"endpoints_configured", "endpoints_successful"} {
		w.Key(k)
		w.Open('[')
		for _, s := range r.Sources {
			w.Str(s.URL)
		}
		w.Close(']')
	}
	now := time.Now()
	at := func(p *int64) string {
		if p == nil {
			return export.ISOTime(now)
		}
		return export.ISOTime(time.Unix(0, *p))
	}
	w.Key("start_time")
	w.Str(at(r.Window.Start))
	w.Key("end_time")
	w.Str(at(r.Window.End))
	w.Close('}')
	w.Key("endpoints")
	w.Open('{')
	for _, s := range r.Sources {
		w.Key(prom.EndpointDisplay(s.URL))
		w.Open('{')
		optTrue(&w, "simulated", s.Simulated())
		w.Key("gpus")
		w.Open('{')
		for _, g := range s.GPUs {
			w.Key(gpuKey(g.Meta))
			w.Open('{')
			w.Key("gpu_index")
			w.Int(int64(g.Meta.Index))
			optStr(&w, "gpu_name", g.Meta.ModelName)
			optStr(&w, "gpu_uuid", g.Meta.UUID)
			optStr(&w, "platform", g.Meta.Platform)
			optStr(&w, "hostname", g.Meta.Hostname)
			optStr(&w, "namespace", g.Meta.Namespace)
			optStr(&w, "pod_name", g.Meta.Pod)
			optTrue(&w, "simulated", g.Meta.Simulated)
			w.Key("metrics")
			w.Open('{')
			for _, f := range g.Fields {
				w.Key(f.Field.Name)
				writeFieldStats(&w, f)
			}
			w.Close('}')
			w.Close('}')
		}
		w.Close('}')
		w.Close('}')
	}
	w.Close('}')
	w.Key("error_summary")
	w.Open('[')
	w.Close(']')
	w.Close('}')
	return w.Bytes()
}

func writeFieldStats(w *export.JSON, f FieldResult) {
	st := f.Stats
	w.Open('{')
	w.Key("unit")
	w.Str(f.Field.Unit)
	w.Key("avg")
	w.Float(st.Avg)
	if !st.Counter {
		for _, kv := range [...]struct {
			k string
			v float64
		}{{"p1", st.P1}, {"p5", st.P5}, {"p10", st.P10}, {"p25", st.P25}, {"p50", st.P50}, {"p75", st.P75},
			{"p90", st.P90}, {"p95", st.P95}, {"p99", st.P99}, {"min", st.Min}, {"max", st.Max}, {"std", st.Std}} {
			w.Key(kv.k)
			w.Float(kv.v)
		}
		w.Key("count")
		w.Int(int64(st.Count))
		w.Key("sum")
		w.Float(st.Sum)
	}
	w.Close('}')
}

// CSV renders the GPU section AIPerf 0.13 appends to
// profile_export_aiperf.csv (after two blank lines): one row per GPU per
// field, "%.2f" values, empty cells for a counter's missing statistics.
func (r *Results) CSV() string {
	var b strings.Builder
	b.WriteString(export.CSVRow("Endpoint", "GPU_Index", "GPU_Name", "GPU_UUID", "Platform", "Metric",
		"avg", "min", "max", "sum", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "Hostname"))
	for _, s := range r.Sources {
		ep := prom.EndpointDisplay(s.URL)
		for _, g := range s.GPUs {
			for _, f := range g.Fields {
				st := f.Stats
				cells := []string{ep, strconv.Itoa(g.Meta.Index), g.Meta.DisplayName(), g.Meta.UUID, g.Meta.Platform,
					f.Field.Display + " (" + f.Field.Unit + ")", export.CSVFixed2(st.Avg)}
				for _, v := range []float64{st.Min, st.Max, st.Sum, st.P1, st.P5, st.P10, st.P25, st.P50, st.P75, st.P90, st.P95, st.P99, st.Std} {
					if st.Counter {
						cells = append(cells, "")
					} else {
						cells = append(cells, export.CSVFixed2(v))
					}
				}
				b.WriteString(export.CSVRow(append(cells, g.Meta.Hostname)...))
			}
		}
	}
	return b.String()
}

// PlatformPanel is AIPerf's "GPU Telemetry Platform" note, shown before
// the GPU sections: their metrics are platform-specific.
func (r *Results) PlatformPanel(width int) string {
	p := strings.Join(r.Platforms(), ", ")
	if p == "" {
		p = PlatformUnknown
	}
	note := ""
	if r.Simulated() {
		note = "\nSimulated GPUs: the mock server's fake DCGM exporter; their power, memory and energy are invented, not measured."
	}
	return export.Panel("GPU Telemetry Platform"+r.simulatedSuffix(), "Platform: "+p+
		"\nMetric semantics are platform-specific; cross-platform comparisons require workload and collector validation."+note, width)
}

// ConsoleTables renders AIPerf's "GPU Telemetry Summary": which sources
// answered, then a table per GPU (avg, min, max, p99, p90, p50, std; N/A
// for what a counter lacks). configured lists every source tried, so the
// unreachable ones can be named.
func (r *Results) ConsoleTables(configured []string, width int) string {
	var b strings.Builder
	first := true
	ok := map[string]bool{}
	for _, s := range r.Sources {
		ok[s.URL] = true
	}
	for _, s := range r.Sources {
		for _, g := range s.GPUs {
			title := fmt.Sprintf("%s | GPU %d | %s", prom.EndpointDisplay(s.URL), g.Meta.Index, g.Meta.DisplayName())
			if first {
				first = false
				lines := []string{"AIPerf | GPU Telemetry Summary" + r.simulatedSuffix(),
					fmt.Sprintf("%d/%d telemetry sources reachable", len(r.Sources), len(configured))}
				for _, c := range configured {
					if ok[c] {
						lines = append(lines, "• "+prom.EndpointDisplay(c)+" ✔")
					} else {
						lines = append(lines, "• "+prom.EndpointDisplay(c)+" ✘ (unreachable)")
					}
				}
				title = strings.Join(append(lines, "", title), "\n")
			} else {
				b.WriteString("\n")
			}
			var rows [][]string
			for _, f := range g.Fields {
				st := f.Stats
				row := []string{f.Field.Display + " (" + f.Field.Unit + ")", consoleNumber(st.Avg)}
				for _, v := range []float64{st.Min, st.Max, st.P99, st.P90, st.P50, st.Std} {
					if st.Counter {
						row = append(row, "N/A")
					} else {
						row = append(row, consoleNumber(v))
					}
				}
				rows = append(rows, row)
			}
			b.WriteString(export.MetricTable(title, []string{"Metric", "avg", "min", "max", "p99", "p90", "p50", "std"}, rows, width))
		}
	}
	return b.String()
}

// consoleNumber formats as AIPerf's GPU tables: "1,234.56", or "1.23e+06"
// from a million on.
func consoleNumber(v float64) string {
	if math.Abs(v) >= 1e6 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return export.Grouped2(v)
}
