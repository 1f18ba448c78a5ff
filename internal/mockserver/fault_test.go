package mockserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// faultPost sends body with the X-Mock-Fault header and returns the
// response (body read) or the transport error.
func faultPost(t *testing.T, url string, fault string, body any) (*http.Response, []byte, error) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if fault != "" {
		req.Header.Set(mockserver.FaultHeader, fault)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// streamReq asks for exactly n tokens, streaming or not.
func streamReq(stream bool, n int) map[string]any {
	return chatBody(map[string]any{"stream": stream, "max_tokens": n, "ignore_eos": true}, "one two three four")
}

// dataLines returns the payloads of the data lines of an SSE body.
func dataLines(body []byte) []string {
	var out []string
	for _, l := range strings.Split(string(body), "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestFaultStatusAnswers(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	for _, tc := range []struct {
		fault      string
		status     int
		retryAfter string
	}{
		{"http429", 429, "1"},
		{"http500", 500, ""},
		{"http503", 503, "1"},
	} {
		for _, stream := range []bool{false, true} {
			resp, data, err := faultPost(t, ts.URL+"/v1/chat/completions", tc.fault, streamReq(stream, 4))
			if err != nil {
				t.Fatalf("%s: %v", tc.fault, err)
			}
			if resp.StatusCode != tc.status || resp.Header.Get("Retry-After") != tc.retryAfter {
				t.Errorf("%s: status %d, Retry-After %q; want %d, %q", tc.fault, resp.StatusCode,
					resp.Header.Get("Retry-After"), tc.status, tc.retryAfter)
			}
			var e wireError
			if err := json.Unmarshal(data, &e); err != nil || e.Error.Code != tc.status {
				t.Errorf("%s: body %s is not an OpenAI error with code %d", tc.fault, data, tc.status)
			}
		}
	}
}

func TestFaultResets(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	for _, fault := range []string{"reset_before_headers", "reset_mid_stream"} {
		for _, stream := range []bool{false, true} {
			resp, _, err := faultPost(t, ts.URL+"/v1/chat/completions", fault, streamReq(stream, 8))
			if err == nil {
				t.Errorf("%s (stream %v): status %d and a complete body; want a broken connection", fault, stream, resp.StatusCode)
			}
			if fault == "reset_mid_stream" && resp == nil {
				t.Errorf("%s (stream %v): no headers (%v); want the reset after them", fault, stream, err)
			}
		}
	}
}

func TestFaultStreamShapes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	url := ts.URL + "/v1/chat/completions"
	const n = 8 // faults act after n/2 = 4 tokens
	contentChunks := func(lines []string) (good int, bad []string) {
		for _, l := range lines {
			var c wireResponse
			if l == "[DONE]" {
				continue
			}
			if json.Unmarshal([]byte(l), &c) != nil {
				bad = append(bad, l)
				continue
			}
			if len(c.Choices) > 0 && c.Choices[0].Delta["content"] != nil && c.Choices[0].Delta["content"] != "" {
				good++
			}
		}
		return good, bad
	}

	_, body, err := faultPost(t, url, "truncated_stream", streamReq(true, n))
	if err != nil {
		t.Fatal(err)
	}
	lines := dataLines(body)
	if good, _ := contentChunks(lines); good != n/2 || strings.Contains(string(body), "[DONE]") ||
		strings.Contains(string(body), "finish_reason\":\"") {
		t.Errorf("truncated_stream: %d content chunks, body %q; want %d, no finish, no [DONE]", good, body, n/2)
	}

	_, body, err = faultPost(t, url, "malformed_chunk", streamReq(true, n))
	if err != nil {
		t.Fatal(err)
	}
	if good, bad := contentChunks(dataLines(body)); good != n || len(bad) != 1 {
		t.Errorf("malformed_chunk: %d content chunks, invalid %q; want %d and one invalid", good, bad, n)
	}

	_, body, err = faultPost(t, url, "empty_choices", streamReq(true, n))
	if err != nil {
		t.Fatal(err)
	}
	if good, bad := contentChunks(dataLines(body)); good != 0 || len(bad) != 0 || !strings.Contains(string(body), `"choices":[]`) {
		t.Errorf("empty_choices: %d content chunks, %d invalid; want none", good, len(bad))
	}

	_, body, err = faultPost(t, url, "huge_chunk", streamReq(true, n))
	if err != nil {
		t.Fatal(err)
	}
	lines = dataLines(body)
	longest := 0
	for _, l := range lines {
		longest = max(longest, len(l))
	}
	if good, bad := contentChunks(lines); good != n || len(bad) != 0 || longest <= 1<<20 {
		t.Errorf("huge_chunk: %d content chunks, %d invalid, longest line %d; want %d valid, one > 1 MiB", good, len(bad), longest, n)
	}

	_, body, err = faultPost(t, url, "invalid_utf8", streamReq(true, n))
	if err != nil {
		t.Fatal(err)
	}
	if utf8.Valid(body) || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("invalid_utf8: body valid UTF-8 = %v; want invalid bytes and a normal end", utf8.Valid(body))
	}

	resp, body, err := faultPost(t, url, "wrong_content_type", streamReq(true, n))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !bytes.HasPrefix(body, []byte("<html>")) {
		t.Errorf("wrong_content_type: %d %q %q; want 200 text/html page", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	resp, body, err = faultPost(t, url, "none", streamReq(true, n))
	if err != nil || resp.StatusCode != 200 || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("none: %v %q; want a normal stream", err, body)
	}
	if resp, _, _ := faultPost(t, url, "bogus", streamReq(true, n)); resp == nil || resp.StatusCode != 400 {
		t.Errorf("an unknown %s is not a 400", mockserver.FaultHeader)
	}
}

func TestFaultBodyShapes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	url := ts.URL + "/v1/chat/completions"
	for _, tc := range []struct {
		fault     string
		validJSON bool
		check     func([]byte) bool
	}{
		{"truncated_stream", false, func(b []byte) bool { return bytes.HasPrefix(b, []byte(`{"id":`)) }},
		{"malformed_chunk", false, func([]byte) bool { return true }},
		{"empty_choices", true, func(b []byte) bool { return bytes.Contains(b, []byte(`"choices":[]`)) }},
		{"huge_chunk", true, func(b []byte) bool { return len(b) > 1<<20 }},
		{"invalid_utf8", true, func(b []byte) bool { return !utf8.Valid(b) }},
	} {
		resp, body, err := faultPost(t, url, tc.fault, streamReq(false, 8))
		if err != nil {
			t.Fatalf("%s: %v", tc.fault, err)
		}
		// invalid_utf8 is valid JSON syntax with invalid bytes inside a
		// string, which encoding/json tolerates.
		if resp.StatusCode != 200 || json.Valid(body) != tc.validJSON || !tc.check(body) {
			t.Errorf("%s: %d, valid JSON %v, body %.200q", tc.fault, resp.StatusCode, json.Valid(body), body)
		}
	}
}

func TestFaultStallHoldsUntilClientLeaves(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	for _, stream := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		b, _ := json.Marshal(streamReq(stream, 8))
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/chat/completions", bytes.NewReader(b))
		req.Header.Set(mockserver.FaultHeader, "stall")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read what the server sends before stalling, then leave.
		br := bufio.NewReader(resp.Body)
		if stream {
			for range 5 { // the role chunk and 4 tokens, each a data line and a blank line
				if _, err := br.ReadString('\n'); err != nil {
					t.Fatal(err)
				}
				if _, err := br.ReadString('\n'); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			if _, err := br.ReadByte(); err != nil {
				t.Fatal(err)
			}
		}
		// The server sends nothing more: after the client leaves, the rest
		// of the body is empty and ends in an error, not a clean end.
		cancel()
		rest, err := io.ReadAll(br)
		if err == nil || (stream && len(rest) != 0) || (!stream && int64(1+len(rest)) >= resp.ContentLength) {
			t.Errorf("stall (stream %v): after leaving, read %q, %v; want no more than was sent before the stall, and an error", stream, rest, err)
		}
		resp.Body.Close()
	}
	// httptest's Close, at cleanup, waits for the stalled handlers: the
	// test hangs if one outlives its client.
}

func TestFaultSlowHeaders(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.FaultDelay = 30 * time.Millisecond
	ts := newTestServer(t, cfg)
	start := time.Now()
	resp, body, err := faultPost(t, ts.URL+"/v1/chat/completions", "slow_headers", streamReq(true, 4))
	if err != nil || resp.StatusCode != 200 || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Fatalf("slow_headers: %v %q; want a normal stream", err, body)
	}
	// A lower bound on the server's own delay, not a bound on our code.
	if took := time.Since(start); took < cfg.FaultDelay {
		t.Errorf("slow_headers answered after %v; want at least %v", took, cfg.FaultDelay)
	}
}

func TestFaultRatesSeededAndCounted(t *testing.T) {
	t.Parallel()
	draw := func(seed int64) []int {
		cfg := fastConfig()
		cfg.RandomSeed, cfg.SeedSet = seed, true
		cfg.Faults = []mockserver.FaultRate{{Fault: mockserver.FaultHTTP429, Rate: 0.3}, {Fault: mockserver.FaultHTTP503, Rate: 0.2}}
		ts := newTestServer(t, cfg)
		var statuses []int
		for range 200 {
			resp, _, err := faultPost(t, ts.URL+"/v1/completions", "", completionBody(nil, "a b c"))
			if err != nil {
				t.Fatal(err)
			}
			statuses = append(statuses, resp.StatusCode)
		}
		got := ts.mock.InjectedFaults()
		var n429, n503 int64
		for _, s := range statuses {
			switch s {
			case 429:
				n429++
			case 503:
				n503++
			}
		}
		if got[mockserver.FaultHTTP429] != n429 || got[mockserver.FaultHTTP503] != n503 {
			t.Errorf("InjectedFaults = %v; the client saw %d 429s and %d 503s", got, n429, n503)
		}
		// 200 draws at p = 0.3 and 0.2: 5 standard deviations is about ±32 and ±28.
		if n429 < 28 || n429 > 92 || n503 < 12 || n503 > 68 {
			t.Errorf("seed %d: %d 429s and %d 503s in 200; want about 60 and 40", seed, n429, n503)
		}
		return statuses
	}
	a, b := draw(11), draw(11)
	if !equalInts(a, b) {
		t.Error("the same seed gave different fault sequences")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFaultHeaderCountsAndHealth(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, fastConfig())
	for _, f := range []string{"http500", "empty_choices", "empty_choices", "none"} {
		if _, _, err := faultPost(t, ts.URL+"/v1/chat/completions", f, streamReq(false, 2)); err != nil {
			t.Fatal(err)
		}
	}
	resp2, err := http.Get(ts.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	var h struct {
		FaultsInjected map[string]int64 `json:"faults_injected"`
	}
	if err := json.NewDecoder(resp2.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if h.FaultsInjected["http500"] != 1 || h.FaultsInjected["empty_choices"] != 2 || len(h.FaultsInjected) != len(mockserver.Faults()) {
		t.Errorf("/health faults_injected = %v; want http500:1, empty_choices:2 and every kind listed", h.FaultsInjected)
	}
}

func TestFaultFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (mockserver.Config, error) {
		c := mockserver.DefaultConfig()
		fs := flag.NewFlagSet("mock", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.RegisterFlags(fs)
		if err := fs.Parse(args); err != nil {
			return c, err
		}
		return c, c.Validate()
	}
	c, err := parse("--fault", "http429:0.25", "--fault", "stall:0.5", "--fault-delay-ms", "250")
	if err != nil {
		t.Fatal(err)
	}
	want := []mockserver.FaultRate{{Fault: "http429", Rate: 0.25}, {Fault: "stall", Rate: 0.5}}
	if len(c.Faults) != 2 || c.Faults[0] != want[0] || c.Faults[1] != want[1] || c.FaultDelay != 250*time.Millisecond {
		t.Errorf("parsed %+v delay %v; want %+v, 250ms", c.Faults, c.FaultDelay, want)
	}
	if c, err := parse("--fault", "huge_chunk"); err != nil || c.Faults[0].Rate != 1 {
		t.Errorf("--fault huge_chunk: %+v %v; want rate 1", c.Faults, err)
	}
	for _, bad := range [][]string{
		{"--fault", "nope"},
		{"--fault", "none"},
		{"--fault", "stall:x"},
		{"--fault", "stall:1.5"},
		{"--fault", "stall:-0.1"},
		{"--fault", "stall:0.6", "--fault", "http500:0.6"},
		{"--fault", "stall:0.1", "--fault", "stall:0.1"},
		{"--fault-delay-ms", "-1"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%q accepted; want an error", bad)
		}
	}
}

func TestFaultHeaderNoneOverridesErrorRate(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.ErrorRate = 100
	ts := newTestServer(t, cfg)
	resp, _, err := faultPost(t, ts.URL+"/v1/chat/completions", "none", streamReq(false, 2))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: none with --error-rate 100: %v %v; want 200", mockserver.FaultHeader, resp, err)
	}
	resp, _, err = faultPost(t, ts.URL+"/v1/chat/completions", "", streamReq(false, 2))
	if err != nil || resp.StatusCode != 500 || ts.mock.InjectedFaults()[mockserver.FaultHTTP500] != 1 {
		t.Fatalf("--error-rate 100 without the header: %v %v, counted %d; want 500 counted once", resp, err,
			ts.mock.InjectedFaults()[mockserver.FaultHTTP500])
	}
}
