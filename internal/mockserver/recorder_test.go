package mockserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// recordedRun starts a recording mock for cfg, runs send against its URL,
// closes it and returns the recorded lines.
func recordedRun(t *testing.T, cfg mockserver.Config, send func(url string)) []mockserver.RecordedRequest {
	t.Helper()
	cfg.RecordRequests = filepath.Join(t.TempDir(), "requests.jsonl")
	srv, err := mockserver.Start(cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	send(srv.URL())
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(cfg.RecordRequests)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []mockserver.RecordedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r mockserver.RecordedRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// postRaw sends body to url+path with headers and reads the whole answer.
func postRaw(t *testing.T, url string, body []byte, headers map[string]string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
}

func TestRecorderStreamedRequest(t *testing.T) {
	cfg := fastConfig()
	cfg.Fast = false
	cfg.TTFT = 2 * time.Millisecond
	cfg.ITL = time.Millisecond
	const tokens = 5
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"one two three"}],"stream":true,` +
		`"stream_options":{"include_usage":true},"max_tokens":5,"ignore_eos":true}`)
	recs := recordedRun(t, cfg, func(url string) {
		postRaw(t, url+"/v1/chat/completions", body, map[string]string{
			"Content-Type":     "application/json",
			"X-Request-ID":     "req-1",
			"X-Correlation-ID": "corr-1",
			"Authorization":    "Bearer sk-secret",
			"X-Api-Key":        "also-secret",
		})
	})
	if len(recs) != 1 {
		t.Fatalf("got %d lines, want 1", len(recs))
	}
	r := recs[0]
	if r.RequestID != "req-1" || r.CorrelationID != "corr-1" || r.Method != "POST" ||
		r.Path != "/v1/chat/completions" || r.Status != http.StatusOK {
		t.Errorf("identity = %q %q %s %s %d", r.RequestID, r.CorrelationID, r.Method, r.Path, r.Status)
	}
	if got := r.Headers.Get("Authorization"); got != "Bearer [REDACTED]" {
		t.Errorf("Authorization recorded as %q", got)
	}
	if got := r.Headers.Get("X-Api-Key"); got != "[REDACTED]" {
		t.Errorf("X-Api-Key recorded as %q", got)
	}
	if got := r.Headers.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type recorded as %q", got)
	}
	if !bytes.Equal(r.Body, body) || r.BodyBytes != len(body) {
		t.Errorf("body = %s (%d bytes), want the bytes sent", r.Body, r.BodyBytes)
	}
	var kinds []string
	for _, c := range r.Chunks {
		kinds = append(kinds, c.Kind)
	}
	want := []string{"role", "token", "token", "token", "token", "token", "finish", "usage", "done"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("chunk kinds = %v, want %v", kinds, want)
	}
	// Times are ordered, and every token left no earlier than its deadline
	// (the mock waits on absolute deadlines from receipt).
	prev := r.ReceivedNs
	for _, ns := range []int64{r.HeadersNs} {
		if ns < prev {
			t.Errorf("headers at %d before receipt at %d", ns, prev)
		}
	}
	size := 0
	for i, c := range r.Chunks {
		if c.WriteNs < prev || c.Ns < c.WriteNs {
			t.Errorf("chunk %d written at %d, flushed at %d, after %d", i, c.WriteNs, c.Ns, prev)
		}
		prev = c.Ns
		size += c.Bytes
	}
	if r.EndNs < prev {
		t.Errorf("end %d before the last chunk %d", r.EndNs, prev)
	}
	if size != r.ResponseBytes || size == 0 {
		t.Errorf("chunk bytes sum to %d, response_bytes %d", size, r.ResponseBytes)
	}
	for i := range tokens {
		c := r.Chunks[1+i]
		due := r.ReceivedNs + int64(cfg.TTFT) + int64(i)*int64(cfg.ITL)
		if c.WriteNs < due {
			t.Errorf("token %d written %d ns before its deadline", i, due-c.WriteNs)
		}
	}
}

func TestRecorderBodies(t *testing.T) {
	multiline := []byte("{\n  \"model\": \"m\",\n  \"prompt\": \"a b c\",\n  \"max_tokens\": 3\n}")
	recs := recordedRun(t, fastConfig(), func(url string) {
		postRaw(t, url+"/v1/completions", multiline, map[string]string{"X-Request-ID": "json"})
		postRaw(t, url+"/v1/completions", []byte("not json"), map[string]string{"X-Request-ID": "text"})
		resp, err := http.Get(url + "/health")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	})
	if len(recs) != 3 {
		t.Fatalf("got %d lines, want 3", len(recs))
	}
	byID := map[string]mockserver.RecordedRequest{}
	for _, r := range recs {
		byID[r.RequestID] = r
	}
	j := byID["json"]
	if string(j.Body) != `{"model":"m","prompt":"a b c","max_tokens":3}` || j.BodyBytes != len(multiline) {
		t.Errorf("multi-line body recorded as %s (%d bytes)", j.Body, j.BodyBytes)
	}
	if j.Status != http.StatusOK || len(j.Chunks) != 1 || j.Chunks[0].Kind != "body" ||
		j.Chunks[0].Bytes != j.ResponseBytes || j.Chunks[0].Ns > j.EndNs || j.HeadersNs < j.ReceivedNs {
		t.Errorf("non-streamed answer recorded as %+v", j)
	}
	x := byID["text"]
	if x.Body != nil || x.BodyText == nil || *x.BodyText != "not json" || x.Status != http.StatusBadRequest {
		t.Errorf("non-JSON body recorded as body=%s text=%v status=%d", x.Body, x.BodyText, x.Status)
	}
	h := byID[""]
	if h.Method != "GET" || h.Path != "/health" || h.BodyBytes != 0 || h.Body != nil || h.Status != http.StatusOK {
		t.Errorf("GET recorded as %+v", h)
	}
}

func TestRecorderCloseIdempotent(t *testing.T) {
	var buf bytes.Buffer
	rec := mockserver.NewRecorder(&buf)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("empty record wrote %q", buf.String())
	}
}
