package benchmark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/mockserver"
)

// isProbe reports a request body that is a probe: the probe prompt with
// one output token.
func isProbe(t *testing.T, body []byte) bool {
	t.Helper()
	var b struct {
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
		MaxCompletionTokens *int `json:"max_completion_tokens"`
		MaxTokens           *int `json:"max_tokens"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	one := (b.MaxCompletionTokens != nil && *b.MaxCompletionTokens == 1) || (b.MaxTokens != nil && *b.MaxTokens == 1)
	return one && len(b.Messages) == 1 && b.Messages[0].Content == ProbePrompt
}

// TestProbeRequests: --probe-request-rate sends probes on the wire beside
// a --concurrency 1 workload and outside its cap (the server receives
// probes while it serves a workload request, which the workload's
// one-connection pool would not allow), and keeps them out of everything
// the workload reports. The server's
// count of probe bodies equals probe_requests.sent; the workload's
// request_count, its records and the server's other requests are its 10;
// the probe statistics count every probe that finished; the console has
// the block.
func TestProbeRequests(t *testing.T) {
	t.Parallel()
	url, posts := recorderServer(t, mockserver.New(mockConfig(t, func(c *mockserver.Config) {
		c.Fast, c.TTFT, c.ITL = false, 60*time.Millisecond, 5*time.Millisecond
	})))
	cfg := baseConfig(t, url)
	cfg.Load.Concurrency = ptr(1)
	cfg.Load.RequestCount = ptr(10)
	cfg.Input.OutputTokens.Mean = ptr(8)
	cfg.Fidelity.ProbeRequestRate = ptr(20.0)
	out, err := run(t, t.Context(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	probes, others := 0, 0
	var workload, probing []mockserver.RecordedRequest
	for _, r := range posts() {
		if isProbe(t, r.Body) {
			probes++
			probing = append(probing, r)
		} else {
			others++
			workload = append(workload, r)
		}
	}
	// Outside the cap on the wire: the workload's pool has one connection,
	// so a probe sent through it could never reach the server while a
	// workload request is being served.
	overlap := 0
	for _, p := range probing {
		for _, w := range workload {
			if p.ReceivedNs > w.ReceivedNs && p.ReceivedNs < w.EndNs {
				overlap++
				break
			}
		}
	}
	if overlap == 0 {
		t.Errorf("none of the %d probes reached the server while a workload request was served: they waited for the workload's connection", probes)
	}
	doc := summary(t, filepath.Join(cfg.Output.ArtifactDir, "profile_export_aiperf.json"))
	var got probeResult
	if err := json.Unmarshal(doc["probe_requests"], &got); err != nil {
		t.Fatalf("probe_requests %s: %v", doc["probe_requests"], err)
	}
	if probes == 0 || got.Sent != probes || got.RequestRate != 20 {
		t.Fatalf("the server saw %d probes; probe_requests %s", probes, doc["probe_requests"])
	}
	if others != 10 {
		t.Errorf("the server saw %d workload requests, want 10", others)
	}
	var count struct {
		Avg float64 `json:"avg"`
	}
	if err := json.Unmarshal(doc["request_count"], &count); err != nil || count.Avg != 10 {
		t.Errorf("request_count %s, want 10 (no probe in it)", doc["request_count"])
	}
	f, err := os.Open(filepath.Join(cfg.Output.ArtifactDir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if bytes.Contains(sc.Bytes(), []byte(`"`+ProbePrompt+`"`)) {
			t.Errorf("a probe in the records: %s", sc.Bytes())
		}
		lines++
	}
	if lines != 10 {
		t.Errorf("%d records, want 10", lines)
	}
	finished := got.Sent - got.Failed - got.Cancelled
	if got.TTFT == nil || got.Latency == nil || got.TTFT.Count != finished || got.Latency.Count != finished || got.Failed != 0 {
		t.Fatalf("probe statistics %s; want TTFT and latency over the %d finished probes", doc["probe_requests"], finished)
	}
	// Each probe waits for the mock's 60 ms first token and no more: one
	// output token.
	if got.TTFT.Min < 60 || got.Latency.Min < got.TTFT.Min || got.TTFT.Unit != "ms" {
		t.Errorf("probe TTFT %+v, latency %+v; want at least the mock's 60 ms", got.TTFT, got.Latency)
	}
	if !strings.Contains(out, "Probe requests (--probe-request-rate 20") || !strings.Contains(out, "probe time_to_first_token") {
		t.Errorf("console lacks the probe block:\n%s", out)
	}
}
