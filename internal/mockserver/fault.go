package mockserver

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Fault is one way the mock misbehaves on purpose, so that a client's error
// accounting can be tested against every failure a real server under
// stress shows. The zero value, FaultNone, is a normal answer.
type Fault string

// The faults the mock can inject. Streaming and non-streaming answers both
// support every kind; where a kind acts "mid-stream" it acts after
// max(1, n/2) of the n output tokens (for a non-streaming body: halfway
// through the body).
const (
	FaultNone               Fault = ""
	FaultHTTP429            Fault = "http429"              // 429 Too Many Requests with Retry-After
	FaultHTTP500            Fault = "http500"              // 500 Internal Server Error (as --error-rate)
	FaultHTTP503            Fault = "http503"              // 503 Service Unavailable with Retry-After
	FaultResetBeforeHeaders Fault = "reset_before_headers" // TCP reset after reading the request, before any response byte
	FaultResetMidStream     Fault = "reset_mid_stream"     // TCP reset after half the output
	FaultTruncatedStream    Fault = "truncated_stream"     // the response ends cleanly after half the output: no finish chunk, no [DONE]
	FaultMalformedChunk     Fault = "malformed_chunk"      // one data line (the whole body when not streaming) is invalid JSON
	FaultEmptyChoices       Fault = "empty_choices"        // every chunk (or the body) has "choices": []
	FaultSlowHeaders        Fault = "slow_headers"         // headers, and so everything after them, delayed by FaultDelay
	FaultStall              Fault = "stall"                // stop after half the output and hold the connection until the client leaves
	FaultHugeChunk          Fault = "huge_chunk"           // one chunk (or the body) padded past 1 MiB; content unchanged
	FaultInvalidUTF8        Fault = "invalid_utf8"         // invalid UTF-8 bytes inside one chunk's content string
	FaultWrongContentType   Fault = "wrong_content_type"   // 200 with a text/html error page instead of JSON or SSE
)

// FaultHeader is the request header that forces a fault for one request
// ("X-Mock-Fault: stall"), whatever the configured rates; "none" forces a
// normal answer. Tests use it to be deterministic.
const FaultHeader = "X-Mock-Fault"

// DefaultFaultDelay is how long slow_headers holds the headers back.
const DefaultFaultDelay = time.Second

// hugePadding is the size of the filler huge_chunk adds: just over 1 MiB,
// past any reader that buffers lines in 1 MiB.
const hugePadding = 1<<20 + 1

// retryAfterSeconds is the Retry-After value sent with 429 and 503.
const retryAfterSeconds = "1"

// Fixed fault payloads. Every byte is constant so that a client groups all
// the records of one fault under one error message.
const (
	malformedData = `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"mock"`
	htmlErrorPage = "<html><head><title>502 Bad Gateway</title></head>" +
		"<body><h1>502 Bad Gateway</h1><p>mock upstream error page</p></body></html>\n"
	invalidUTF8Bytes = "\xff\xfe"
)

// allFaults is every fault in documentation order; an index into it
// identifies a fault in faultCounts.
var allFaults = [...]Fault{
	FaultHTTP429, FaultHTTP500, FaultHTTP503, FaultResetBeforeHeaders, FaultResetMidStream,
	FaultTruncatedStream, FaultMalformedChunk, FaultEmptyChoices, FaultSlowHeaders, FaultStall,
	FaultHugeChunk, FaultInvalidUTF8, FaultWrongContentType,
}

// Faults lists every injectable fault in documentation order.
func Faults() []Fault { return slices.Clone(allFaults[:]) }

// ParseFault resolves a fault name; "none" is FaultNone.
func ParseFault(s string) (Fault, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "none" {
		return FaultNone, nil
	}
	if i := slices.Index(allFaults[:], Fault(s)); i >= 0 {
		return allFaults[i], nil
	}
	return FaultNone, fmt.Errorf("unknown fault %q (choose from %s, none)", s, faultNames())
}

func faultNames() string {
	names := make([]string, len(allFaults))
	for i, f := range allFaults {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// index is f's position in allFaults, or -1 for FaultNone.
func (f Fault) index() int { return slices.Index(allFaults[:], f) }

// FaultRate asks for Fault on a fraction Rate (0..1) of inference requests.
type FaultRate struct {
	Fault Fault
	Rate  float64
}

// validateFaults reports every invalid fault setting: rates outside [0, 1],
// a fault listed twice, rates summing past 1 (each request gets at most one
// fault, so the rates partition [0, 1)), and a negative delay.
func (c *Config) validateFaults() []error {
	var errs []error
	sum := 0.0
	seen := map[Fault]bool{}
	for _, f := range c.Faults {
		if f.Fault.index() < 0 {
			errs = append(errs, fmt.Errorf("fault: unknown fault %q", f.Fault))
			continue
		}
		if !(f.Rate >= 0 && f.Rate <= 1) {
			errs = append(errs, fmt.Errorf("fault %s: rate must be in [0, 1], got %v", f.Fault, f.Rate))
			continue
		}
		if seen[f.Fault] {
			errs = append(errs, fmt.Errorf("fault %s: given more than once", f.Fault))
		}
		seen[f.Fault] = true
		sum += f.Rate
	}
	if sum > 1+1e-9 {
		errs = append(errs, fmt.Errorf("fault: rates sum to %v; a request gets at most one fault, so they must sum to at most 1", sum))
	}
	if c.FaultDelay < 0 {
		errs = append(errs, fmt.Errorf("fault-delay-ms: must be >= 0 ms, got %v ms", durationMillis(c.FaultDelay)))
	}
	return errs
}

// registerFaultFlags binds --fault and --fault-delay-ms.
func (c *Config) registerFaultFlags(fs *flag.FlagSet) {
	fs.Var(&faultFlag{c}, "fault", "inject fault `KIND[:RATE]` into that fraction (0-1; default 1, every request) "+
		"of inference requests; repeatable, the rates sum to at most 1. KIND is one of "+faultNames()+
		". The request header "+FaultHeader+": KIND forces a fault (or none) on one request. See docs/faults.md")
	fs.Var(&millis{&c.FaultDelay}, "fault-delay-ms", "how long the slow_headers fault holds the response headers, in milliseconds")
}

// faultFlag is the repeatable --fault KIND[:RATE] flag.
type faultFlag struct{ c *Config }

// String lists the configured faults as KIND:RATE,...; "" when none.
func (f *faultFlag) String() string {
	if f == nil || f.c == nil {
		return ""
	}
	parts := make([]string, len(f.c.Faults))
	for i, fr := range f.c.Faults {
		parts[i] = string(fr.Fault) + ":" + strconv.FormatFloat(fr.Rate, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// Set appends one KIND or KIND:RATE. Range problems are left to Validate.
func (f *faultFlag) Set(v string) error {
	name, rate, hasRate := strings.Cut(v, ":")
	kind, err := ParseFault(name)
	if err != nil {
		return err
	}
	if kind == FaultNone {
		return errors.New(`"none" cannot be injected; omit --fault instead`)
	}
	r := 1.0
	if hasRate {
		r, err = strconv.ParseFloat(strings.TrimSpace(rate), 64)
		if err != nil || math.IsNaN(r) {
			return fmt.Errorf("fault %s: rate %q is not a number in [0, 1]", kind, rate)
		}
	}
	f.c.Faults = append(f.c.Faults, FaultRate{Fault: kind, Rate: r})
	return nil
}

// faultCounts counts injected faults by kind; indices follow allFaults.
type faultCounts [len(allFaults)]atomic.Int64

// InjectedFaults returns how many requests got each fault so far, forced by
// header or drawn, including --error-rate's 500s under http500. Every kind
// is present, with 0 when never injected.
func (s *Server) InjectedFaults() map[Fault]int64 {
	out := make(map[Fault]int64, len(allFaults))
	for i, f := range allFaults {
		out[f] = s.injected[i].Load()
	}
	return out
}

// injectedView is InjectedFaults keyed by name, for /health.
func (s *Server) injectedView() map[string]int64 {
	out := make(map[string]int64, len(allFaults))
	for f, n := range s.InjectedFaults() {
		out[string(f)] = n
	}
	return out
}

// pickFault decides the fault of one inference request: the FaultHeader if
// present (which also overrides --error-rate), else one uniform draw
// against the cumulative configured rates, else --error-rate's draw
// (http500). It counts the chosen fault. An invalid header is an error for
// the client (HTTP 400).
//
// A request with configured faults always consumes exactly one draw, so the
// sequence of faults for a given seed depends only on arrival order.
func (s *Server) pickFault(r *http.Request) (Fault, error) {
	f := FaultNone
	h := r.Header.Get(FaultHeader)
	if h != "" {
		var err error
		if f, err = ParseFault(h); err != nil {
			return FaultNone, fmt.Errorf("%s: %w", FaultHeader, err)
		}
	} else if len(s.cfg.Faults) > 0 {
		s.rngMu.Lock()
		u := s.faultRNG.Float64()
		s.rngMu.Unlock()
		cum := 0.0
		for _, fr := range s.cfg.Faults {
			cum += fr.Rate
			if u < cum {
				f = fr.Fault
				break
			}
		}
	}
	if h == "" && f == FaultNone && s.injectError() {
		f = FaultHTTP500
	}
	if i := f.index(); i >= 0 {
		s.injected[i].Add(1)
		if s.cfg.OnFault != nil {
			s.cfg.OnFault(r, f)
		}
	}
	return f, nil
}

// answerFault answers the faults that replace the response entirely and
// reports whether it did. The others act later, inside the answer.
func answerFault(w http.ResponseWriter, f Fault) bool {
	switch f {
	case FaultHTTP429:
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusTooManyRequests, "rate_limit_error", "Simulated rate limit")
	case FaultHTTP500:
		writeError(w, http.StatusInternalServerError, "server_error", "Simulated error")
	case FaultHTTP503:
		w.Header().Set("Retry-After", retryAfterSeconds)
		writeError(w, http.StatusServiceUnavailable, "service_unavailable", "Simulated overload")
	case FaultResetBeforeHeaders:
		resetConn(w)
	case FaultWrongContentType:
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(htmlErrorPage)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(htmlErrorPage))
	default:
		return false
	}
	return true
}

// resetConn aborts the connection with a TCP RST (SO_LINGER 0), whatever
// was written so far. Where the connection cannot be hijacked (HTTP/2), it
// aborts the response the way net/http allows.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// holdUntilGone blocks until the client goes away or the server closes.
func (s *Server) holdUntilGone(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// faultCut is the number of output tokens a mid-stream fault lets through:
// max(1, n/2), but never more than n.
func faultCut(n int) int { return min(max(1, n/2), n) }

// padChunk returns a copy of a chunk's JSON object (ending in '}') with a
// "mock_padding" member that makes it larger than 1 MiB.
func padChunk(obj string) string {
	var b strings.Builder
	b.Grow(len(obj) + hugePadding + 20)
	b.WriteString(obj[:len(obj)-1])
	b.WriteString(`,"mock_padding":"`)
	b.WriteString(strings.Repeat("x", hugePadding))
	b.WriteString(`"}`)
	return b.String()
}

// withInvalidUTF8 puts invalidUTF8Bytes just inside the closing quote of a
// JSON string literal.
func withInvalidUTF8(jsonString string) string {
	return jsonString[:len(jsonString)-1] + invalidUTF8Bytes + `"`
}

// faultBody applies a body fault to a non-streaming JSON answer b and
// writes it. It reports false when f is not a body fault, leaving the
// answer to the caller.
func (s *Server) faultBody(w http.ResponseWriter, r *http.Request, f Fault, b []byte) bool {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	switch f {
	case FaultMalformedChunk:
		b = []byte(malformedData)
	case FaultTruncatedStream:
		b = b[:len(b)/2]
	case FaultHugeChunk:
		b = []byte(padChunk(string(b)))
	case FaultInvalidUTF8:
		b = spliceInvalidUTF8(b)
	case FaultResetMidStream, FaultStall:
		// Promise the whole body, send half of it, then break off.
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		_ = http.NewResponseController(w).Flush()
		if f == FaultStall {
			s.holdUntilGone(r)
			return true
		}
		resetConn(w)
		return true
	default:
		return false
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return true
}

// spliceInvalidUTF8 inserts invalidUTF8Bytes at the start of the first
// "content" or "text" string of a response body.
func spliceInvalidUTF8(b []byte) []byte {
	s := string(b)
	for _, key := range []string{`"content":"`, `"text":"`} {
		if i := strings.Index(s, key); i >= 0 {
			i += len(key)
			return []byte(s[:i] + invalidUTF8Bytes + s[i:])
		}
	}
	return b
}
