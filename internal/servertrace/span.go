package servertrace

import (
	"math"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/aiperf-go/aiperf/internal/record"
)

// vLLM's span attributes (vllm/tracing.py SpanAttributes): the request id
// and latencies in seconds. time_in_model_prefill runs from scheduling to
// the first token, time_in_model_decode from the first token to the last,
// time_in_model_inference from scheduling to the last token.
const (
	AttrRequestID = "gen_ai.request.id"
	AttrQueue     = "gen_ai.latency.time_in_queue"
	AttrPrefill   = "gen_ai.latency.time_in_model_prefill"
	AttrDecode    = "gen_ai.latency.time_in_model_decode"
	AttrInference = "gen_ai.latency.time_in_model_inference"
	AttrPrompt    = "gen_ai.usage.prompt_tokens"
	AttrGenerated = "gen_ai.usage.completion_tokens"
)

// idPrefixes are what vLLM puts before the X-Request-ID it was sent
// (chat completions, completions, responses, embeddings).
var idPrefixes = []string{"chatcmpl-", "cmpl-", "resp_", "embd-"}

// RequestID is the client's X-Request-ID within a span's request id.
func RequestID(spanID string) string {
	for _, p := range idPrefixes {
		if s, ok := strings.CutPrefix(spanID, p); ok {
			return s
		}
	}
	return spanID
}

// spanTiming reads one span; ok is false when it carries no request id or
// none of the latencies.
func spanTiming(sp *tracepb.Span) (id string, t record.ServerTiming, ok bool) {
	t = record.ServerTiming{Source: record.VLLMSpan, PromptTokens: -1, DecodedTokens: -1}
	for _, kv := range sp.GetAttributes() {
		v := kv.GetValue()
		switch kv.GetKey() {
		case AttrRequestID:
			id = RequestID(v.GetStringValue())
		case AttrQueue:
			t.Queue, t.Has = seconds(v, &ok, t.Has, record.HasQueue)
		case AttrPrefill:
			t.Prefill, t.Has = seconds(v, &ok, t.Has, record.HasPrefill)
		case AttrDecode:
			t.Decode, t.Has = seconds(v, &ok, t.Has, record.HasDecode)
		case AttrInference:
			t.Inference, t.Has = seconds(v, &ok, t.Has, record.HasInference)
		case AttrPrompt:
			t.PromptTokens = intOf(v)
		case AttrGenerated:
			t.DecodedTokens = intOf(v)
		}
	}
	if t.Has&(record.HasPrefill|record.HasDecode) == record.HasPrefill|record.HasDecode && t.Has&record.HasInference == 0 {
		t.Inference, t.Has = t.Prefill+t.Decode, t.Has|record.HasInference
	}
	return id, t, ok && id != ""
}

// seconds reads a latency attribute (a double, or an int of seconds) and
// marks its part; a negative, NaN or absurd value is left out.
func seconds(v *commonpb.AnyValue, any *bool, has, part record.ServerParts) (time.Duration, record.ServerParts) {
	var s float64
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_DoubleValue:
		s = x.DoubleValue
	case *commonpb.AnyValue_IntValue:
		s = float64(x.IntValue)
	default:
		return 0, has
	}
	if !(s >= 0 && s < 86400) {
		return 0, has
	}
	*any = true
	return time.Duration(math.Round(s * 1e9)), has | part
}

func intOf(v *commonpb.AnyValue) int {
	if x, ok := v.GetValue().(*commonpb.AnyValue_IntValue); ok && x.IntValue >= 0 && x.IntValue <= math.MaxInt32 {
		return int(x.IntValue)
	}
	return -1
}
