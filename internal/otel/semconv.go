package otel

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/aiperf-go/aiperf/internal/live"
)

// spec is a GenAI semantic-convention histogram an AIPerf metric maps to.
type spec struct {
	name, unit string
	bounds     []float64
	tokenType  string // gen_ai.token.type for token usage; "" otherwise
}

// The spec's histogram bucket boundaries, as AIPerf advises them.
var (
	durationBounds = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	chunkBounds    = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.75, 1.0, 2.0, 5.0}
	tokenBounds    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216}
)

// Semantic-convention metric names.
const (
	OperationDuration  = "gen_ai.client.operation.duration"
	TimeToFirstChunk   = "gen_ai.client.operation.time_to_first_chunk"
	TimePerOutputChunk = "gen_ai.client.operation.time_per_output_chunk"
	TokenUsage         = "gen_ai.client.token.usage"
)

// specs maps AIPerf record metrics to their spec histograms. Durations go
// out in seconds, token counts as they are. AIPerf 0.13 maps
// "input_token_count", which none of its metrics is called, so its input
// usage never appears; here the prompt's input_sequence_length is the
// input token usage (and is also sent as aiperf.input_sequence_length, as
// AIPerf sends it).
var specs = map[string]spec{
	"request_latency":       {OperationDuration, "s", durationBounds, ""},
	"time_to_first_token":   {TimeToFirstChunk, "s", chunkBounds, ""},
	"inter_token_latency":   {TimePerOutputChunk, "s", chunkBounds, ""},
	"output_token_count":    {TokenUsage, "{token}", tokenBounds, "output"},
	"input_sequence_length": {TokenUsage, "{token}", tokenBounds, "input"},
	"input_token_count":     {TokenUsage, "{token}", tokenBounds, "input"},
}

// alsoNative are mapped metrics also sent under aiperf.<tag>.
var alsoNative = map[string]bool{"input_sequence_length": true}

// toSeconds converts a display-unit duration to seconds.
func toSeconds(v float64, unit string) float64 {
	switch unit {
	case "ns":
		return v * 1e-9
	case "us":
		return v * 1e-6
	case "ms":
		return v * 1e-3
	case "min":
		return v * 60
	}
	return v
}

// native is how a metric without a spec name goes out: AIPerf sends the
// record's base units, nanoseconds for durations.
func native(v float64, unit string) (float64, string) {
	switch unit {
	case "ms":
		return v * 1e6, "ns"
	case "us":
		return v * 1e3, "ns"
	case "s", "sec":
		return v * 1e9, "ns"
	case "":
		return v, "1"
	}
	return v, unit
}

// errorType classifies a failure for error.type, AIPerf's rules.
func errorType(e *live.RecordError) string {
	if e == nil {
		return ""
	}
	switch {
	case e.Code >= 500 && e.Code <= 599:
		return "http_5xx"
	case e.Code >= 400 && e.Code <= 499 && e.Code != 499:
		return "http_4xx"
	case e.Code == 499 || strings.Contains(strings.ToLower(e.Type), "cancel"):
		return "cancelled"
	case strings.Contains(strings.ToLower(e.Type), "timeout"):
		return "timeout"
	}
	m := strings.ToLower(e.Message)
	if strings.Contains(m, "json") && (strings.Contains(m, "parse") || strings.Contains(m, "decode")) {
		return "parse_error"
	}
	return "_OTHER"
}

// attrSets are the measurement options of one attribute combination,
// built once: attribute sets are sorted and hashed on creation, the
// costliest part of recording.
type attrSets struct {
	base, dur metric.MeasurementOption
	tok       map[string]metric.MeasurementOption // by gen_ai.token.type
}

// attrs returns the record's attribute sets, cached by what they hold.
func (e *Exporter) attrs(r *live.Record) *attrSets {
	et := errorType(r.Error)
	key := strings.Join([]string{r.WorkerID, r.ProcessorID, r.Phase, fmt.Sprint(r.Cancelled), fmt.Sprint(r.Error != nil), et, r.Model}, "\x00")
	if a, ok := e.sets[key]; ok {
		return a
	}
	base := []attribute.KeyValue{
		attribute.String("aiperf.worker.id", r.WorkerID),
		attribute.String("aiperf.record_processor.id", r.ProcessorID),
		attribute.String("aiperf.benchmark_phase", r.Phase),
		attribute.Bool("aiperf.was_cancelled", r.Cancelled),
		attribute.Bool("aiperf.has_error", r.Error != nil),
	}
	spec := append(append([]attribute.KeyValue(nil), base...), e.model(r)...)
	dur := spec
	if et != "" {
		dur = append(append([]attribute.KeyValue(nil), spec...), attribute.String("error.type", et))
	}
	a := &attrSets{base: metric.WithAttributes(base...), dur: metric.WithAttributes(dur...), tok: map[string]metric.MeasurementOption{}}
	for _, tt := range []string{"input", "output"} {
		a.tok[tt] = metric.WithAttributes(append(append([]attribute.KeyValue(nil), spec...), attribute.String("gen_ai.token.type", tt))...)
	}
	if len(e.sets) > 4096 { // unbounded worker ids: start over rather than grow
		clear(e.sets)
	}
	e.sets[key] = a
	return a
}

// record exports one request's metrics.
func (e *Exporter) record(r *live.Record) {
	ctx := context.Background()
	a := e.attrs(r)
	for _, m := range r.Metrics {
		values := m.List
		if values == nil {
			values = []float64{m.Value}
		}
		if sp, ok := specs[m.Tag]; ok {
			h := e.histogram(sp.name, sp.unit, "GenAI semconv metric: "+sp.name, sp.bounds)
			opt := a.dur
			if sp.tokenType != "" {
				opt = a.tok[sp.tokenType]
			}
			for _, v := range values {
				if sp.unit == "s" {
					v = toSeconds(v, m.Unit)
				}
				h.Record(ctx, v, opt)
			}
			if !alsoNative[m.Tag] {
				continue
			}
		}
		_, unit := native(0, m.Unit)
		h := e.histogram("aiperf."+m.Tag, unit, "AIPerf streaming metric: "+m.Tag, nil)
		for _, v := range values {
			nv, _ := native(v, m.Unit)
			h.Record(ctx, nv, a.base)
		}
	}
}

// model is the spec attributes with the record's own model when it has
// one (--model-selection-strategy spreads requests over models).
func (e *Exporter) model(r *live.Record) []attribute.KeyValue {
	if r.Model == "" || r.Model == e.opts.Model {
		return e.common
	}
	out := append([]attribute.KeyValue(nil), e.common...)
	for i, kv := range out {
		if kv.Key == "gen_ai.request.model" {
			out[i] = attribute.String("gen_ai.request.model", r.Model)
			return out
		}
	}
	return append(out, attribute.String("gen_ai.request.model", r.Model))
}

func (e *Exporter) histogram(name, unit, desc string, bounds []float64) metric.Float64Histogram {
	if h, ok := e.hists[name]; ok {
		return h
	}
	opts := []metric.Float64HistogramOption{metric.WithUnit(unit), metric.WithDescription(desc)}
	if bounds != nil {
		opts = append(opts, metric.WithExplicitBucketBoundaries(bounds...))
	}
	h, err := e.meter.Float64Histogram(name, opts...)
	if err != nil {
		e.opts.Log.Warn("otel: instrument", "name", name, "error", err)
	}
	e.hists[name] = h
	return h
}
