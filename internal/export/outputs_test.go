package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/aiperf-go/aiperf/internal/metrics"
	"github.com/aiperf-go/aiperf/internal/record"
)

// TestOutputsJSON checks outputs.json against AIPerf 0.13's shape:
// schema_version "1.0" and one entry per profiling request, sorted by
// session_num and turn_index, with the allowlisted metrics in display units
// and the response text (null without one); warmup records are left out
// and the fragments folder is removed.
func TestOutputsJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := NewOutputsWriter(filepath.Join(dir, "outputs.json"), LineOptions{Clock: testWall})
	if err != nil {
		t.Fatal(err)
	}
	recs := fixtureRecords()
	recs[0].OutputText = "Hello world"
	warm := *recs[1]
	wr := *warm.Record
	wr.Phase, wr.Seq = record.Warmup, 0
	warm.Record = &wr
	for _, p := range append([]*metrics.Processed{recs[2], &warm}, recs[0], recs[1]) {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string `json:"schema_version"`
		Data   []struct {
			SessionNum   int                `json:"session_num"`
			Conversation string             `json:"conversation_id"`
			Turn         int                `json:"turn_index"`
			XRequestID   string             `json:"x_request_id"`
			Start        int64              `json:"request_start_ns"`
			End          int64              `json:"request_end_ns"`
			Metrics      map[string]float64 `json:"metrics"`
			Text         *string            `json:"response_text"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("outputs.json: %v\n%s", err, b)
	}
	if doc.Schema != "1.0" || len(doc.Data) != 3 {
		t.Fatalf("schema %q, %d entries; want 1.0 and the 3 profiling records:\n%s", doc.Schema, len(doc.Data), b)
	}
	for i, want := range []int{1, 2, 3} {
		if doc.Data[i].SessionNum != want {
			t.Errorf("entry %d is session %d; want %d (sorted)", i, doc.Data[i].SessionNum, want)
		}
	}
	first := doc.Data[0]
	if first.Text == nil || *first.Text != "Hello world" || first.XRequestID != recs[0].Record.XRequestID ||
		first.Start != testWall.WallNanos(recs[0].Record.Sent) || first.End != testWall.WallNanos(recs[0].Record.End) {
		t.Errorf("first entry %+v", first)
	}
	// The allowlist only: no usage, lag or inter-chunk latency.
	if len(first.Metrics) != 4 || first.Metrics["time_to_first_token"] != 44.077042999999996 ||
		first.Metrics["input_sequence_length"] != 50 || first.Metrics["output_sequence_length"] != 8 {
		t.Errorf("first entry metrics %v", first.Metrics)
	}
	if doc.Data[1].Text != nil {
		t.Errorf("failed record's response_text %q; want null", *doc.Data[1].Text)
	}
	if !strings.HasPrefix(string(b), "{\n  \"schema_version\": \"1.0\",\n  \"data\": [") {
		t.Errorf("not AIPerf's 2-space layout:\n%.80s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "output_fragments")); !os.IsNotExist(err) {
		t.Errorf("output_fragments left behind: %v", err)
	}
}

// TestOutputsFragmentsTornLine checks a torn last fragment line (a run
// killed mid-write) is skipped, not fatal.
func TestOutputsFragmentsTornLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f.jsonl")
	data := `{"session_num":2,"turn_index":0,"x":1}` + "\n" + `{"session_num":1,"turn_index":0}` + "\n" + `{"session_num":3,"tur`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	frags, err := readFragments(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(frags) != 2 || frags[0].Session != 2 || string(frags[0].raw) != `{"session_num":2,"turn_index":0,"x":1}` {
		t.Errorf("fragments %+v", frags)
	}
}

func TestResultMarkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ReadyMarker), []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := BeginResults(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReadyMarker)); !os.IsNotExist(err) {
		t.Errorf("stale ready marker kept while processing: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ProcessingMarker)); string(b) != `{"processing":true}` {
		t.Errorf("processing marker %q", b)
	}
	if err := CommitResults(dir, Ready{WasCancelled: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ReadyMarker)); string(b) != `{"ready":true,"was_cancelled":true,"partial":false}` {
		t.Errorf("ready marker %q; want AIPerf's", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ProcessingMarker)); !os.IsNotExist(err) {
		t.Errorf("processing marker kept after commit: %v", err)
	}
	if err := CommitResults(dir, Ready{Partial: true, FailedExporters: []string{"summary JSON"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ReadyMarker)); string(b) != `{"ready":true,"was_cancelled":false,"partial":true,"failed_exporters":["summary JSON"]}` {
		t.Errorf("partial ready marker %q", b)
	}
}

// TestRawRequestHeaders checks request_headers: after start_perf_ns, in
// name order, credentials redacted.
func TestRawRequestHeaders(t *testing.T) {
	t.Parallel()
	p := *fixtureRecords()[0]
	r := *p.Record
	r.RequestHeader = map[string][]string{
		"X-Request-ID": {r.XRequestID}, "Content-Type": {"application/json"},
		"Authorization": {"Bearer sk-secret"}, "X-Multi": {"a", "b"},
	}
	p.Record = &r
	line := AppendRawLine(nil, &p, fixturePayload, LineOptions{Clock: testWall, SensitiveHeader: func(n string) bool { return n == "Authorization" }})
	if strings.Contains(string(line), "sk-secret") {
		t.Fatalf("credential leaked: %s", line)
	}
	want := `"request_headers":{"Authorization":"<redacted>","Content-Type":"application/json","X-Multi":"a, b","X-Request-ID":"` + r.XRequestID + `"},"status":200`
	if !strings.Contains(string(line), want) {
		t.Errorf("line lacks %s:\n%s", want, line)
	}
	if got := topKeys(t, line); strings.Join(got, ",") != "metadata,start_perf_ns,request_headers,status,responses,payload" {
		t.Errorf("keys %v", got)
	}
}
