// Package otel streams a run's metrics to an OpenTelemetry collector over
// OTLP/HTTP (--otel-url), as AIPerf 0.13's otel_metrics_streamer does:
//
//   - metrics: every finished request's record metrics as histograms,
//     the GenAI semantic-convention ones under their spec names and units
//     (gen_ai.client.operation.duration, .time_to_first_chunk,
//     .time_per_output_chunk in seconds, gen_ai.client.token.usage in
//     {token}) and every other under aiperf.<tag>;
//   - timing: the phases' progress counters (aiperf.timing.requests.*)
//     and gauges as up-down counters (in_flight, phase.elapsed_sec).
//
// It is the only package that links the OpenTelemetry SDK (and, through
// its exporter, grpc's status types), so nothing else grows with it.
// Export runs in the SDK's periodic reader; the run's record consumer only
// hands records to a buffered channel, and a full buffer drops records
// (counted, and logged at Close) rather than slowing the run.
package otel

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/aiperf-go/aiperf/internal/live"
)

// Options configure an Exporter.
type Options struct {
	// URL is the OTLP/HTTP metrics endpoint (…/v1/metrics).
	URL string
	// Metrics and Timing select the streamed domains (--stream).
	Metrics, Timing bool
	// Resource are the resource attributes in order; a later key
	// overrides an earlier one (DefaultResource, then the user's).
	Resource []KV
	// EndpointType is --endpoint-type (gen_ai.operation.name); Model the
	// first model (gen_ai.request.model); Provider gen_ai.provider.name.
	EndpointType, Model, Provider string
	// Interval is the export period (default 2 s, AIPerf's); Timeout
	// bounds one export (default 10 s).
	Interval, Timeout time.Duration
	// Buffer is how many records may wait for the exporter (default
	// 10000, AIPerf's AIPERF_OTEL_MAX_BUFFERED_RECORDS).
	Buffer int
	// Log receives export problems; nil discards them.
	Log *slog.Logger
}

// KV is one attribute.
type KV struct{ Key, Value string }

// DefaultResource are AIPerf's resource attributes of a run.
func DefaultResource(benchmarkID, endpointType, model string) []KV {
	kv := []KV{{"service.name", "aiperf"}, {"service.instance.id", "records-manager"}}
	if benchmarkID != "" {
		kv = append(kv, KV{"aiperf.benchmark.id", benchmarkID})
	}
	kv = append(kv, KV{"aiperf.endpoint.type", endpointType})
	if model != "" {
		kv = append(kv, KV{"aiperf.model.name", model})
	}
	return kv
}

// Exporter streams one run (or the runs of an experiment) to a
// collector. It is a live.Observer (timing) and a live.RecordObserver
// (metrics).
type Exporter struct {
	opts     Options
	provider *sdkmetric.MeterProvider
	meter    metric.Meter
	common   []attribute.KeyValue // gen_ai.operation.name, provider, model

	records chan *live.Record
	snaps   chan *live.Snapshot
	done    chan struct{}
	closeMu sync.Once

	// Owned by the loop goroutine.
	hists   map[string]metric.Float64Histogram
	counts  map[string]metric.Int64Counter
	updowns map[string]metric.Float64UpDownCounter
	prev    map[string]float64 // timing values last sent, by phase/name
	sets    map[string]*attrSets
	dropped int
	mu      sync.Mutex // dropped, read by Close
}

var (
	_ live.Observer       = (*Exporter)(nil)
	_ live.RecordObserver = (*Exporter)(nil)
)

// New starts an exporter. Nothing is sent until the first export period.
func New(ctx context.Context, o Options) (*Exporter, error) {
	if o.Interval <= 0 {
		o.Interval = 2 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.Buffer <= 0 {
		o.Buffer = 10000
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	// Export failures surface through the SDK's global error handler:
	// route them to the run's log instead of the SDK's stderr logger.
	otelapi.SetErrorHandler(otelapi.ErrorHandlerFunc(func(err error) { o.Log.Warn("otel export", "error", err) }))
	exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(o.URL), otlpmetrichttp.WithTimeout(o.Timeout))
	if err != nil {
		return nil, fmt.Errorf("--otel-url: %w", err)
	}
	attrs := make([]attribute.KeyValue, 0, len(o.Resource))
	seen := map[string]int{}
	for _, kv := range o.Resource {
		if i, ok := seen[kv.Key]; ok {
			attrs[i] = attribute.String(kv.Key, kv.Value)
			continue
		}
		seen[kv.Key] = len(attrs)
		attrs = append(attrs, attribute.String(kv.Key, kv.Value))
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
	if err != nil {
		res = resource.NewSchemaless(attrs...)
	}
	reader := sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(o.Interval), sdkmetric.WithTimeout(o.Timeout))
	e := &Exporter{
		opts:     o,
		provider: sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(reader)),
		records:  make(chan *live.Record, o.Buffer),
		snaps:    make(chan *live.Snapshot, 64),
		done:     make(chan struct{}),
		hists:    map[string]metric.Float64Histogram{},
		counts:   map[string]metric.Int64Counter{},
		updowns:  map[string]metric.Float64UpDownCounter{},
		prev:     map[string]float64{},
		sets:     map[string]*attrSets{},
	}
	e.meter = e.provider.Meter("aiperf.records")
	e.common = []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", OperationName(o.EndpointType)),
		attribute.String("gen_ai.provider.name", o.Provider),
	}
	if o.Model != "" {
		e.common = append(e.common, attribute.String("gen_ai.request.model", o.Model))
	}
	go e.loop()
	return e, nil
}

// ObserveRecord queues one request's metrics (stream "metrics").
func (e *Exporter) ObserveRecord(r *live.Record) {
	if !e.opts.Metrics {
		return
	}
	select {
	case e.records <- r:
	default:
		e.mu.Lock()
		e.dropped++
		n := e.dropped
		e.mu.Unlock()
		if n == 1 || n == 100 || n == 1000 {
			e.opts.Log.Warn("otel: export buffer full; dropping records", "dropped", n)
		}
	}
}

// Observe queues one snapshot's phase counters (stream "timing"). The
// final snapshot is always delivered.
func (e *Exporter) Observe(s *live.Snapshot) {
	if !e.opts.Timing {
		return
	}
	if s.Final {
		e.snaps <- s
		return
	}
	select {
	case e.snaps <- s:
	default: // the next snapshot carries the same counters, later
	}
}

// Close exports what is left and shuts the SDK down; ctx bounds it.
func (e *Exporter) Close(ctx context.Context) error {
	e.closeMu.Do(func() {
		close(e.records)
		close(e.snaps)
	})
	<-e.done
	err := e.provider.ForceFlush(ctx)
	if serr := e.provider.Shutdown(ctx); err == nil {
		err = serr
	}
	e.mu.Lock()
	if e.dropped > 0 {
		e.opts.Log.Warn("otel: records dropped because the exporter fell behind", "dropped", e.dropped)
	}
	e.mu.Unlock()
	return err
}

// Dropped is how many records the full buffer dropped.
func (e *Exporter) Dropped() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dropped
}

func (e *Exporter) loop() {
	defer close(e.done)
	recs, snaps := e.records, e.snaps
	for recs != nil || snaps != nil {
		select {
		case r, ok := <-recs:
			if !ok {
				recs = nil
				continue
			}
			e.record(r)
		case s, ok := <-snaps:
			if !ok {
				snaps = nil
				continue
			}
			e.timing(s)
		}
	}
}

// OperationName maps --endpoint-type to gen_ai.operation.name (AIPerf's
// table; other types are "chat").
func OperationName(endpointType string) string {
	switch strings.ToLower(endpointType) {
	case "completions":
		return "text_completion"
	case "embeddings":
		return "embeddings"
	}
	return "chat"
}

// providerHosts infer gen_ai.provider.name from the endpoint's host, the
// GenAI semantic conventions' well-known values (AIPerf's table).
var providerHosts = []struct {
	re       *regexp.Regexp
	provider string
}{
	{regexp.MustCompile(`api\.openai\.com$`), "openai"},
	{regexp.MustCompile(`api\.anthropic\.com$`), "anthropic"},
	{regexp.MustCompile(`api\.deepseek\.com$`), "deepseek"},
	{regexp.MustCompile(`api\.mistral\.ai$`), "mistral_ai"},
	{regexp.MustCompile(`api\.cohere\.(ai|com)$`), "cohere"},
	{regexp.MustCompile(`api\.x\.ai$`), "x_ai"},
	{regexp.MustCompile(`api\.groq\.com$`), "groq"},
	{regexp.MustCompile(`api\.perplexity\.ai$`), "perplexity"},
	{regexp.MustCompile(`generativelanguage\.googleapis\.com$`), "gcp.gemini"},
	{regexp.MustCompile(`.*-aiplatform\.googleapis\.com$`), "gcp.vertex_ai"},
	{regexp.MustCompile(`bedrock-runtime\..*\.amazonaws\.com$`), "aws.bedrock"},
	{regexp.MustCompile(`.*\.openai\.azure\.com$`), "azure.ai.openai"},
	{regexp.MustCompile(`.*\.services\.ai\.azure\.com$`), "azure.ai.inference"},
	{regexp.MustCompile(`.*\.ibm\.com$`), "ibm.watsonx.ai"},
}

// InferProvider is gen_ai.provider.name: override when given, else the
// first URL whose host is a known provider's, else "_OTHER".
func InferProvider(override string, urls []string) string {
	if override != "" {
		return override
	}
	for _, raw := range urls {
		host := strings.ToLower(strings.TrimSpace(raw))
		if strings.Contains(host, "://") {
			u, err := url.Parse(host)
			if err != nil {
				continue
			}
			host = u.Hostname()
		} else {
			host, _, _ = strings.Cut(host, "/")
			host, _, _ = strings.Cut(host, ":")
		}
		for _, p := range providerHosts {
			if host != "" && p.re.MatchString(host) {
				return p.provider
			}
		}
	}
	return "_OTHER"
}
