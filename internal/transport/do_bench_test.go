package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aiperf-go/aiperf/internal/clock"
	"github.com/aiperf-go/aiperf/internal/record"
)

// BenchmarkDoNonStreaming is one non-streaming POST on a keep-alive
// connection, client and server in this process: what the transport's
// per-request path (HTTP trace included) costs. Compare allocs/op and
// ns/op across commits in one run; the server's share is constant.
func BenchmarkDoNonStreaming(b *testing.B) {
	answer := []byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"one two three four five six seven eight"},"finish_reason":"length"}],"usage":{"prompt_tokens":16,"completion_tokens":8,"total_tokens":24}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	c := New(Options{})
	defer c.Close()
	clk := clock.New()
	req := &Request{URL: srv.URL, Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hello"}],"max_tokens":8}`), Header: http.Header{"Content-Type": {"application/json"}}}
	b.ReportAllocs()
	for b.Loop() {
		var rec record.Record
		c.Do(context.Background(), clk, req, &rec)
		if rec.Error != nil {
			b.Fatal(rec.Error)
		}
	}
}
