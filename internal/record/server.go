package record

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// ServerSource names where a record's server-side timings came from.
type ServerSource uint8

const (
	// NoServerTiming: the server gave no account of its own time.
	NoServerTiming ServerSource = iota
	// LlamaCpp: llama.cpp's "timings" object (prompt_ms, predicted_ms) in
	// the body or the last streamed chunk.
	LlamaCpp
	// TGI: text-generation-inference's x-queue-time, x-validation-time,
	// x-inference-time and x-time-per-token response headers (whole
	// milliseconds).
	TGI
	// VLLMSpan: vLLM's per-request OpenTelemetry span (llm_request),
	// received by the tool's OTLP trace receiver and joined by request id.
	VLLMSpan
)

// String is the source's name in artifacts.
func (s ServerSource) String() string {
	switch s {
	case LlamaCpp:
		return "llama.cpp timings"
	case TGI:
		return "TGI headers"
	case VLLMSpan:
		return "vLLM OTLP span"
	}
	return "none"
}

// ServerTiming is the server's own account of where a request's time went,
// as one of the sources above reported it. Each duration is valid only
// when its Has bit is set: servers report different subsets (llama.cpp no
// queue time, TGI no prefill/decode split).
type ServerTiming struct {
	Source ServerSource
	Has    ServerParts
	// Queue is the time the request waited before the engine scheduled it.
	Queue time.Duration
	// Validation is the server's input handling before the queue
	// (tokenization and checks; TGI's x-validation-time).
	Validation time.Duration
	// Prefill is the prompt's processing, up to the first token.
	Prefill time.Duration
	// Decode is the generation of the output tokens after the prefill.
	Decode time.Duration
	// Inference is prefill plus decode when the server reports only their
	// sum (TGI); when both parts are known it equals their sum.
	Inference time.Duration
	// PromptTokens and DecodedTokens are the token counts the server timed
	// (llama.cpp's prompt_n, which excludes cached tokens, and
	// predicted_n; TGI's x-prompt-tokens and x-generated-tokens); -1 when
	// not reported.
	PromptTokens, DecodedTokens int
}

// ServerParts says which ServerTiming durations a source reported.
type ServerParts uint8

// The parts of a server's account.
const (
	HasQueue ServerParts = 1 << iota
	HasValidation
	HasPrefill
	HasDecode
	HasInference
)

// Known reports whether the record carries any server timing.
func (t *ServerTiming) Known() bool { return t.Source != NoServerTiming }

// Total is the server time it accounts for: queue, validation and
// inference (prefill + decode).
func (t *ServerTiming) Total() time.Duration {
	var d time.Duration
	if t.Has&HasQueue != 0 {
		d += t.Queue
	}
	if t.Has&HasValidation != 0 {
		d += t.Validation
	}
	if t.Has&HasInference != 0 {
		d += t.Inference
	}
	return d
}

// llamaTimings is llama.cpp's timings object (server_slot_stats::to_json):
// times in milliseconds as floats, counts as integers.
type llamaTimings struct {
	PromptN     *float64 `json:"prompt_n"`
	PromptMs    *float64 `json:"prompt_ms"`
	PredictedN  *float64 `json:"predicted_n"`
	PredictedMs *float64 `json:"predicted_ms"`
}

var timingsKey = []byte(`"timings"`)

// ParseLlamaTimings reads llama.cpp's "timings" object from a response
// body or one streamed chunk's data. ok is false when the data has none
// or it is malformed (the response is then not llama.cpp's, and nothing
// is claimed). llama.cpp puts the object on the non-streamed body and on
// the last chunk of a stream (on every chunk with timings_per_token, where
// the last one holds the totals).
func ParseLlamaTimings(data []byte) (ServerTiming, bool) {
	if !bytes.Contains(data, timingsKey) {
		return ServerTiming{}, false
	}
	var v struct {
		Timings *llamaTimings `json:"timings"`
	}
	if json.Unmarshal(data, &v) != nil || v.Timings == nil {
		return ServerTiming{}, false
	}
	lt := v.Timings
	if lt.PromptMs == nil || lt.PredictedMs == nil || !validMs(*lt.PromptMs) || !validMs(*lt.PredictedMs) {
		return ServerTiming{}, false
	}
	t := ServerTiming{
		Source:        LlamaCpp,
		Has:           HasPrefill | HasDecode | HasInference,
		Prefill:       msDuration(*lt.PromptMs),
		Decode:        msDuration(*lt.PredictedMs),
		PromptTokens:  count(lt.PromptN),
		DecodedTokens: count(lt.PredictedN),
	}
	t.Inference = t.Prefill + t.Decode
	return t, true
}

// ReadLlamaTimings sets rec.Server from llama.cpp's timings when the
// record has no server timing yet: it looks at the body (one chunk) or,
// for a stream, at the last few chunks, where llama.cpp puts the totals
// (the [DONE] terminator and a usage-only chunk may follow).
func ReadLlamaTimings(rec *Record) {
	if rec.Server.Known() {
		return
	}
	for i, n := len(rec.Chunks)-1, 0; i >= 0 && n < 3; i, n = i-1, n+1 {
		if t, ok := ParseLlamaTimings(rec.Chunks[i].Data); ok {
			rec.Server = t
			return
		}
	}
}

// The TGI response headers, canonical (http.Header's keys).
const (
	HeaderTGIQueue      = "X-Queue-Time"
	HeaderTGIValidation = "X-Validation-Time"
	HeaderTGIInference  = "X-Inference-Time"
	HeaderTGIPerToken   = "X-Time-Per-Token"
	HeaderTGIPrompt     = "X-Prompt-Tokens"
	HeaderTGIGenerated  = "X-Generated-Tokens"
)

// ParseTGIHeaders reads TGI's timing headers through get (an
// http.Header's Get, or a map lookup by canonical key). TGI writes them in
// whole milliseconds on non-streamed answers. ok requires at least the
// queue and inference times; anything else is left out, not guessed.
func ParseTGIHeaders(get func(key string) string) (ServerTiming, bool) {
	q, okQ := headerMs(get(HeaderTGIQueue))
	inf, okI := headerMs(get(HeaderTGIInference))
	if !okQ || !okI {
		return ServerTiming{}, false
	}
	t := ServerTiming{Source: TGI, Has: HasQueue | HasInference, Queue: q, Inference: inf, PromptTokens: -1, DecodedTokens: -1}
	if v, ok := headerMs(get(HeaderTGIValidation)); ok {
		t.Validation, t.Has = v, t.Has|HasValidation
	}
	if n, err := strconv.Atoi(get(HeaderTGIPrompt)); err == nil && n >= 0 {
		t.PromptTokens = n
	}
	if n, err := strconv.Atoi(get(HeaderTGIGenerated)); err == nil && n >= 0 {
		t.DecodedTokens = n
	}
	return t, true
}

// headerMs parses a header of (possibly fractional) milliseconds.
func headerMs(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !validMs(v) {
		return 0, false
	}
	return msDuration(v), true
}

// validMs accepts a finite, non-negative time in ms below a day.
func validMs(v float64) bool { return v >= 0 && v < 86_400_000 && !math.IsNaN(v) }

func msDuration(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }

func count(v *float64) int {
	if v == nil || !(*v >= 0) || *v > math.MaxInt32 {
		return -1
	}
	return int(*v)
}

// Decomposition is where one request's time went, client and server side,
// in the order the request met them. Dispatch lies before Sent; the rest
// partition the latency (End - Sent) exactly:
//
//	Connect + Send + Queue + Validation + Inference + Unexplained = End - Sent
//
// Unexplained is what neither the client's trace nor the server's account
// covers: the network both ways, the server's HTTP and streaming layers,
// the client's own reading, and any server part the source does not report
// (llama.cpp reports no queue time: there, a queue wait is in it).
//
// The server works only between the request's first byte arriving and the
// answer's last byte leaving, so its account fits inside End - GotConn.
// The client's WroteRequest stamp is taken after the write returns, and a
// client goroutine descheduled there (a busy client machine) stamps it
// late, after the server has started: that stretch is the server's, not
// the send's. Send is therefore capped at what the server's account
// leaves of End - GotConn, and Unexplained is never negative unless the
// server reports more than the whole window the client saw (a server whose
// clock runs fast, or a wrong account).
type Decomposition struct {
	Dispatch    time.Duration // Sent - Due: the client's lateness (schedule lag)
	Connect     time.Duration // waiting for a connection, DNS, TCP and TLS (GetConn to GotConn)
	Send        time.Duration // writing the request (GotConn to WroteRequest)
	Server      ServerTiming
	Unexplained time.Duration
}

// Decompose splits a finished, good record's time; ok is false when the
// record has no server timing or no transport trace (nothing to split).
func (r *Record) Decompose() (Decomposition, bool) {
	t := &r.Trace
	if !r.Server.Known() || !t.Traced() || t.GotConn == 0 {
		return Decomposition{}, false
	}
	d := Decomposition{Dispatch: r.Sent - r.Due, Server: r.Server}
	d.Connect = max(t.GotConn-t.GetConn, 0)
	if t.WroteRequest > t.GotConn {
		d.Send = min(t.WroteRequest-t.GotConn, max(r.End-t.GotConn-r.Server.Total(), 0))
	}
	d.Unexplained = r.End - r.Sent - d.Connect - d.Send - r.Server.Total()
	return d, true
}
