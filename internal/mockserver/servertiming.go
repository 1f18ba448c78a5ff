package mockserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The server forms the mock can give its own account of each request in
// (--server-timing), as real servers do: llama.cpp's "timings" object,
// TGI's timing headers, vLLM's per-request OpenTelemetry span.
const (
	ServerTimingNone     = "none"
	ServerTimingLlamaCpp = "llamacpp"
	ServerTimingTGI      = "tgi"
	ServerTimingVLLM     = "vllm-otlp"
)

// OTLP trace protocols of --otlp-traces-protocol (vLLM's
// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL values).
const (
	OTLPGRPC         = "grpc"
	OTLPHTTPProtobuf = "http/protobuf"
)

// ServerTimingForms lists --server-timing's values.
func ServerTimingForms() []string {
	return []string{ServerTimingNone, ServerTimingLlamaCpp, ServerTimingTGI, ServerTimingVLLM}
}

// registerServerTimingFlags binds --server-timing, --server-queue-ms and
// the OTLP trace export flags.
func (c *Config) registerServerTimingFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.ServerTiming, "server-timing", c.ServerTiming,
		"report each request's server-side times as this server does: "+strings.Join(ServerTimingForms(), ", "))
	fs.Var(&millis{&c.ServerQueue}, "server-queue-ms", "hold each request this long before its prefill, and report it as its queue time")
	fs.StringVar(&c.OTLPTracesEndpoint, "otlp-traces-endpoint", c.OTLPTracesEndpoint,
		"with --server-timing vllm-otlp: where to send each request's span (host:port for grpc, a URL for http/protobuf)")
	fs.StringVar(&c.OTLPTracesProtocol, "otlp-traces-protocol", c.OTLPTracesProtocol,
		"with --server-timing vllm-otlp: "+OTLPGRPC+" or "+OTLPHTTPProtobuf)
}

// validateServerTiming checks the server-timing options.
func (c *Config) validateServerTiming() []error {
	var errs []error
	if c.ServerTiming != "" && !slices.Contains(ServerTimingForms(), c.ServerTiming) {
		errs = append(errs, fmt.Errorf("server-timing: %q is not one of %s", c.ServerTiming, strings.Join(ServerTimingForms(), ", ")))
	}
	if c.ServerQueue < 0 {
		errs = append(errs, fmt.Errorf("server-queue-ms: must be >= 0, got %v", durationMillis(c.ServerQueue)))
	}
	if c.ServerTiming == ServerTimingVLLM {
		if c.OTLPTracesEndpoint == "" {
			errs = append(errs, errors.New("otlp-traces-endpoint: --server-timing vllm-otlp needs an endpoint to send spans to"))
		}
		if p := c.OTLPTracesProtocol; p != "" && p != OTLPGRPC && p != OTLPHTTPProtobuf {
			errs = append(errs, fmt.Errorf("otlp-traces-protocol: %q is not %s or %s", p, OTLPGRPC, OTLPHTTPProtobuf))
		}
	}
	return errs
}

// serverTimes is the mock's account of one request, in the plan of its
// latency model: the queue it was held, the time to its first token
// (prefill) and from the first token to the last (decode). With the
// latency model (not --fast, not batched) every figure is the planned
// deadline, so it equals the configured values exactly; otherwise the
// prefill and decode are measured.
type serverTimes struct {
	queue, prefill, decode time.Duration
	promptTokens, tokens   int
	arrival, end           time.Time // for the span's start and end
	requestID              string    // X-Request-ID, for the span
}

// plannedTimes returns the account of resp, whose latency model started
// at resp.arrival after a queue wait of queue. streamed tells whether the
// tokens left one by one (decode runs from the first to the last token)
// or in one body (decode runs to the answer, n ITLs after the first
// token's deadline).
func plannedTimes(resp *response, queue time.Duration, streamed bool, first, last time.Time) serverTimes {
	t := serverTimes{queue: queue, promptTokens: resp.plan.PromptTokens, tokens: resp.plan.Count, end: time.Now()}
	t.arrival = resp.arrival.Add(-queue)
	switch c := resp.clock; {
	case c != nil && c.rng == nil:
		t.prefill = c.ttft
		n := resp.plan.Count
		if streamed {
			n = max(n-1, 0)
		}
		t.decode = time.Duration(n) * c.itl
	case !first.IsZero():
		t.prefill = first.Sub(resp.arrival)
		t.decode = last.Sub(first)
	}
	return t
}

// llamaTimingsJSON is llama.cpp's timings object for t.
func (t *serverTimes) llamaTimingsJSON() []byte {
	ms := func(d time.Duration) float64 { return durationMillis(d) }
	per := func(d time.Duration, n int) float64 {
		if n == 0 {
			return 0
		}
		return ms(d) / float64(n)
	}
	rate := func(d time.Duration, n int) float64 {
		if d <= 0 {
			return 0
		}
		return float64(n) / d.Seconds()
	}
	b, _ := json.Marshal(map[string]any{ // numbers always marshal
		"cache_n": 0, "prompt_n": t.promptTokens, "prompt_ms": ms(t.prefill),
		"prompt_per_token_ms": per(t.prefill, t.promptTokens), "prompt_per_second": rate(t.prefill, t.promptTokens),
		"predicted_n": t.tokens, "predicted_ms": ms(t.decode),
		"predicted_per_token_ms": per(t.decode, t.tokens), "predicted_per_second": rate(t.decode, t.tokens),
	})
	return b
}

// setTGIHeaders writes TGI's timing headers (whole milliseconds, as TGI
// writes them).
func (t *serverTimes) setTGIHeaders(h http.Header) {
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	inference := t.prefill + t.decode
	h.Set("X-Compute-Type", "mock")
	h.Set("X-Total-Time", ms(t.queue+inference))
	h.Set("X-Validation-Time", "0")
	h.Set("X-Queue-Time", ms(t.queue))
	h.Set("X-Inference-Time", ms(inference))
	if t.tokens > 0 {
		h.Set("X-Time-Per-Token", ms(inference/time.Duration(t.tokens)))
	}
	h.Set("X-Prompt-Tokens", strconv.Itoa(t.promptTokens))
	h.Set("X-Generated-Tokens", strconv.Itoa(t.tokens))
}

// vLLM's request span: its name and attribute keys (vllm/tracing.py's
// SpanAttributes). Latencies are seconds as doubles.
const (
	spanName           = "llm_request"
	attrRequestID      = "gen_ai.request.id"
	attrQueue          = "gen_ai.latency.time_in_queue"
	attrTTFT           = "gen_ai.latency.time_to_first_token"
	attrE2E            = "gen_ai.latency.e2e"
	attrPrefill        = "gen_ai.latency.time_in_model_prefill"
	attrDecode         = "gen_ai.latency.time_in_model_decode"
	attrInference      = "gen_ai.latency.time_in_model_inference"
	attrPromptTokens   = "gen_ai.usage.prompt_tokens"
	attrCompletionToks = "gen_ai.usage.completion_tokens"
)

// exportSpan sends t's span as vLLM would, to the configured OTLP
// endpoint, before the answer's last bytes leave (vLLM builds the span
// when the engine finishes the request). A failed export is logged by
// the caller's server only as a missing span: the answer is unaffected.
func (s *Server) exportSpan(ctx context.Context, t *serverTimes, api apiKind) {
	prefix := "chatcmpl-"
	if api == completionAPI {
		prefix = "cmpl-"
	}
	body := encodeTraceRequest(t, prefix)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if s.cfg.OTLPTracesProtocol == OTLPHTTPProtobuf {
		_ = postOTLPHTTP(ctx, s.otlpHTTP, s.cfg.OTLPTracesEndpoint, body)
		return
	}
	_ = postOTLPGRPC(ctx, s.otlpGRPC, s.cfg.OTLPTracesEndpoint, body)
}

// encodeTraceRequest hand-encodes an ExportTraceServiceRequest holding
// one span (the mock links no protobuf library): field numbers from
// opentelemetry/proto/collector/trace/v1 and trace/v1.
func encodeTraceRequest(t *serverTimes, idPrefix string) []byte {
	sec := func(d time.Duration) float64 { return d.Seconds() }
	var attrs [][]byte
	attrs = append(attrs, kvString(attrRequestID, idPrefix+t.requestID))
	for _, a := range []struct {
		k string
		v float64
	}{
		{attrQueue, sec(t.queue)}, {attrTTFT, sec(t.queue + t.prefill)}, {attrE2E, sec(t.end.Sub(t.arrival))},
		{attrPrefill, sec(t.prefill)}, {attrDecode, sec(t.decode)}, {attrInference, sec(t.prefill + t.decode)},
	} {
		attrs = append(attrs, kvDouble(a.k, a.v))
	}
	attrs = append(attrs, kvInt(attrPromptTokens, int64(t.promptTokens)), kvInt(attrCompletionToks, int64(t.tokens)))
	var traceID [16]byte
	var spanID [8]byte
	_, _ = rand.Read(traceID[:])
	_, _ = rand.Read(spanID[:])
	var span []byte
	span = pbBytes(span, 1, traceID[:])
	span = pbBytes(span, 2, spanID[:])
	span = pbBytes(span, 5, []byte(spanName))
	span = pbVarint(span, 6, 2) // SPAN_KIND_SERVER
	span = pbFixed64(span, 7, uint64(t.arrival.UnixNano()))
	span = pbFixed64(span, 8, uint64(t.end.UnixNano()))
	for _, a := range attrs {
		span = pbBytes(span, 9, a)
	}
	scope := pbBytes(nil, 1, pbBytes(nil, 1, []byte("vllm.llm_engine")))
	scope = pbBytes(scope, 2, span)
	resource := pbBytes(nil, 1, kvString("service.name", "vllm"))
	rs := pbBytes(nil, 1, resource)
	rs = pbBytes(rs, 2, scope)
	return pbBytes(nil, 1, rs)
}

// KeyValue{key=1, value=AnyValue{string=1 | int=3 | double=4}}.
func kvString(k, v string) []byte { return kv(k, pbBytes(nil, 1, []byte(v))) }
func kvInt(k string, v int64) []byte {
	return kv(k, pbVarint(nil, 3, uint64(v)))
}
func kvDouble(k string, v float64) []byte {
	return kv(k, pbFixed64(nil, 4, math.Float64bits(v)))
}
func kv(k string, anyValue []byte) []byte {
	return pbBytes(pbBytes(nil, 1, []byte(k)), 2, anyValue)
}

func pbTag(b []byte, field, wire int) []byte { return binary.AppendUvarint(b, uint64(field<<3|wire)) }
func pbVarint(b []byte, field int, v uint64) []byte {
	return binary.AppendUvarint(pbTag(b, field, 0), v)
}
func pbFixed64(b []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(pbTag(b, field, 1), v)
}
func pbBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(pbTag(b, field, 2), uint64(len(v)))
	return append(b, v...)
}

// postOTLPHTTP posts body to an OTLP/HTTP endpoint; a URL without a path
// gets the standard /v1/traces.
func postOTLPHTTP(ctx context.Context, c *http.Client, endpoint string, body []byte) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("otlp http: %s", resp.Status)
	}
	return nil
}

// postOTLPGRPC calls TraceService/Export over cleartext HTTP/2 with
// gRPC's framing (a zero compression byte and a big-endian length before
// the message) and reads grpc-status from the trailers.
func postOTLPGRPC(ctx context.Context, c *http.Client, endpoint string, body []byte) error {
	host := strings.TrimPrefix(strings.TrimPrefix(endpoint, "http://"), "grpc://")
	frame := make([]byte, 5, 5+len(body))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(body)))
	frame = append(frame, body...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		"http://"+host+"/opentelemetry.proto.collector.trace.v1.TraceService/Export", bytes.NewReader(frame))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if st := resp.Trailer.Get("Grpc-Status"); st != "0" && resp.Header.Get("Grpc-Status") != "0" {
		return fmt.Errorf("otlp grpc: status %q %s", st, resp.Trailer.Get("Grpc-Message"))
	}
	return nil
}

// newOTLPClients returns the HTTP/1.1 client of OTLP/HTTP and the
// cleartext HTTP/2 client of gRPC.
func newOTLPClients() (h1, h2c *http.Client) {
	t := &http.Transport{Protocols: new(http.Protocols)}
	t.Protocols.SetUnencryptedHTTP2(true)
	return &http.Client{}, &http.Client{Transport: t}
}

// accountBody gives the server's account of a non-streamed answer in the
// configured form: timings in the body (llamacpp), headers (tgi) or a span
// sent before the answer (vllm-otlp).
func (s *Server) accountBody(r *http.Request, w http.ResponseWriter, resp *response, answer *completionBody) {
	if s.cfg.ServerTiming == "" || s.cfg.ServerTiming == ServerTimingNone {
		return
	}
	t := plannedTimes(resp, resp.queue, false, time.Time{}, time.Time{})
	t.requestID = resp.reqID
	switch s.cfg.ServerTiming {
	case ServerTimingLlamaCpp:
		answer.Timings = t.llamaTimingsJSON()
	case ServerTimingTGI:
		t.setTGIHeaders(w.Header())
	case ServerTimingVLLM:
		s.exportSpan(r.Context(), &t, resp.api)
	}
}

// accountStream gives the account of a streamed answer, whose tokens
// left between first and last: the span is sent (vllm-otlp), or the
// timings object returned for the last chunk (llamacpp; nil otherwise).
// TGI sends no timing headers on streams: its headers leave before the
// times are known.
func (s *Server) accountStream(r *http.Request, resp *response, first, last time.Time) []byte {
	switch s.cfg.ServerTiming {
	case ServerTimingLlamaCpp, ServerTimingVLLM:
	default:
		return nil
	}
	t := plannedTimes(resp, resp.queue, true, first, last)
	t.requestID = resp.reqID
	if s.cfg.ServerTiming == ServerTimingVLLM {
		s.exportSpan(r.Context(), &t, resp.api)
		return nil
	}
	return t.llamaTimingsJSON()
}
