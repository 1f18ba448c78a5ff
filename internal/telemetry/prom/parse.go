// Package prom reads Prometheus metrics pages: it parses the text
// exposition format and OpenMetrics with expfmt into a small model (Family,
// Series) shaped the way AIPerf reads a page, and scrapes endpoints with the
// timing, de-duplication and auto-disable rules AIPerf applies to them.
//
// It is shared by every telemetry source that speaks Prometheus: the
// inference server's own /metrics (package servermetrics) and the DCGM
// exporter (package dcgm).
package prom

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/metrics/stats"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Type is a metric family's type. Summaries are never returned (AIPerf skips
// them: their quantiles cover the server's lifetime, not a benchmark).
type Type uint8

// Family types, named as AIPerf names them in its exports.
const (
	Gauge Type = iota
	Counter
	Histogram
	Unknown // untyped
)

// String returns AIPerf's name of t: "gauge", "counter", "histogram",
// "unknown".
func (t Type) String() string {
	switch t {
	case Gauge:
		return "gauge"
	case Counter:
		return "counter"
	case Histogram:
		return "histogram"
	}
	return "unknown"
}

// Label is one label pair.
type Label struct{ Name, Value string }

// Bucket is one cumulative histogram bucket. LE is the bound as the server
// wrote it ("0.5", "1.0", "+Inf"), which exports use as the bucket key.
type Bucket struct {
	LE    string
	Bound float64
	Count float64
}

// Series is one label set of a family: Value for gauges, counters and
// untyped metrics; Buckets (sorted by bound, +Inf last when present), Sum
// and Count for histograms.
type Series struct {
	Labels  []Label // sorted by name
	Value   float64
	Buckets []Bucket
	Sum     float64
	Count   float64
}

// Family is one metric family of a page. Name is AIPerf's: counters lose a
// trailing "_total" (vllm:generation_tokens).
type Family struct {
	Name   string
	Help   string
	Type   Type
	Series []Series
}

// ErrNotPrometheus reports a body that is not Prometheus exposition, e.g.
// TRT-LLM's JSON iteration statistics at /metrics.
var ErrNotPrometheus = errors.New("not Prometheus exposition format")

// Parse reads a metrics page. contentType selects the OpenMetrics parser
// for "application/openmetrics-text" (falling back to the text parser if it
// rejects the page); everything else is read as the text format.
//
// As AIPerf does, it skips families named *_created, *_uptime or
// containing "_uptime_", summaries, samples that are not finite (a
// histogram series with any non-finite part is dropped whole), and
// families left without series; for a repeated label set the last sample
// wins. Families are sorted by name. An unparsable page is an error
// wrapping ErrNotPrometheus.
func Parse(body []byte, contentType string) ([]Family, error) {
	var mfs []*dto.MetricFamily
	var err error
	if isOpenMetrics(contentType) {
		mfs, err = parseOpenMetrics(body, contentType)
	}
	if mfs == nil {
		mfs, err = parseText(body)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotPrometheus, err)
	}
	les := rawBounds(body)
	out := make([]Family, 0, len(mfs))
	for _, mf := range mfs {
		if f, ok := convert(mf, les); ok {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func isOpenMetrics(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == expfmt.OpenMetricsType
}

func parseText(body []byte) ([]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	byName, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	out := make([]*dto.MetricFamily, 0, len(byName))
	for _, mf := range byName {
		out = append(out, mf)
	}
	return out, nil
}

// parseOpenMetrics returns nil families (and the error) when the page is
// not valid OpenMetrics, so the caller can fall back to the text parser.
func parseOpenMetrics(body []byte, contentType string) ([]*dto.MetricFamily, error) {
	v := openMetricsVersion(contentType)
	if v == "" {
		v = expfmt.OpenMetricsVersion_1_0_0
	}
	// expfmt decodes OpenMetrics only for a charset=utf-8 format; allowing
	// UTF-8 names keeps quoted names readable (model.UTF8Validation).
	format := expfmt.Format(expfmt.OpenMetricsType + "; version=" + v + "; charset=utf-8").WithEscapingScheme(model.NoEscaping)
	dec := expfmt.NewDecoder(bytes.NewReader(body), format)
	var out []*dto.MetricFamily
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, mf)
	}
}

func openMetricsVersion(contentType string) string {
	_, params, _ := mime.ParseMediaType(contentType)
	return params["version"]
}

// convert turns one parsed family into AIPerf's model; ok is false for a
// family AIPerf skips.
func convert(mf *dto.MetricFamily, les map[uint64]string) (Family, bool) {
	name := mf.GetName()
	if strings.HasSuffix(name, "_created") || strings.HasSuffix(name, "_uptime") || strings.Contains(name, "_uptime_") {
		return Family{}, false
	}
	f := Family{Name: name, Help: mf.GetHelp()}
	switch mf.GetType() {
	case dto.MetricType_GAUGE:
		f.Type = Gauge
	case dto.MetricType_COUNTER:
		f.Type = Counter
		f.Name = strings.TrimSuffix(name, "_total")
	case dto.MetricType_UNTYPED:
		f.Type = Unknown
	case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
		f.Type = Histogram
	default: // summaries
		return Family{}, false
	}
	index := map[string]int{} // label key -> position in f.Series (last wins)
	for _, m := range mf.GetMetric() {
		s, ok := series(f.Type, m, les)
		if !ok {
			continue
		}
		key := labelKey(s.Labels)
		if i, dup := index[key]; dup {
			f.Series[i] = s
			continue
		}
		index[key] = len(f.Series)
		f.Series = append(f.Series, s)
	}
	return f, len(f.Series) > 0
}

func series(t Type, m *dto.Metric, les map[uint64]string) (Series, bool) {
	s := Series{Labels: labels(m.GetLabel())}
	switch t {
	case Gauge:
		s.Value = m.GetGauge().GetValue()
	case Counter:
		s.Value = m.GetCounter().GetValue()
	case Unknown:
		s.Value = m.GetUntyped().GetValue()
	case Histogram:
		h := m.GetHistogram()
		s.Sum = h.GetSampleSum()
		s.Count = h.GetSampleCountFloat()
		if s.Count == 0 {
			s.Count = float64(h.GetSampleCount())
		}
		if !stats.Finite(s.Sum) || !stats.Finite(s.Count) {
			return Series{}, false
		}
		for _, b := range h.GetBucket() {
			c := b.GetCumulativeCountFloat()
			if c == 0 {
				c = float64(b.GetCumulativeCount())
			}
			bound := b.GetUpperBound()
			if !stats.Finite(c) || math.IsNaN(bound) {
				return Series{}, false
			}
			s.Buckets = append(s.Buckets, Bucket{LE: boundString(bound, les), Bound: bound, Count: c})
		}
		slices.SortStableFunc(s.Buckets, func(a, b Bucket) int { return cmp.Compare(a.Bound, b.Bound) })
		return s, len(s.Buckets) > 0 || h.SampleSum != nil || h.SampleCount != nil || h.SampleCountFloat != nil
	}
	return s, stats.Finite(s.Value)
}

func labels(pairs []*dto.LabelPair) []Label {
	if len(pairs) == 0 {
		return nil
	}
	out := make([]Label, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, Label{p.GetName(), p.GetValue()})
	}
	slices.SortFunc(out, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// labelKey is a label set's identity.
func labelKey(ls []Label) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Name)
		b.WriteByte(0)
		b.WriteString(l.Value)
		b.WriteByte(0)
	}
	return b.String()
}

// LabelKey returns a stable identity of a label set (sorted labels), for
// keying series across scrapes.
func LabelKey(ls []Label) string { return labelKey(ls) }

// rawBounds maps each le bound written on the page to its spelling, so a
// bucket keeps the key the server gave it ("1.0" from Python servers, "1"
// from Go and Rust ones); expfmt keeps only the number.
func rawBounds(body []byte) map[uint64]string {
	out := map[uint64]string{}
	rest := body
	for {
		i := bytes.Index(rest, []byte(`le="`))
		if i < 0 {
			return out
		}
		rest = rest[i+4:]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			return out
		}
		raw := string(rest[:j])
		rest = rest[j:]
		if v, err := parseBound(raw); err == nil {
			if _, seen := out[math.Float64bits(v)]; !seen {
				out[math.Float64bits(v)] = raw
			}
		}
	}
}

func parseBound(s string) (float64, error) {
	switch s {
	case "+Inf", "Inf", "+inf", "inf":
		return math.Inf(1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// boundString spells a bucket bound: as written on the page when known,
// else as Python's float repr would ("+Inf", "1.0", "0.25").
func boundString(v float64, les map[uint64]string) string {
	if s, ok := les[math.Float64bits(v)]; ok {
		return s
	}
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if v == math.Trunc(v) && !strings.ContainsAny(s, "e.") {
		s += ".0"
	}
	return s
}
