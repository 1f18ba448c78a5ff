package servermetrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/aiperf-go/aiperf/internal/export"
	"github.com/aiperf-go/aiperf/internal/telemetry/prom"
)

// ParquetMeta is the run context AIPerf stores in the parquet file's
// key-value metadata (aiperf.*).
type ParquetMeta struct {
	Models      []string
	Concurrency string // "4", or "None" for request-rate runs
	RequestRate string // "" when none
}

// parquetFixed are the columns before and after the label columns, in
// AIPerf's order; label columns (one per label name seen, sorted, minus
// these names) sit between timestamp_ns and value.
var (
	parquetHead = []string{"endpoint_url", "metric_name", "metric_type", "unit", "description", "timestamp_ns"}
	parquetTail = []string{"value", "sum", "count", "bucket_le", "bucket_count"}
)

// Parquet renders server_metrics_export.parquet as AIPerf 0.13 does: the
// raw time series in long form, one row per sample of a gauge or counter
// (counters as their increase from the reference sample) and one row per
// bucket per sample of a histogram (sum, count and bucket as increases),
// over the profiling window extended to the last update, snappy
// compressed, with the run described in aiperf.* metadata. It returns nil
// when no sample lies in the window (AIPerf then writes no file).
func (x *Export) Parquet(s *Store, meta ParquetMeta) ([]byte, error) {
	w := x.Profiling
	for _, url := range s.order {
		w.End = max(w.End, s.endpoints[url].lastUpdate())
	}
	if w.Start >= w.End {
		return nil, nil
	}
	reserved := map[string]bool{}
	for _, c := range slices.Concat(parquetHead, parquetTail) {
		reserved[c] = true
	}
	labelSet := map[string]bool{}
	metrics, typeCounts := 0, map[string]int{"gauge": 0, "counter": 0, "histogram": 0, "unknown": 0}
	for _, url := range s.order {
		for _, e := range s.endpoints[url].order {
			metrics++
			typeCounts[e.typ.String()]++
			for _, l := range e.labels {
				if !reserved[l.Name] {
					labelSet[l.Name] = true
				}
			}
		}
	}
	labels := make([]string, 0, len(labelSet))
	for l := range labelSet {
		labels = append(labels, l)
	}
	slices.Sort(labels)

	rowType := parquetRowType(labels)
	var rows []reflect.Value
	for _, url := range slices.Sorted(slices.Values(s.order)) {
		for _, e := range s.endpoints[url].order {
			rows = appendParquetRows(rows, rowType, url, e, labels, w)
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}

	opts := []parquet.WriterOption{
		parquet.Compression(&snappy.Codec{}),
		parquet.CreatedBy("aiperf-go", x.Version, ""),
	}
	kv := x.parquetMetadata(meta, w, labels, metrics, typeCounts, s)
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		opts = append(opts, parquet.KeyValueMetadata(k, kv[k]))
	}
	var buf bytes.Buffer
	pw := parquet.NewWriter(&buf, append(opts, parquet.SchemaOf(reflect.New(rowType).Elem().Interface()))...)
	for _, r := range rows {
		if err := pw.Write(r.Interface()); err != nil {
			return nil, fmt.Errorf("parquet row: %w", err)
		}
	}
	if err := pw.Close(); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	return buf.Bytes(), nil
}

// parquetRowType is the row struct of one file: the fixed columns around
// one optional string column per label name, in order.
func parquetRowType(labels []string) reflect.Type {
	// Every column is optional, as pyarrow writes AIPerf's (nullable).
	str, optStr, optF, i64 := reflect.TypeFor[*string](), reflect.TypeFor[*string](), reflect.TypeFor[*float64](), reflect.TypeFor[*int64]()
	field := func(i int, name string, t reflect.Type) reflect.StructField {
		tag := `parquet:"` + name
		if t.Kind() == reflect.Pointer {
			tag += ",optional"
		}
		return reflect.StructField{Name: "F" + strconv.Itoa(i), Type: t, Tag: reflect.StructTag(tag + `"`)}
	}
	var fs []reflect.StructField
	add := func(name string, t reflect.Type) { fs = append(fs, field(len(fs), name, t)) }
	add("endpoint_url", str)
	add("metric_name", str)
	add("metric_type", str)
	add("unit", optStr)
	add("description", optStr)
	add("timestamp_ns", i64)
	for _, l := range labels {
		add(l, optStr)
	}
	add("value", optF)
	add("sum", optF)
	add("count", optF)
	add("bucket_le", optStr)
	add("bucket_count", optF)
	return reflect.StructOf(fs)
}

// appendParquetRows adds one series' rows in w.
func appendParquetRows(rows []reflect.Value, rt reflect.Type, url string, e *entry, labels []string, w Window) []reflect.Value {
	unit := InferUnit(e.name, e.help)
	var unitPtr *string
	if unit != "" {
		unitPtr = &unit
	}
	help := e.help
	base := func(ts int64) reflect.Value {
		v := reflect.New(rt).Elem()
		u, name, typ := url, e.name, e.typ.String()
		v.Field(0).Set(reflect.ValueOf(&u))
		v.Field(1).Set(reflect.ValueOf(&name))
		v.Field(2).Set(reflect.ValueOf(&typ))
		v.Field(3).Set(reflect.ValueOf(unitPtr))
		v.Field(4).Set(reflect.ValueOf(&help))
		v.Field(5).Set(reflect.ValueOf(&ts))
		for i, l := range labels {
			for _, el := range e.labels {
				if el.Name == l {
					val := el.Value
					v.Field(6 + i).Set(reflect.ValueOf(&val))
				}
			}
		}
		return v
	}
	tail := 6 + len(labels)
	f64 := func(x float64) reflect.Value { return reflect.ValueOf(&x) }
	if e.hist == nil {
		s := e.scalar
		lo, hi := first(s.ts, w.Start), afterLast(s.ts, w.End)
		if lo >= hi {
			return rows
		}
		ref := s.vals[lo]
		if lo > 0 {
			ref = s.vals[lo-1]
		}
		for i := lo; i < hi; i++ {
			v := base(s.ts[i])
			val := s.vals[i]
			if e.typ == prom.Counter {
				val = max(val-ref, 0)
			}
			v.Field(tail).Set(f64(val))
			rows = append(rows, v)
		}
		return rows
	}
	h := e.hist
	final := afterLast(h.ts, w.End) - 1
	if final < 0 {
		return rows
	}
	lo := first(h.ts, w.Start)
	ref := lo
	if lo > 0 {
		ref = lo - 1
	}
	for i := lo; i <= final; i++ {
		sum, count := max(h.sums[i]-h.sums[ref], 0), max(h.counts[i]-h.counts[ref], 0)
		for k, le := range h.les {
			v := base(h.ts[i])
			v.Field(tail + 1).Set(f64(sum))
			v.Field(tail + 2).Set(f64(count))
			le := le
			v.Field(tail + 3).Set(reflect.ValueOf(&le))
			v.Field(tail + 4).Set(f64(max(h.cum[i][k]-h.cum[ref][k], 0)))
			rows = append(rows, v)
		}
	}
	return rows
}

// parquetMetadata is AIPerf's aiperf.* key-value metadata.
func (x *Export) parquetMetadata(meta ParquetMeta, w Window, labels []string, metrics int, typeCounts map[string]int, s *Store) map[string]string {
	js := func(v any) string {
		b, _ := json.Marshal(v) // strings, ints and maps of them always marshal
		return string(b)
	}
	host, _ := os.Hostname()
	kv := map[string]string{
		"aiperf.schema_version":             "1.0",
		"aiperf.version":                    x.Version,
		"aiperf.benchmark_id":               x.BenchmarkID,
		"aiperf.export_timestamp_utc":       time.Now().UTC().Format("2006-01-02T15:04:05.000000+00:00"),
		"aiperf.exporter":                   "ServerMetricsParquetExporter",
		"aiperf.hostname":                   host,
		"aiperf.go_version":                 strings.TrimPrefix(runtime.Version(), "go"),
		"aiperf.time_filter_start_ns":       strconv.FormatInt(w.Start, 10),
		"aiperf.time_filter_end_ns":         strconv.FormatInt(w.End, 10),
		"aiperf.profiling_duration_ns":      strconv.FormatInt(w.End-w.Start, 10),
		"aiperf.profiling_duration_seconds": strconv.FormatFloat(float64(w.End-w.Start)/1e9, 'g', -1, 64),
		"aiperf.model_names":                js(meta.Models),
		"aiperf.concurrency":                meta.Concurrency,
		"aiperf.endpoint_urls":              js(slices.Sorted(slices.Values(s.order))),
		"aiperf.endpoint_count":             strconv.Itoa(len(s.order)),
		"aiperf.label_columns":              js(labels),
		"aiperf.label_count":                strconv.Itoa(len(labels)),
		"aiperf.metric_count":               strconv.Itoa(metrics),
		"aiperf.metric_type_counts":         fmt.Sprintf(`{"gauge":%d,"counter":%d,"histogram":%d,"unknown":%d}`, typeCounts["gauge"], typeCounts["counter"], typeCounts["histogram"], typeCounts["unknown"]),
		"aiperf.schema_note":                "Label columns vary by endpoint/model. Use union_by_name=true for cross-file queries.",
	}
	if meta.RequestRate != "" {
		kv["aiperf.request_rate"] = meta.RequestRate
	}
	if x.InputConfig != nil {
		if b, err := json.Marshal(x.InputConfig); err == nil {
			kv["aiperf.input_config"] = string(b)
		}
	}
	return kv
}

// WriteParquet writes the parquet file to path atomically; no file is
// written when there are no rows.
func (x *Export) WriteParquet(path string, s *Store, meta ParquetMeta) error {
	b, err := x.Parquet(s, meta)
	if err != nil || b == nil {
		return err
	}
	return export.WriteFile(path, b)
}
