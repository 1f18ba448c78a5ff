package servertrace

import (
	"testing"
	"testing/synctest"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/aiperf-go/aiperf/internal/record"
)

func exportOf(id string, queue float64) *coltracepb.ExportTraceServiceRequest {
	kv := func(k string, v *commonpb.AnyValue) *commonpb.KeyValue { return &commonpb.KeyValue{Key: k, Value: v} }
	d := func(v float64) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}
	}
	sp := &tracepb.Span{Name: "llm_request", Attributes: []*commonpb.KeyValue{
		kv(AttrRequestID, &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "chatcmpl-" + id}}),
		kv(AttrQueue, d(queue)), kv(AttrPrefill, d(0.010)), kv(AttrDecode, d(0.020)),
	}}
	return &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{Spans: []*tracepb.Span{sp}}}}}}
}

func newBare() *Receiver {
	return &Receiver{timings: map[string]record.ServerTiming{}, arrived: make(chan struct{})}
}

// TestJoin: a record whose span came first goes on at once; one whose span
// comes later waits for it, and the records behind it wait in order; a
// record whose span never comes goes on without one after the wait; a
// failed record does not wait.
func TestJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newBare()
		in, out := make(chan *record.Record), make(chan *record.Record, 10)
		go r.Join(in, out, 10*time.Second)

		r.add(exportOf("a", 0.001))
		a := &record.Record{XRequestID: "a"}
		in <- a
		synctest.Wait()
		if got := <-out; got != a || got.Server.Queue != time.Millisecond || got.Server.Inference != 30*time.Millisecond {
			t.Fatalf("a: %+v", got.Server)
		}

		b := &record.Record{XRequestID: "b"}
		c := &record.Record{XRequestID: "c", Error: &record.ErrorDetails{Type: "x"}}
		in <- b
		in <- c
		synctest.Wait()
		if len(out) != 0 {
			t.Fatalf("%d records went on before b's span", len(out))
		}
		time.Sleep(3 * time.Second) // the span comes 3 s later (fake clock)
		r.add(exportOf("b", 0.002))
		synctest.Wait()
		if got := <-out; got != b || got.Server.Queue != 2*time.Millisecond {
			t.Fatalf("b: %+v", got.Server)
		}
		if got := <-out; got != c || got.Server.Known() {
			t.Fatalf("c: %+v", got)
		}

		d := &record.Record{XRequestID: "d"}
		in <- d
		time.Sleep(10*time.Second - time.Nanosecond)
		synctest.Wait()
		if len(out) != 0 {
			t.Fatal("d went on before its wait was over")
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if got := <-out; got != d || got.Server.Known() {
			t.Fatalf("d: %+v", got)
		}
		close(in)
		synctest.Wait()
		if _, ok := <-out; ok {
			t.Fatal("out not closed")
		}
	})
}
