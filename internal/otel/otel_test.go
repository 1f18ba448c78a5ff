package otel

import (
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/aiperf-go/aiperf/internal/live"
	"github.com/aiperf-go/aiperf/internal/otel/otlptest"
)

func rec(phase string, latMs, ttftMs float64, osl int, err *live.RecordError) *live.Record {
	return &live.Record{
		Phase: phase, WorkerID: "worker_1", ProcessorID: "record_processor_0", Error: err,
		Metrics: []live.RecordMetric{
			{Tag: "request_latency", Unit: "ms", Value: latMs},
			{Tag: "time_to_first_token", Unit: "ms", Value: ttftMs},
			{Tag: "output_token_count", Unit: "tokens", Value: float64(osl)},
			{Tag: "input_sequence_length", Unit: "tokens", Value: 100},
			{Tag: "inter_chunk_latency", Unit: "ms", List: []float64{1, 2, 3}},
		},
	}
}

// histogram sums the data points of m whose attributes contain want.
func histogram(t *testing.T, m otlptest.Metric, want map[string]string) (count uint64, sum float64, bounds []float64) {
	t.Helper()
	h := m.GetHistogram()
	if h == nil {
		t.Fatalf("%s is not a histogram", m.GetName())
	}
	if h.GetAggregationTemporality() != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
		t.Errorf("%s temporality %v", m.GetName(), h.GetAggregationTemporality())
	}
	for _, dp := range h.GetDataPoints() {
		attrs := otlptest.Attrs(dp.GetAttributes())
		match := true
		for k, v := range want {
			if attrs[k] != v {
				match = false
			}
		}
		if match {
			count += dp.GetCount()
			sum += dp.GetSum()
			bounds = dp.GetExplicitBounds()
		}
	}
	return count, sum, bounds
}

func TestExporterSendsSemconvAndTiming(t *testing.T) {
	t.Parallel()
	rx := otlptest.New()
	defer rx.Close()
	e, err := New(context.Background(), Options{
		URL: rx.MetricsURL(), Metrics: true, Timing: true,
		Resource:     append(DefaultResource("bench123", "chat", "m1"), KV{"deployment.environment", "ci"}, KV{"service.name", "perf-lab"}),
		EndpointType: "chat", Model: "m1", Provider: "openai", Interval: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ObserveRecord(rec("warmup", 1000, 100, 10, nil))
	e.ObserveRecord(rec("profiling", 500, 50, 20, nil))
	e.ObserveRecord(rec("profiling", 1500, 150, 30, nil))
	e.ObserveRecord(rec("profiling", 2000, 0, 0, &live.RecordError{Code: 503, Type: "HTTPError"}))
	prog := live.Progress{Phase: "profiling", Sent: 3, Done: 2, Errors: 0, InFlight: 1, Total: 3, Elapsed: time.Second}
	e.Observe(&live.Snapshot{Seq: 1, Finished: []live.Progress{{Phase: "warmup", Sent: 1, Done: 1, Total: 1}}, Phase: prog})
	prog.Done, prog.Errors, prog.InFlight, prog.Elapsed = 3, 1, 0, 2*time.Second
	e.Observe(&live.Snapshot{Seq: 2, Finished: []live.Progress{{Phase: "warmup", Sent: 1, Done: 1, Total: 1}}, Phase: prog, Final: true})
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(rx.Requests()) == 0 || rx.ContentTypes[0] != "application/x-protobuf" {
		t.Fatalf("requests %d, content types %v", len(rx.Requests()), rx.ContentTypes)
	}
	ms := rx.Latest()
	dur, ok := ms[OperationDuration]
	if !ok {
		t.Fatalf("no %s; got %v", OperationDuration, slices.Sorted(maps.Keys(ms)))
	}
	if dur.GetUnit() != "s" {
		t.Errorf("%s unit %q", OperationDuration, dur.GetUnit())
	}
	res := dur.Resource
	if res["service.name"] != "perf-lab" || res["aiperf.benchmark.id"] != "bench123" || res["deployment.environment"] != "ci" || res["aiperf.model.name"] != "m1" {
		t.Errorf("resource = %v", res)
	}
	n, sum, bounds := histogram(t, dur, map[string]string{"aiperf.benchmark_phase": "profiling", "aiperf.has_error": "false",
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "m1", "aiperf.worker.id": "worker_1"})
	if n != 2 || math.Abs(sum-2.0) > 1e-9 || !slices.Equal(bounds, durationBounds) {
		t.Errorf("profiling durations: count %d sum %v bounds %v; want 2, 2.0 s", n, sum, bounds)
	}
	if n, _, _ := histogram(t, dur, map[string]string{"error.type": "http_5xx", "aiperf.has_error": "true"}); n != 1 {
		t.Errorf("failed request's duration count %d with error.type http_5xx; want 1", n)
	}
	if n, _, _ := histogram(t, dur, map[string]string{"aiperf.benchmark_phase": "warmup"}); n != 1 {
		t.Errorf("warmup durations %d; want 1", n)
	}
	tok := ms[TokenUsage]
	if tok.GetUnit() != "{token}" {
		t.Errorf("token usage unit %q", tok.GetUnit())
	}
	if n, s, _ := histogram(t, tok, map[string]string{"gen_ai.token.type": "output", "aiperf.benchmark_phase": "profiling"}); n != 3 || s != 50 {
		t.Errorf("output token usage count %d sum %v; want 3, 50", n, s)
	}
	if n, s, _ := histogram(t, tok, map[string]string{"gen_ai.token.type": "input"}); n != 4 || s != 400 {
		t.Errorf("input token usage count %d sum %v; want 4, 400", n, s)
	}
	if n, s, _ := histogram(t, ms[TimeToFirstChunk], nil); n != 4 || math.Abs(s-0.3) > 1e-9 {
		t.Errorf("ttfc count %d sum %v", n, s)
	}
	icl := ms["aiperf.inter_chunk_latency"]
	if n, s, _ := histogram(t, icl, nil); icl.GetUnit() != "ns" || n != 12 || s != 24e6 {
		t.Errorf("aiperf.inter_chunk_latency unit %q count %d sum %v; want ns, 12 values, 24e6", icl.GetUnit(), n, s)
	}
	if _, ok := ms["aiperf.input_sequence_length"]; !ok {
		t.Error("aiperf.input_sequence_length not sent (AIPerf sends it)")
	}
	if _, ok := ms["aiperf.request_latency"]; ok {
		t.Error("request_latency sent under its aiperf name too")
	}

	counter := func(name, phase string) float64 {
		t.Helper()
		m, ok := ms[name]
		if !ok {
			t.Fatalf("no %s", name)
		}
		var v float64
		if s := m.GetSum(); s != nil {
			for _, dp := range s.GetDataPoints() {
				if otlptest.Attrs(dp.GetAttributes())["aiperf.benchmark_phase"] == phase {
					v += float64(dp.GetAsInt()) + dp.GetAsDouble()
				}
			}
			if upDown[name] {
				if s.GetIsMonotonic() {
					t.Errorf("%s is monotonic; want an up-down counter", name)
				}
			} else if !s.GetIsMonotonic() {
				t.Errorf("%s is not monotonic", name)
			}
		}
		return v
	}
	for _, c := range []struct {
		name, phase string
		want        float64
	}{
		{RequestsSent, "profiling", 3}, {RequestsCompleted, "profiling", 3}, {RequestErrors, "profiling", 1},
		{RequestsInFlight, "profiling", 0}, {PhaseElapsed, "profiling", 2}, {RequestsCompleted, "warmup", 1},
	} {
		if got := counter(c.name, c.phase); got != c.want {
			t.Errorf("%s{%s} = %v; want %v", c.name, c.phase, got, c.want)
		}
	}
	if e.Dropped() != 0 {
		t.Errorf("dropped %d", e.Dropped())
	}
}

// upDown are the timing gauges, sent as up-down counters as AIPerf does.
var upDown = map[string]bool{RequestsInFlight: true, SessionsInFlight: true, PhaseTimeout: true,
	PhaseGrace: true, PhaseCancelled: true, PhaseElapsed: true}

// timingSums adds up, per phase, the latest data points of every timing
// metric the receiver got, checking each one's kind and unit.
func timingSums(t *testing.T, ms map[string]otlptest.Metric) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	for name, m := range ms {
		if !strings.HasPrefix(name, "aiperf.timing.") {
			continue
		}
		s := m.GetSum()
		if s == nil {
			t.Fatalf("%s is not a sum", name)
		}
		if s.GetIsMonotonic() == upDown[name] {
			t.Errorf("%s monotonic = %v", name, s.GetIsMonotonic())
		}
		if want := map[bool]string{true: "s", false: "1"}[strings.HasSuffix(name, "_sec")]; m.GetUnit() != want {
			t.Errorf("%s unit %q; want %q", name, m.GetUnit(), want)
		}
		for _, dp := range s.GetDataPoints() {
			phase := otlptest.Attrs(dp.GetAttributes())["aiperf.benchmark_phase"]
			if out[phase] == nil {
				out[phase] = map[string]float64{}
			}
			out[phase][name] += float64(dp.GetAsInt()) + dp.GetAsDouble()
		}
	}
	return out
}

// TestTimingSessionsCancelledAndFlags sends the progress of a multi-turn
// phase whose grace period ran out: cancelled requests leave the
// completed and errors counts (AIPerf counts them apart), sessions and
// their turns are counted, the phase flags are 0/1 gauges, and a
// completed count that dips for one snapshot (its two counters read one
// after the other) sends nothing twice.
func TestTimingSessionsCancelledAndFlags(t *testing.T) {
	t.Parallel()
	rx, e := timingExporter(t)
	p := live.Progress{Phase: "profiling", Sent: 10, Done: 6, Errors: 1, InFlight: 4, Duration: 2 * time.Second, Elapsed: time.Second,
		Sessions: live.Sessions{Sent: 4, Completed: 1, Turns: 12, Expected: 4}}
	e.Observe(&live.Snapshot{Seq: 1, Phase: p})
	p.Done, p.Elapsed = 5, 1500*time.Millisecond // a dip: completed 6 -> 5
	e.Observe(&live.Snapshot{Seq: 2, Phase: p})
	// The end: duration over, grace over, 3 in flight cancelled (they are
	// in Done and Errors too), their sessions cancelled.
	p = live.Progress{Phase: "profiling", Sent: 12, Done: 12, Errors: 4, Cancelled: 3, Duration: 2 * time.Second, Elapsed: 2 * time.Second,
		Sessions: live.Sessions{Sent: 4, Completed: 1, Cancelled: 3, Turns: 12, Expected: 4}, TimedOut: true, GraceTimedOut: true}
	e.Observe(&live.Snapshot{Seq: 3, Phase: p, Final: true})
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	ms := rx.Latest()
	for _, dp := range ms[SessionsSent].GetSum().GetDataPoints() {
		if a := otlptest.Attrs(dp.GetAttributes()); a["aiperf.expected_num_sessions"] != "4" || a["aiperf.expected_duration_sec"] != "2" {
			t.Errorf("%s attributes %v; want the phase's session and duration bounds", SessionsSent, a)
		}
	}
	got := timingSums(t, ms)["profiling"]
	want := map[string]float64{
		RequestsSent: 12, RequestsCompleted: 9, RequestsCancelled: 3, RequestErrors: 1,
		SessionsSent: 4, SessionsCompleted: 1, SessionsCancelled: 3, SessionTurns: 12,
		RequestsInFlight: 0, SessionsInFlight: 0, PhaseTimeout: 1, PhaseGrace: 1, PhaseElapsed: 2,
	}
	for name, w := range want {
		if math.Abs(got[name]-w) > 1e-9 {
			t.Errorf("%s = %v; want %v", name, got[name], w)
		}
	}
	if v, ok := got[PhaseCancelled]; ok && v != 0 {
		t.Errorf("%s = %v; the phase was not interrupted", PhaseCancelled, v)
	}
}

// timingExporter is an exporter of the timing domain only (--stream
// timing) to a fresh receiver, flushed only by Close.
func timingExporter(t *testing.T) (*otlptest.Receiver, *Exporter) {
	t.Helper()
	rx := otlptest.New()
	t.Cleanup(rx.Close)
	e, err := New(context.Background(), Options{URL: rx.MetricsURL(), Timing: true, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return rx, e
}

func TestStreamSelection(t *testing.T) {
	t.Parallel()
	rx, e := timingExporter(t)
	e.ObserveRecord(rec("profiling", 1, 1, 1, nil))
	e.Observe(&live.Snapshot{Seq: 1, Phase: live.Progress{Phase: "profiling", Sent: 1}, Final: true})
	e.Close(context.Background())
	ms := rx.Latest()
	if _, ok := ms[OperationDuration]; ok {
		t.Error("--stream timing sent request metrics")
	}
	if _, ok := ms[RequestsSent]; !ok {
		t.Error("--stream timing sent no timing counters")
	}
}

func TestInferProvider(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		override string
		urls     []string
		want     string
	}{
		{"", []string{"https://api.openai.com/v1"}, "openai"},
		{"", []string{"http://localhost:8000", "bedrock-runtime.us-east-1.amazonaws.com"}, "aws.bedrock"},
		{"", []string{"https://my.openai.azure.com"}, "azure.ai.openai"},
		{"", []string{"http://localhost:8000"}, "_OTHER"},
		{"vllm", []string{"https://api.openai.com"}, "vllm"},
	} {
		if got := InferProvider(tc.override, tc.urls); got != tc.want {
			t.Errorf("InferProvider(%q, %v) = %q; want %q", tc.override, tc.urls, got, tc.want)
		}
	}
	for in, want := range map[string]string{"chat": "chat", "completions": "text_completion", "embeddings": "embeddings", "rankings": "chat"} {
		if got := OperationName(in); got != want {
			t.Errorf("OperationName(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestErrorType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		e    *live.RecordError
		want string
	}{
		{nil, ""},
		{&live.RecordError{Code: 502}, "http_5xx"},
		{&live.RecordError{Code: 429}, "http_4xx"},
		{&live.RecordError{Code: 499, Type: "RequestCancellationError"}, "cancelled"},
		{&live.RecordError{Type: "TimeoutError"}, "timeout"},
		{&live.RecordError{Type: "X", Message: "cannot parse JSON body"}, "parse_error"},
		{&live.RecordError{Type: "ConnectionError"}, "_OTHER"},
	} {
		if got := errorType(tc.e); got != tc.want {
			t.Errorf("errorType(%+v) = %q; want %q", tc.e, got, tc.want)
		}
	}
}

// BenchmarkExporterRecord measures the exporter's per-request cost: the
// record consumer's hand-off plus the SDK recording of five histograms.
func BenchmarkExporterRecord(b *testing.B) {
	rx := otlptest.New()
	defer rx.Close()
	e, err := New(context.Background(), Options{URL: rx.MetricsURL(), Metrics: true, Interval: time.Hour, Buffer: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	r := rec("profiling", 500, 50, 20, nil)
	b.ReportAllocs()
	for b.Loop() {
		e.record(r)
	}
	b.StopTimer()
	e.Close(context.Background())
}
