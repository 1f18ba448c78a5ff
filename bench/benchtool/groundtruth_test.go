package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// One streamed request seen by both sides (times in ns): the server
// receives it at 1000 and starts writing tokens at 2000, 3000 and 4000;
// the client sent it at 900 and saw the tokens at 2100, 3100 and 4150.
const (
	serverLines = `{"request_id":"a","method":"POST","path":"/v1/chat/completions","status":200,"received_ns":1000,"headers_ns":1110,"chunks":[` +
		`{"write_ns":1100,"ns":1110,"bytes":10,"kind":"role"},` +
		`{"write_ns":2000,"ns":2010,"bytes":10,"kind":"token"},` +
		`{"write_ns":3000,"ns":3010,"bytes":10,"kind":"token"},` +
		`{"write_ns":4000,"ns":4010,"bytes":10,"kind":"token"},` +
		`{"write_ns":4020,"ns":4030,"bytes":10,"kind":"done"}],"end_ns":5000}
{"request_id":"nonstream","method":"POST","status":200,"received_ns":1000,"headers_ns":1500,"chunks":[{"write_ns":1400,"ns":1500,"bytes":99,"kind":"body"}],"end_ns":1500}
{"request_id":"mismatch","method":"POST","status":200,"received_ns":1000,"chunks":[{"write_ns":2000,"ns":2000,"kind":"token"},{"write_ns":3000,"ns":3000,"kind":"token"}],"end_ns":4000}
{"request_id":"failed","method":"POST","status":500,"received_ns":1000,"chunks":[],"end_ns":1000}
{"request_id":"server-only","method":"POST","status":200,"received_ns":1000,"chunks":[],"end_ns":1000}
{"request_id":"","method":"GET","path":"/health","status":200,"received_ns":1,"chunks":[],"end_ns":2}
`
	clientLines = `{"metadata":{"x_request_id":"a","request_start_ns":900,"request_ack_ns":1200,"request_end_ns":5100},"metrics":{` +
		`"time_to_first_token":{"value":0.0012,"unit":"ms"},"request_latency":{"value":0.00325,"unit":"ms"},"http_req_connecting":{"value":150,"unit":"ns"},` +
		`"inter_chunk_latency":{"value":[0.001,0.00105],"unit":"ms"}}}
{"metadata":{"x_request_id":"nonstream","request_start_ns":900,"request_ack_ns":1600,"request_end_ns":1600},"metrics":{"request_latency":{"value":700,"unit":"ns"}}}
{"metadata":{"x_request_id":"mismatch","request_start_ns":900,"request_end_ns":4100},"metrics":{"time_to_first_token":{"value":1.2,"unit":"us"},"inter_chunk_latency":{"value":[1,1,1],"unit":"us"}}}
{"metadata":{"x_request_id":"failed","request_start_ns":900,"request_end_ns":1100},"metrics":{},"error":{"code":500,"message":"x"}}
{"metadata":{"x_request_id":"client-only","request_start_ns":900,"request_end_ns":1100},"metrics":{}}
`
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJoinGroundTruth(t *testing.T) {
	srv, err := readServerRecord(writeTemp(t, "s.jsonl", serverLines))
	if err != nil {
		t.Fatal(err)
	}
	cli, err := readClientRecords(writeTemp(t, "c.jsonl", clientLines))
	if err != nil {
		t.Fatal(err)
	}
	rep := joinGroundTruth(srv, cli)
	want := groundTruthReport{
		Joined: 3, ClientUnmatched: 1, ServerUnmatched: 1, Failed: 1, ChunkMismatch: 1, Connected: 1,
		Series: map[string]errorStats{
			// a: 1200 - (2000-1000); mismatch: 1200 - (2000-1000).
			seriesTTFT: {Count: 2, Mean: 0.2, Min: 0.2, P50: 0.2, P90: 0.2, P99: 0.2, Max: 0.2},
			// a only (it paid a 150 ns connect): 1200 - 150 - (2000-1000).
			seriesTTFTNet: {Count: 1, Mean: 0.05, Min: 0.05, P50: 0.05, P90: 0.05, P99: 0.05, Max: 0.05},
			// a's gaps: 1000-1000 and 1050-1000.
			seriesGap: {Count: 2, Mean: 0.025, Min: 0, P50: 0.025, P90: 0.045, P99: 0.0495, Max: 0.05},
			// a: 3250 - (4000-1000); nonstream: 700 - (1400-1000).
			seriesLatency: {Count: 2, Mean: 0.275, Min: 0.25, P50: 0.275, P90: 0.295, P99: 0.2995, Max: 0.3},
			seriesSend:    {Count: 3, Mean: 0.1, Min: 0.1, P50: 0.1, P90: 0.1, P99: 0.1, Max: 0.1},
			seriesAck:     {Count: 2, Mean: 0.095, Min: 0.09, P50: 0.095, P90: 0.099, P99: 0.0999, Max: 0.1},
			seriesFirst:   {Count: 2, Mean: 0.1, Min: 0.1, P50: 0.1, P90: 0.1, P99: 0.1, Max: 0.1},
			seriesLast:    {Count: 2, Mean: 0.175, Min: 0.15, P50: 0.175, P90: 0.195, P99: 0.1995, Max: 0.2},
			seriesEnd:     {Count: 3, Mean: 0.1, Min: 0.1, P50: 0.1, P90: 0.1, P99: 0.1, Max: 0.1},
		},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })
	if d := cmp.Diff(want, rep, approx); d != "" {
		t.Errorf("report mismatch (-want +got):\n%s", d)
	}
	var buf bytes.Buffer
	if err := rep.print(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "joined 3 requests") || !strings.Contains(buf.String(), "TTFT error") {
		t.Errorf("text report:\n%s", buf.String())
	}
}

func TestParseClientLineErrors(t *testing.T) {
	for _, line := range []string{
		`not json`,
		`{"metrics":{"time_to_first_token":{"value":1,"unit":"parsecs"}}}`,
		`{"metrics":{"request_latency":{"value":"x","unit":"ms"}}}`,
		`{"metrics":{"inter_chunk_latency":{"value":[1e300],"unit":"sec"}}}`,
	} {
		if _, err := parseClientLine([]byte(line)); err == nil {
			t.Errorf("parseClientLine(%s) = nil error", line)
		}
	}
}

func TestLookup(t *testing.T) {
	p := writeTemp(t, "a.json", `{"a":{"b":[1,{"c":"x"}]},"n":0.25,"t":true,"o":{"k":1}}`)
	var out bytes.Buffer
	if err := jsonMain([]string{p, "a.b.0", "a.b.1.c", "n", "t", "o", "a.b.9", "missing.x"}, &out); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "1 x 0.25 true {\"k\":1} NA NA\n"; got != want {
		t.Errorf("json = %q, want %q", got, want)
	}
}

func FuzzParseClientLine(f *testing.F) {
	for line := range strings.SplitSeq(clientLines, "\n") {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseClientLine(b)
		if err != nil {
			return
		}
		// Whatever was accepted converts back to a finite number of µs.
		for _, v := range append(r.ICL, r.TTFT, r.Latency) {
			if us := float64(v) / 1e3; us != us {
				t.Errorf("non-finite value from %q", b)
			}
		}
	})
}
