package servertrace

import (
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/aiperf-go/aiperf/internal/record"
)

func TestSpanTiming(t *testing.T) {
	kv := func(k string, v *commonpb.AnyValue) *commonpb.KeyValue { return &commonpb.KeyValue{Key: k, Value: v} }
	d := func(v float64) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v}}
	}
	i := func(v int64) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}
	}
	s := func(v string) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}
	}
	ms := time.Millisecond
	cases := []struct {
		name  string
		attrs []*commonpb.KeyValue
		ok    bool
		id    string
		want  record.ServerTiming
	}{
		{"full", []*commonpb.KeyValue{kv(AttrRequestID, s("cmpl-r1")), kv(AttrQueue, d(0.005)), kv(AttrPrefill, d(0.02)), kv(AttrDecode, d(0.03)), kv(AttrPrompt, i(12)), kv(AttrGenerated, i(4))},
			true, "r1", record.ServerTiming{Source: record.VLLMSpan, Has: record.HasQueue | record.HasPrefill | record.HasDecode | record.HasInference,
				Queue: 5 * ms, Prefill: 20 * ms, Decode: 30 * ms, Inference: 50 * ms, PromptTokens: 12, DecodedTokens: 4}},
		{"inference reported", []*commonpb.KeyValue{kv(AttrRequestID, s("r2")), kv(AttrInference, d(1))},
			true, "r2", record.ServerTiming{Source: record.VLLMSpan, Has: record.HasInference, Inference: time.Second, PromptTokens: -1, DecodedTokens: -1}},
		{"no id", []*commonpb.KeyValue{kv(AttrQueue, d(0.005))}, false, "", record.ServerTiming{}},
		{"no latency", []*commonpb.KeyValue{kv(AttrRequestID, s("r3"))}, false, "", record.ServerTiming{}},
		{"negative", []*commonpb.KeyValue{kv(AttrRequestID, s("r4")), kv(AttrQueue, d(-1))}, false, "", record.ServerTiming{}},
		{"string latency", []*commonpb.KeyValue{kv(AttrRequestID, s("r5")), kv(AttrQueue, s("0.1"))}, false, "", record.ServerTiming{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, got, ok := spanTiming(&tracepb.Span{Attributes: c.attrs})
			if ok != c.ok || (ok && (id != c.id || got != c.want)) {
				t.Errorf("got %q %+v %v; want %q %+v %v", id, got, ok, c.id, c.want, c.ok)
			}
		})
	}
}

// FuzzSpanTiming: any span the protobuf decoder accepts reads as either
// nothing or a consistent account (no negative part).
func FuzzSpanTiming(f *testing.F) {
	b, _ := proto.Marshal(&tracepb.Span{Attributes: []*commonpb.KeyValue{
		{Key: AttrRequestID, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "chatcmpl-x"}}},
		{Key: AttrQueue, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: 0.01}}},
	}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var sp tracepb.Span
		if proto.Unmarshal(data, &sp) != nil {
			return
		}
		id, got, ok := spanTiming(&sp)
		if !ok {
			return
		}
		if id == "" || got.Queue < 0 || got.Prefill < 0 || got.Decode < 0 || got.Inference < 0 {
			t.Errorf("inconsistent %q %+v", id, got)
		}
	})
}
